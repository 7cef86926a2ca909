/**
 * services/request.js and services/api.js: the single wx.request wrapper turns
 * HTTP errors and network failures into rejected promises with the server's
 * code, and the API module keeps one session, renewing it on 401
 * SESSION_EXPIRED or UNAUTHORIZED with the old token as previousToken (the
 * client side of the session contract): silent when the server keeps the
 * player, said once when it does not, one renewal for concurrent failures.
 */
const config = require('../../config')
const {request, RequestError, NETWORK_ERROR} = require('../../services/request')
const api = require('../../services/api')
const {install} = require('../support/wx')
const {fakeTransport} = require('../support/fake-transport')

let transport
let wx

beforeEach(() => {
  transport = fakeTransport()
  wx = install(transport)
})

describe('request', () => {
  test('resolves with the body for 2xx and null for 204', async () => {
    transport.on('GET', '/x', () => [200, {ok: 1}]).on('DELETE', '/x', () => [204, ''])
    await expect(request({path: '/x'})).resolves.toEqual({ok: 1})
    await expect(request({method: 'DELETE', path: '/x'})).resolves.toBeNull()
    expect(transport.state.calls[0].header['Content-Type']).toBeUndefined()
  })

  test('refuses a method wx.request cannot send (it has no PATCH)', async () => {
    const err = await request({method: 'PATCH', path: '/x', data: {}}).catch(e => e)
    expect(err.message).toBe('wx.request cannot send PATCH')
    expect(transport.state.calls).toEqual([])
  })

  test('uses the configured base URL', async () => {
    transport.on('GET', '/x', () => [200, {}])
    await request({path: '/x'})
    expect(wx.rec.requests[0].url).toBe(`${config.baseUrl}/x`)
  })

  test('sends JSON with a Content-Type and the bearer token', async () => {
    transport.on('POST', '/x', () => [201, {}])
    await request({method: 'POST', path: '/x', data: {a: 1}, token: 't0k'})
    const call = transport.state.calls[0]
    expect(call.header['Content-Type']).toBe('application/json')
    expect(call.header.Authorization).toBe('Bearer t0k')
    expect(call.data).toEqual({a: 1})
  })

  test('a status >= 400 rejects with the server error code and details', async () => {
    transport.on('POST', '/m', () => [422, {error: {code: 'FORBIDDEN_MOVE', message: 'forbidden', kind: 'double_three'}}])
    const err = await request({method: 'POST', path: '/m', data: {}}).catch(e => e)
    expect(err).toBeInstanceOf(RequestError)
    expect(err.code).toBe('FORBIDDEN_MOVE')
    expect(err.status).toBe(422)
    expect(err.details).toEqual({kind: 'double_three'})
  })

  test('an error without our shape still rejects, named by its status', async () => {
    transport.on('GET', '/x', () => [502, '<html>bad gateway</html>'])
    const err = await request({path: '/x'}).catch(e => e)
    expect(err.code).toBe('HTTP_502')
    expect(err.status).toBe(502)
  })

  test('a network failure rejects with NETWORK_ERROR', async () => {
    transport.state.down = true
    const err = await request({path: '/x'}).catch(e => e)
    expect(err.code).toBe(NETWORK_ERROR)
    expect(err.status).toBe(0)
  })
})

