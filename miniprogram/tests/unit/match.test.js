/**
 * 匹配 on home against a scripted transport and a scripted player channel
 * (the real pool is exercised in tests/e2e/match.test.js): the pools with
 * their waiting counts, seeking with the channel open, the waiting state
 * with the time waited and 取消, a dropped channel re-opened and the lost
 * seek posted again, `paired` opening the game, the server's refusals in
 * words; and the opening rule in the new-game settings.
 */
const {loadPage, openPage, textsOf} = require('../support/harness')
const {installScripted} = require('../support/fake-transport')
const {gameState} = require('../support/states')
const {flush, until, tapButton, buttonTexts} = require('../support/e2e')

const homeId = loadPage('home')

const POOLS = [
  {pool: 'freestyle/1+0', rule: 'freestyle', boardSize: 15, timeControl: {initialMs: 60000, incrementMs: 0}, waiting: 0},
  {pool: 'freestyle/3+2', rule: 'freestyle', boardSize: 15, timeControl: {initialMs: 180000, incrementMs: 2000}, waiting: 3},
  {pool: 'renju/10+5', rule: 'renju', boardSize: 15, timeControl: {initialMs: 600000, incrementMs: 5000}, waiting: 1},
]

let transport
let wx

beforeEach(() => {
  ;({transport, wx} = installScripted())
  transport.on('GET', '/api/v1/games', () => [200, {games: [], nextCursor: null}])
  transport.on('GET', '/api/v1/pools', () => [200, {pools: POOLS}])
  transport.on('POST', '/api/v1/seeks', options => [201, {seek: Object.assign({pool: 'freestyle/3+2', since: '2026-12-05T08:00:00Z'}, options.data)}])
  transport.on('DELETE', '/api/v1/seeks', () => [204, ''])
})

afterEach(() => {
  jest.useRealTimers()
})

/** The player channel socket number `n` (1-based), once the page has made it. */
async function socketNo(n) {
  for (let i = 0; i < 50 && wx.rec.sockets.length < n; i++) await flush()
  const task = wx.rec.sockets[n - 1]
  if (!task) throw new Error(`no socket #${n}`)
  return task
}

/** Open home and start seeking in the pool `key`; resolves with the page and its open channel. */
async function seekIn(key) {
  const page = await openPage(homeId)
  page.instance.onPoolTap({currentTarget: {dataset: {pool: key}}})
  const seeking = page.instance.onSeek()
  const socket = await socketNo(1)
  socket.open()
  socket.receive({type: 'hello', seek: null})
  await seeking
  return {page, socket}
}