describe('api', () => {
  let sessions
  beforeEach(() => {
    sessions = 0
    transport.on('POST', '/api/v1/sessions', () => {
      sessions += 1
      return [201, {token: `tok${sessions}`, playerId: `p${sessions}`}]
    })
  })

  test('makes one session for concurrent first calls and keeps it in storage', async () => {
    transport.on('GET', '/api/v1/games', () => [200, {games: [], nextCursor: null}])
    await Promise.all([api.listGames({status: 'playing'}), api.listGames({status: 'finished'})])
    expect(sessions).toBe(1)
    expect(wx.getStorageSync(api.TOKEN_KEY)).toEqual({token: 'tok1', playerId: 'p1'})
    const gets = transport.state.calls.filter(c => c.method === 'GET')
    expect(gets.map(c => c.header.Authorization)).toEqual(['Bearer tok1', 'Bearer tok1'])
    expect(gets[0].data).toEqual({limit: 20, status: 'playing'})
  })

  const expired = [401, {error: {code: 'SESSION_EXPIRED', message: 'session expired'}}]
  const unknown = [401, {error: {code: 'UNAUTHORIZED', message: 'no'}}]

  /** The server's renewal: the same player for a token it still knows (here: "known…"). */
  function renewing() {
    transport.on('POST', '/api/v1/sessions', options => {
      sessions += 1
      const prev = options.data && options.data.previousToken
      const playerId = prev && prev.startsWith('known') ? 'p-same' : `p${sessions}`
      return [201, {token: `tok${sessions}`, playerId}]
    })
  }

  test('an expired session is renewed with previousToken for the same player, silently, and the call repeated', async () => {
    renewing()
    wx.setStorageSync(api.TOKEN_KEY, {token: 'known-old', playerId: 'p-same'})
    transport.on('GET', '/api/v1/games/g1', options =>
      (options.header.Authorization === 'Bearer known-old' ? expired : [200, {id: 'g1'}]))
    await expect(api.getGame('g1')).resolves.toEqual({id: 'g1'})
    const renewal = transport.state.calls.find(c => c.path === '/api/v1/sessions')
    expect(renewal.data).toEqual({previousToken: 'known-old'})
    expect(sessions).toBe(1)
    expect(wx.getStorageSync(api.TOKEN_KEY)).toEqual({token: 'tok1', playerId: 'p-same'})
    expect(wx.rec.modals).toEqual([])
  })

  test('a lost session (the server forgot the token) starts a new player and says so once', async () => {
    renewing()
    wx.setStorageSync(api.TOKEN_KEY, {token: 'stale', playerId: 'old'})
    transport.on('GET', /^\/api\/v1\/games\/g1$/, options =>
      (options.header.Authorization === 'Bearer stale' ? unknown : [200, {id: 'g1'}]))
    await expect(api.getGame('g1')).resolves.toEqual({id: 'g1'})
    expect(transport.state.calls.find(c => c.path === '/api/v1/sessions').data).toEqual({previousToken: 'stale'})
    expect(wx.getStorageSync(api.TOKEN_KEY)).toEqual({token: 'tok1', playerId: 'p1'})
    expect(wx.rec.modals).toEqual([{title: '提示', content: api.NEW_PLAYER_NOTICE}])
    // The app goes on with the new session, and says nothing more.
    await api.getGame('g1')
    expect(wx.rec.modals).toHaveLength(1)
  })

  test('requests failing together share one renewal, and the change of player is said once', async () => {
    renewing()
    wx.setStorageSync(api.TOKEN_KEY, {token: 'stale', playerId: 'old'})
    transport.on('GET', '/api/v1/games', options =>
      (options.header.Authorization === 'Bearer stale' ? unknown : [200, {games: [], nextCursor: null}]))
    await Promise.all([api.listGames({status: 'playing'}), api.listGames({status: 'finished'}), api.listGames({})])
    expect(sessions).toBe(1)
    expect(wx.rec.modals).toHaveLength(1)
    const retried = transport.state.calls.filter(c => c.method === 'GET' && c.header.Authorization === 'Bearer tok1')
    expect(retried).toHaveLength(3)
  })

  test('the wx.login code goes with the renewal when there is one', async () => {
    renewing()
    wx.login = options => setTimeout(() => options.success({code: 'c0de'}), 0)
    wx.setStorageSync(api.TOKEN_KEY, {token: 'known-1', playerId: 'p-same'})
    transport.on('GET', '/api/v1/games/g1', options =>
      (options.header.Authorization === 'Bearer known-1' ? expired : [200, {id: 'g1'}]))
    await api.getGame('g1')
    expect(transport.state.calls.find(c => c.path === '/api/v1/sessions').data).toEqual({code: 'c0de', previousToken: 'known-1'})
  })

  test('a second 401 is passed on, not retried forever', async () => {
    transport.on('GET', /^\/api\/v1\/games\/g1$/, () => unknown)
    const err = await api.getGame('g1').catch(e => e)
    expect(err.code).toBe('UNAUTHORIZED')
    expect(sessions).toBe(2)
  })

  test('other errors are not renewals', async () => {
    wx.setStorageSync(api.TOKEN_KEY, {token: 't', playerId: 'p'})
    transport.on('GET', '/api/v1/games/g1', () => [404, {error: {code: 'GAME_NOT_FOUND', message: 'no'}}])
    expect((await api.getGame('g1').catch(e => e)).code).toBe('GAME_NOT_FOUND')
    expect(sessions).toBe(0)
  })

  test('each endpoint goes to its path with its method and body', async () => {
    transport.on('POST', /.*/, (o, url) => [200, {path: url.pathname}])
      .on('GET', /.*/, (o, url) => [200, {path: url.pathname}])
      .on('DELETE', /.*/, () => [204, ''])
    transport.on('POST', '/api/v1/sessions', () => [201, {token: 't', playerId: 'p'}])
    await api.createGame({mode: 'local'})
    await api.playMove('a b', 7, 8, 3)
    await api.undo('g')
    await api.resign('g')
    await api.hint('g')
    await api.exportGame('g')
    await api.importGame({version: 'gomoku-1.0'})
    await api.deleteGame('g')
    const seen = transport.state.calls.slice(1).map(c => [c.method, c.path, c.data])
    expect(seen).toEqual([
      ['POST', '/api/v1/games', {mode: 'local'}],
      ['POST', '/api/v1/games/a%20b/moves', {row: 7, col: 8, ply: 3}],
      ['POST', '/api/v1/games/g/undo', undefined],
      ['POST', '/api/v1/games/g/resign', undefined],
      ['GET', '/api/v1/games/g/hint', undefined],
      ['GET', '/api/v1/games/g/export', undefined],
      ['POST', '/api/v1/games/import', {version: 'gomoku-1.0'}],
      ['DELETE', '/api/v1/games/g', undefined],
    ])
  })
})