describe('匹配 on home', () => {
  test('lists the pools with their waiting counts, the first chosen, beside 排行榜 and 残局', async () => {
    const page = await openPage(homeId)
    expect(textsOf(page, 'home', 'home__pool-label')).toEqual(['无禁手 · 1+0', '无禁手 · 3+2', '连珠 · 10+5'])
    expect(textsOf(page, 'home', 'home__pool-waiting')).toEqual(['无人等待', '3 人等待', '1 人等待'])
    expect(page.data.pool).toBe('freestyle/1+0')
    expect(buttonTexts(page)).toEqual(expect.arrayContaining(['开始匹配', '排行榜', '残局']))
    await tapButton(page, '排行榜')
    await tapButton(page, '残局')
    expect(wx.rec.navigations.map(n => n.url)).toEqual(['/pages/leaderboard/leaderboard', '/pages/puzzles/puzzles'])
  })

  test('开始匹配 opens the player channel with the token and seeks in the chosen pool; 取消 removes the seek and closes it', async () => {
    const {page, socket} = await seekIn('freestyle/3+2')
    expect(socket.url).toBe('ws://127.0.0.1:8080/api/v1/live')
    expect(socket.header).toEqual({Authorization: 'Bearer t'})
    expect(transport.calls('POST', '/seeks').map(c => c.data)).toEqual([
      {rule: 'freestyle', boardSize: 15, timeControl: {initialMs: 180000, incrementMs: 2000}},
    ])
    expect(page.data.seeking).toBe(true)
    expect(textsOf(page, 'home', 'home__seeking-title')).toEqual(['正在匹配…0:00'])
    expect(buttonTexts(page)).toContain('取消')
    expect(buttonTexts(page)).not.toContain('开始匹配')
    // Another pool cannot be chosen while waiting.
    page.instance.onPoolTap({currentTarget: {dataset: {pool: 'renju/10+5'}}})
    expect(page.data.pool).toBe('freestyle/3+2')
    await tapButton(page, '取消')
    await until(() => !page.data.seeking, 'the waiting to end')
    expect(transport.calls('DELETE', '/seeks')).toHaveLength(1)
    expect(socket.closed).toBe(true)
    expect(buttonTexts(page)).toContain('开始匹配')
  })

  test('the time waited counts up once a second', async () => {
    const {page} = await seekIn('freestyle/1+0')
    jest.useFakeTimers({now: Date.now()})
    page.instance._seekSince = Date.now()
    page.instance._tickSeek()
    jest.advanceTimersByTime(65 * 1000 + 10)
    expect(page.data.seekElapsed).toBe('1:05')
    page.instance.onUnload()
    expect(jest.getTimerCount()).toBe(0)
  })

  test('a dropped channel is re-opened, and a seek lost with it is posted again', async () => {
    const {page, socket} = await seekIn('freestyle/3+2')
    jest.useFakeTimers({doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask']})
    socket.drop()
    expect(page.data.seekLinkDown).toBe(true)
    jest.advanceTimersByTime(1000)
    jest.useRealTimers()
    const again = await socketNo(2)
    again.open()
    again.receive({type: 'hello', seek: null})
    await until(() => transport.calls('POST', '/seeks').length === 2, 'the seek posted again')
    expect(page.data.seekLinkDown).toBe(false)
    expect(page.data.seeking).toBe(true)
    page.instance.onUnload()
  })

  test('paired: the waiting ends, the channel closes, and the game opens', async () => {
    const {page, socket} = await seekIn('freestyle/3+2')
    socket.receive({type: 'paired', gameId: 'r1', pool: 'freestyle/3+2', you: 2})
    expect(page.data.seeking).toBe(false)
    expect(socket.closed).toBe(true)
    expect(wx.rec.navigations).toEqual([{type: 'navigateTo', url: '/pages/game/game?id=r1'}])
  })

  test('the seek ended elsewhere: the waiting ends with a toast', async () => {
    const {page, socket} = await seekIn('freestyle/3+2')
    socket.receive({type: 'seekEnded', reason: 'cancelled'})
    expect(page.data.seeking).toBe(false)
    expect(wx.rec.toasts).toEqual(['匹配已取消'])
  })

  test('a refused seek says why in words and leaves no channel open', async () => {
    transport.on('POST', '/api/v1/seeks', () => [409, {error: {code: 'ALREADY_SEEKING', message: 'seeking in another pool'}}])
    const {page, socket} = await seekIn('freestyle/3+2')
    expect(page.data.seeking).toBe(false)
    expect(socket.closed).toBe(true)
    expect(wx.rec.toasts).toEqual(['你已在另一个匹配池中等待'])
  })
})

describe('the opening rule in the new-game settings', () => {
  test('swap2 for freestyle, Taraguchi-10 for renju, who starts against the AI; none for two on one phone', async () => {
    transport.on('POST', '/api/v1/games', () => [201, gameState({id: 'n1'})])
    const page = await openPage(homeId)
    expect(page.data.openings.map(o => o.label)).toEqual(['无', 'swap2'])
    page.instance.onOpeningChange({detail: {value: 'swap2'}})
    // Renju has its own rule: the choice goes back to none.
    page.instance.onRuleChange({detail: {value: 'renju'}})
    expect(page.data.openings.map(o => o.label)).toEqual(['无', 'Taraguchi-10'])
    expect(page.data.opening).toBe('none')
    page.instance.onOpeningChange({detail: {value: 'taraguchi10'}})
    page.instance.onOpeningSeatChange({detail: {value: 'second'}})
    await page.instance.onStart()
    expect(transport.calls('POST', '/games')[0].data).toEqual({
      mode: 'ai', rule: 'renju', boardSize: 15, ai: {level: 'medium', player: 2}, opening: 'taraguchi10', openingSeat: 'second',
    })
    page.instance.onModeChange({detail: {value: 'local'}})
    page.instance.setData({starting: false})
    await page.instance.onStart()
    expect(transport.calls('POST', '/games')[1].data).toEqual({mode: 'local', rule: 'renju', boardSize: 15})
  })
})
