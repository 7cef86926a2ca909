/**
 * Play against a friend on the game page, against a scripted transport and
 * a scripted socket (the real server and real WebSockets are exercised in
 * tests/e2e/online.test.js): the waiting screen and the invite, opening a
 * card (name, join, spectator, finished), the live socket (versions, turn,
 * presence, reconnection with backoff, nothing left running when hidden),
 * the clocks, and the offers.
 */
const fs = require('fs')
const path = require('path')
const {ROOT, loadPage, openPage, launchPage, byClass, textsOf} = require('../support/harness')
const {installScripted} = require('../support/fake-transport')
const {onlineState, offer} = require('../support/states')
const {flush, until, tapButton: tap, buttonTexts, answered} = require('../support/e2e')
const settings = require('../../utils/settings')
const {FLAG_GRACE_MS} = require('../../pages/game/online')

const gameId = loadPage('game')

let transport
let wx

beforeEach(() => {
  ;({transport, wx} = installScripted())
  settings.saveSettings({confirm: 'off', nameAsked: true})
})

afterEach(() => {
  jest.useRealTimers()
})

const calls = (method, suffix) => transport.calls(method, suffix)
const texts = textsOf


/** Socket number `n` (1-based) made by the page, once it exists (the session is read first). */
async function socketNo(n) {
  for (let i = 0; i < 50 && wx.rec.sockets.length < n; i++) await flush()
  const task = wx.rec.sockets[n - 1]
  if (!task) throw new Error(`no socket #${n}`)
  return task
}

/** Open the game page on `state` (GET answers it) and its socket, which delivers the state first. */
async function openLive(state, query = {id: 'g1'}) {
  transport.on('GET', '/api/v1/games/g1', () => [200, state])
  const before = wx.rec.sockets.length
  const page = await openPage(gameId, query)
  const socket = await socketNo(before + 1)
  socket.open()
  socket.receive({type: 'state', game: state})
  return {page, socket}
}

describe('the waiting screen', () => {
  test('shows the settings and 邀请好友 as a share button; the card it sends opens the game with join', async () => {
    const state = onlineState({
      status: 'waiting',
      timeControl: {initialMs: 600000, incrementMs: 10000},
      clock: {blackMs: 600000, whiteMs: 600000, running: null, asOf: '2026-11-30T04:00:00Z'},
    })
    const {page, socket} = await openLive(state)
    expect(socket.url).toBe('ws://127.0.0.1:8080/api/v1/games/g1/live')
    expect(socket.header).toEqual({Authorization: 'Bearer t'})
    expect(wx.rec.titles).toEqual(['好友对战'])
    expect(texts(page, 'invite-card', 'invite-card__title')).toEqual(['等待好友加入…'])
    expect(texts(page, 'invite-card', 'invite-card__value')).toEqual(['无禁手', '15 × 15', '10分钟+10秒', '执黑先行'])
    const share = byClass(page, 'invite-card', 'invite-card__share')
    expect(share.map(b => b.textContent.trim())).toEqual(['邀请好友'])
    // simulate drops the attributes of built-in components: the template says what kind of button it is.
    expect(fs.readFileSync(path.join(ROOT, 'components/invite-card/invite-card.wxml'), 'utf8'))
      .toMatch(/<button class="invite-card__share" open-type="share"/)
    expect(buttonTexts(page)).toEqual(['复制邀请', '取消'])
    // No board while nobody can play on it.
    expect(page.querySelector('#board')).toBeUndefined()
    expect(wx.rec.shareMenu).toBe('shown')
    // The card names the inviter; its image comes with `promise` (tests/unit/invite.test.js).
    const card = page.instance.onShareAppMessage({from: 'button'})
    expect({title: card.title, path: card.path}).toEqual({
      title: '「小明」邀你下一盘五子棋 · 无禁手 · 10+10',
      path: '/pages/game/game?id=g1&join=1',
    })
  })

  test('复制邀请 copies the invite sentence; 取消 asks, deletes the game, closes the socket and goes home', async () => {
    const {page, socket} = await openLive(onlineState({status: 'waiting'}))
    await tap(page, '复制邀请')
    expect(wx.rec.clipboard).toBe('「小明」邀你下一盘五子棋（无禁手）：复制这段话，打开小程序「五子棋」，在首页点「从剪贴板导入」即可加入。对局码 g1')

    transport.on('DELETE', '/api/v1/games/g1', () => [204, ''])
    wx.rec.modalAnswer = false
    await page.instance.onCancelGame()
    expect(calls('DELETE', '/games/g1')).toHaveLength(0)
    wx.rec.modalAnswer = true
    await page.instance.onCancelGame()
    expect(wx.rec.modals.map(m => m.title)).toEqual(['取消对局？', '取消对局？'])
    expect(calls('DELETE', '/games/g1')).toHaveLength(1)
    expect(wx.rec.navigations).toEqual([{type: 'reLaunch', url: '/pages/home/home'}])
    expect(socket.closed).toBe(true)
  })

  test('the friend joining arrives over the socket: the board replaces the invite, with a toast and no request', async () => {
    const {page, socket} = await openLive(onlineState({status: 'waiting'}))
    const requests = wx.rec.requests.length
    socket.receive({type: 'state', game: onlineState({version: 2})})
    expect(page.data.waiting).toBe(false)
    expect(page.querySelector('#board')).toBeTruthy()
    expect(wx.rec.toasts).toEqual(['好友已加入，对局开始'])
    // The opponent above the board, the viewer below it.
    expect(texts(page, 'player-bar', 'player-bar__name')).toEqual(['小红', '我小明'])
    expect(page.data.statusText).toBe('轮到你了（黑）')
    expect(wx.rec.requests.length).toBe(requests)
  })
})

describe('a game cancelled by its creator', () => {
  test('the socket drops, the state is gone: the page says so with 返回首页 and stops', async () => {
    const {page, socket} = await openLive(onlineState({status: 'waiting', you: null}))
    transport.on('GET', '/api/v1/games/g1', () => [404, {error: {code: 'GAME_NOT_FOUND', message: 'no'}}])
    socket.drop()
    await until(() => page.data.loadError, 'the page to say it')
    expect(page.data.loadError).toBe('这局棋已被取消或不存在')
    expect(byClass(page, 'load-error', 'btn').map(b => b.textContent.trim())).toEqual(['返回首页'])
    expect(page.data.linkDown).toBe(false)
    // No reconnection is attempted.
    const made = wx.rec.sockets.length
    await new Promise(r => setTimeout(r, 1200))
    expect(wx.rec.sockets).toHaveLength(made)
  })
})

describe('opening an invite card', () => {
  test('the first time it asks for a name before taking the free seat; the friend then sees it', async () => {
    settings.saveSettings({nameAsked: false})
    transport.on('GET', '/api/v1/games/g1', () => [200, onlineState({status: 'waiting', you: null})])
    transport.on('GET', '/api/v1/me', () => [200, {playerId: 'p2', name: '棋手0042'}])
    transport.on('PUT', '/api/v1/me', options => [200, {playerId: 'p2', name: options.data.name}])
    transport.on('POST', '/api/v1/games/g1/join', () => [200, onlineState({you: 2, version: 2})])
    const {page, ready} = launchPage(gameId, {id: 'g1', join: '1'})
    await until(() => page.data.nameSheet, 'the name sheet')
    // The sheet is open with the current name; nothing joined yet.
    expect(page.data.nameSheet).toBe(true)
    expect(byClass(page, 'name-sheet', 'name-sheet__title').map(e => e.textContent)).toEqual(['你的昵称'])
    expect(fs.readFileSync(path.join(ROOT, 'components/name-sheet/name-sheet.wxml'), 'utf8')).toMatch(/type="nickname"/)
    expect(buttonTexts(page)).toEqual(['暂不', '保存'])
    expect(calls('POST', '/join')).toHaveLength(0)

    // The sheet's form submits the name it holds.
    page.querySelector('#name').instance.onSubmit({detail: {value: {name: ' 小红 '}}})
    await ready
    expect(calls('PUT', '/me').map(c => c.data)).toEqual([{name: '小红'}])
    expect(calls('POST', '/join')).toHaveLength(1)
    expect(page.data.you).toBe(2)
    expect(page.data.statusText).toBe('等待对方落子…')
    expect(settings.loadSettings().nameAsked).toBe(true)
  })

  test('a name the service would refuse is said in the sheet and not sent', async () => {
    const {load, simulate} = require('../support/harness')
    const sheetId = load('components/name-sheet/name-sheet', 'name-sheet')
    const comp = simulate.render(sheetId, {show: true, name: '棋手0042'})
    comp.attach(document.createElement('parent-wrapper'))
    const saved = []
    comp.addEventListener('save', e => saved.push(e.detail))
    comp.instance.onSubmit({detail: {value: {name: '   '}}})
    expect(comp.data.problem).toBe('请输入昵称')
    comp.instance.onSubmit({detail: {value: {name: '一二三四五六七八九十一二三四五六七'}}})
    expect(comp.data.problem).toBe('昵称最多 16 个字')
    // WeChat's check refused the nickname and emptied the input.
    comp.instance.onReview({detail: {pass: false, timeout: false}})
    expect(comp.data.problem).toBe('这个昵称不能使用，换一个吧')
    comp.instance.onSubmit({detail: {value: {name: '  小红 '}}})
    await simulate.sleep(0)
    expect(saved).toEqual([{name: '小红'}])
  })

  test('a full game is watched: read-only board, both names, no player buttons, no join sent', async () => {
    const {page} = await openLive(onlineState({you: null, moves: [[7, 7], [7, 8]]}), {id: 'g1', join: '1'})
    expect(calls('POST', '/join')).toHaveLength(0)
    expect(wx.rec.titles).toEqual(['观战'])
    expect(page.data.you).toBe(0)
    expect(texts(page, 'player-bar', 'player-bar__name')).toEqual(['小红', '小明'])
    expect(page.data.statusText).toBe('观战中 · 黑方落子')
    expect(buttonTexts(page)).toEqual(['导出', '复盘', '设置'])
    expect(byClass(page, 'board', 'board--disabled')).toHaveLength(1)
    await page.instance.onCellTap({detail: {row: 0, col: 0}})
    expect(calls('POST', '/moves')).toHaveLength(0)
  })

  test('a game filled meanwhile (409 GAME_FULL on join) is watched', async () => {
    transport.on('GET', '/api/v1/games/g1', () => [200, onlineState({status: 'waiting', you: null})])
    transport.on('POST', '/api/v1/games/g1/join', () => {
      transport.on('GET', '/api/v1/games/g1', () => [200, onlineState({you: null, version: 2})])
      return [409, {error: {code: 'GAME_FULL', message: 'full'}}]
    })
    const page = await openPage(gameId, {id: 'g1', join: '1'})
    expect(calls('POST', '/join')).toHaveLength(1)
    expect(page.data.you).toBe(0)
    expect(page.data.loadError).toBe('')
    expect(wx.rec.titles).toEqual(['观战'])
  })

  test('a finished game shows its result and 复盘; a cancelled one says the invite is gone', async () => {
    const over = onlineState({you: null, moves: [[7, 7]], status: 'white_won', winner: 2, endReason: 'resign', currentPlayer: null})
    transport.on('GET', '/api/v1/games/g1', () => [200, over])
    const page = await openPage(gameId, {id: 'g1', join: '1'})
    expect(page.data.statusText).toBe('白方胜 · 黑方认输')
    expect(buttonTexts(page)).toContain('复盘')
    // Nothing will change: no socket for it.
    await flush()
    expect(wx.rec.sockets).toHaveLength(0)

    transport.on('GET', '/api/v1/games/g1', () => [404, {error: {code: 'GAME_NOT_FOUND', message: 'no'}}])
    const gone = await openPage(gameId, {id: 'g1', join: '1'})
    expect(gone.data.loadError).toBe('这局棋已被取消或不存在')
    expect(byClass(gone, 'load-error', 'btn').map(b => b.textContent.trim())).toEqual(['返回首页'])
  })
})

describe('live play', () => {
  test('the opponent\'s stone arrives over the socket without a request; an older state is dropped', async () => {
    const {page, socket} = await openLive(onlineState({moves: [[7, 7]], version: 3}))
    expect(page.data.statusText).toBe('等待对方落子…')
    expect(byClass(page, 'board', 'board--disabled')).toHaveLength(1)
    await page.instance.onCellTap({detail: {row: 0, col: 0}})
    expect(calls('POST', '/moves')).toHaveLength(0)

    const requests = wx.rec.requests.length
    const from = page.setDataLog.length
    socket.receive({type: 'state', game: onlineState({moves: [[7, 7], [6, 6]], version: 4})})
    expect(page.data.board[6][6]).toBe(2)
    expect(page.data.statusText).toBe('轮到你了（黑）')
    expect(byClass(page, 'board', 'board--disabled')).toHaveLength(0)
    expect(wx.rec.sounds).toEqual(['/sounds/stone-ai.wav'])
    // Only what changed: the cell, the last move, the turn — never the whole board.
    expect(page.setDataLog.slice(from)).toEqual([{
      'board[6][6]': 2, last: 96, moveCount: 2, currentPlayer: 1, statusText: '轮到你了（黑）',
    }])
    // A late message with an older version changes nothing.
    socket.receive({type: 'state', game: onlineState({moves: [[7, 7]], version: 3})})
    expect(page.data.board[6][6]).toBe(2)
    expect(wx.rec.requests.length).toBe(requests)
  })

  test('presence dots follow the presence messages; the opponent gone shows the banner', async () => {
    const {page, socket} = await openLive(onlineState({moves: [[7, 7]]}))
    expect(byClass(page, 'player-bar', 'player-bar__presence--online')).toHaveLength(2)
    expect(byClass(page, 'game', 'game__banner')).toHaveLength(0)
    socket.receive({type: 'presence', black: true, white: false, spectators: 2})
    expect(byClass(page, 'player-bar', 'player-bar__presence--offline')).toHaveLength(1)
    expect(texts(page, 'game', 'game__banner')).toEqual(['对方已离线，回来后可以接着下'])
    expect(texts(page, 'game', 'game__moves')).toEqual(['2 人观战 · 已下 1 手'])
    socket.receive({type: 'presence', black: true, white: true, spectators: 0})
    expect(byClass(page, 'game', 'game__banner')).toHaveLength(0)
  })

  test('a lost socket: the banner, a REST resync, reconnection after 1, 2, 4 … 30 s, and the backoff reset once it works', async () => {
    const state = onlineState({moves: [[7, 7]], version: 2})
    const {page, socket} = await openLive(state)
    jest.useFakeTimers()
    socket.drop()
    expect(page.data.linkDown).toBe(true)
    expect(texts(page, 'game', 'game__banner')).toEqual(['连接中断，正在重连…'])
    const gets = calls('GET', '/games/g1').length
    await jest.advanceTimersByTimeAsync(1) // the resync's request is answered on a timer
    expect(calls('GET', '/games/g1')).toHaveLength(gets + 1)

    const waits = []
    let last = wx.rec.sockets.length
    for (let i = 0; i < 7; i++) {
      let waited = 0
      while (wx.rec.sockets.length === last) {
        await jest.advanceTimersByTimeAsync(100)
        waited += 100
      }
      waits.push(waited)
      last = wx.rec.sockets.length
      wx.rec.sockets[last - 1].drop()
    }
    expect(waits).toEqual([1000, 2000, 4000, 8000, 16000, 30000, 30000])
    // The banner stays up meanwhile, said once.
    expect(page.data.linkDown).toBe(true)

    // The server is back: the next socket delivers the state, the banner goes, the backoff starts again at 1 s.
    while (wx.rec.sockets.length === last) await jest.advanceTimersByTimeAsync(1000)
    const good = wx.rec.sockets[wx.rec.sockets.length - 1]
    good.open()
    good.receive({type: 'state', game: onlineState({moves: [[7, 7], [8, 8]], version: 3})})
    expect(page.data.linkDown).toBe(false)
    expect(page.data.board[8][8]).toBe(2)
    last = wx.rec.sockets.length
    good.drop()
    await jest.advanceTimersByTimeAsync(999)
    expect(wx.rec.sockets).toHaveLength(last)
    await jest.advanceTimersByTimeAsync(1)
    expect(wx.rec.sockets).toHaveLength(last + 1)
    page.instance.onUnload()
  })

  test('back online or shown again: a new socket at once; hidden: socket closed and no timer left', async () => {
    const timed = {initialMs: 300000, incrementMs: 5000}
    const now = Date.now()
    const state = onlineState({moves: [[7, 7]], timeControl: timed, clock: {blackMs: 295000, whiteMs: 300000, running: 2, asOf: new Date(now).toISOString()}})
    const {page, socket} = await openLive(state)
    socket.drop()
    expect(page.data.linkDown).toBe(true)
    const made = wx.rec.sockets.length
    wx.rec.setNetwork(true)
    await socketNo(made + 1)
    expect(wx.rec.sockets).toHaveLength(made + 1)

    page.instance.onHide()
    expect(wx.rec.sockets.every(s => s.closed)).toBe(true)
    expect(page.data.linkDown).toBe(false)
    jest.useFakeTimers()
    // Hidden: no reconnection and no clock ticking.
    expect(jest.getTimerCount()).toBe(0)
    jest.useRealTimers()

    transport.on('GET', '/api/v1/games/g1', () => [200, state])
    page.instance.onShow()
    const again = await socketNo(made + 2)
    expect(again.closed).toBe(false)
    page.instance.onUnload()
    expect(again.closed).toBe(true)
    expect(wx.rec.networkListeners).toHaveLength(0)
  })

  test('a move while the socket is down goes through REST; if its answer is lost, the next state settles it', async () => {
    const {page, socket} = await openLive(onlineState({moves: [[7, 7], [6, 6]], version: 2}))
    socket.drop()
    transport.state.down = true
    await page.instance.onCellTap({detail: {row: 5, col: 5}})
    expect(calls('POST', '/moves').map(c => c.data)).toEqual([{row: 5, col: 5, ply: 2}])
    expect(page.data.unsent).toEqual({row: 5, col: 5, ply: 2, player: 1})
    // Reconnected: the state shows the move landed.
    transport.state.down = false
    wx.rec.setNetwork(true)
    const next = await socketNo(wx.rec.sockets.length + 1)
    next.open()
    next.receive({type: 'state', game: onlineState({moves: [[7, 7], [6, 6], [5, 5]], version: 3})})
    expect(page.data.unsent).toBeNull()
    expect(page.data.pendingStone).toBeNull()
    expect(page.data.board[5][5]).toBe(1)
    page.instance.onUnload()
  })
})

describe('the clocks', () => {
  const T0 = Date.parse('2026-11-30T04:00:00Z')
  const clockState = (overrides = {}) => onlineState(Object.assign({
    moves: [[7, 7]],
    timeControl: {initialMs: 60000, incrementMs: 0},
    clock: {blackMs: 58000, whiteMs: 12400, running: 2, asOf: new Date(T0).toISOString()},
    version: 2,
  }, overrides))

  test('count down once a second with only the changed text, red under 10 s, and stop at the server\'s flag fall', async () => {
    const {page, socket} = await openLive(onlineState({moves: [[7, 7]], version: 1}))
    jest.useFakeTimers({now: T0})
    socket.receive({type: 'state', game: clockState()})
    // White (the opponent, thinking) above the board, black (the viewer) below.
    expect(texts(page, 'player-bar', 'player-bar__clock')).toEqual(['0:13', '0:58'])
    expect(byClass(page, 'player-bar', 'player-bar__clock--low')).toHaveLength(0)
    expect(byClass(page, 'player-bar', 'player-bar__clock--running')).toHaveLength(1)

    const from = page.setDataLog.length
    await jest.advanceTimersByTimeAsync(410)
    expect(page.data.whiteClock).toBe('0:12')
    await jest.advanceTimersByTimeAsync(3000)
    expect(page.data.whiteClock).toBe('0:09')
    expect(page.data.whiteLow).toBe(true)
    expect(byClass(page, 'player-bar', 'player-bar__clock--low')).toHaveLength(1)
    const ticks = page.setDataLog.slice(from)
    // One setData a second, each only the running clock's text (and once its colour).
    expect(ticks).toEqual([{whiteClock: '0:12'}, {whiteClock: '0:11'}, {whiteClock: '0:10'}, {whiteClock: '0:09', whiteLow: true}])
    // Black's clock does not move while white thinks.
    expect(page.data.blackClock).toBe('0:58')

    // The server ends the game on time and pushes it: the clocks stop, the result shows.
    await jest.advanceTimersByTimeAsync(5000)
    socket.receive({type: 'state', game: clockState({
      status: 'black_won', winner: 1, endReason: 'timeout', currentPlayer: null, version: 3,
      clock: {blackMs: 58000, whiteMs: 0, running: null, asOf: new Date(T0 + 12400).toISOString()},
    })})
    expect(page.data.whiteClock).toBe('0:00')
    expect(page.data.statusText).toBe('你赢了！ · 对方超时')
    expect(jest.getTimerCount()).toBe(0)
    // The opponent's flag fell: said in a toast, and the result dialog opens.
    expect(wx.rec.toasts).toEqual(['对方超时'])
    expect(texts(page, 'result-dialog', 'result-dialog__title')).toEqual(['你赢了'])
    // The socket stays open for a rematch offer.
    expect(wx.rec.sockets[0].closed).toBe(false)
    page.instance.onUnload()
    expect(wx.rec.sockets[0].closed).toBe(true)
  })

  test('at 0:00 the page waits for the server, and asks once if no news came', async () => {
    const {page, socket} = await openLive(onlineState({moves: [[7, 7]], version: 1}))
    jest.useFakeTimers({now: T0})
    socket.receive({type: 'state', game: clockState({clock: {blackMs: 58000, whiteMs: 1500, running: 2, asOf: new Date(T0).toISOString()}})})
    await jest.advanceTimersByTimeAsync(1510)
    expect(page.data.whiteClock).toBe('0:00')
    expect(page.data.over).toBe(false) // the page never decides a flag fall itself
    const gets = calls('GET', '/games/g1').length
    await jest.advanceTimersByTimeAsync(FLAG_GRACE_MS + 10)
    expect(calls('GET', '/games/g1')).toHaveLength(gets + 1)
    await jest.advanceTimersByTimeAsync(10000)
    expect(calls('GET', '/games/g1')).toHaveLength(gets + 1)
    page.instance.onUnload()
  })

  test('before black\'s first move no clock runs; an untimed game shows none', async () => {
    const {page} = await openLive(onlineState({
      timeControl: {initialMs: 300000, incrementMs: 5000},
      clock: {blackMs: 300000, whiteMs: 300000, running: null, asOf: new Date(T0).toISOString()},
    }))
    expect(texts(page, 'player-bar', 'player-bar__clock')).toEqual(['5:00', '5:00'])
    expect(byClass(page, 'player-bar', 'player-bar__clock--running')).toHaveLength(0)
    page.instance.onUnload()
    const untimed = await openLive(onlineState())
    expect(byClass(untimed.page, 'player-bar', 'player-bar__clock')).toHaveLength(0)
    untimed.page.instance.onUnload()
  })
})

describe('offers', () => {
  test('请求悔棋 sends the offer; it shows as 已请求… with 撤回; the refusal is said', async () => {
    const {page, socket} = await openLive(onlineState({moves: [[7, 7]], version: 2}))
    expect(buttonTexts(page).slice(0, 3)).toEqual(['请求悔棋', '求和', '认输'])
    const offered = onlineState({moves: [[7, 7]], offers: {takeback: offer(1), draw: null, rematch: null}, version: 3})
    transport.on('POST', '/api/v1/games/g1/takeback', () => [200, offered])
    // It asks first, as 求和 does.
    wx.rec.modalAnswer = false
    await page.instance.onTakeback()
    expect(calls('POST', '/takeback')).toHaveLength(0)
    wx.rec.modalAnswer = true
    await page.instance.onTakeback()
    expect(wx.rec.modals.map(m => m.title)).toEqual(['请求悔棋', '请求悔棋'])
    expect(calls('POST', '/takeback').map(c => c.data)).toEqual([{action: 'offer'}])
    expect(buttonTexts(page)).toContain('已请求…')
    // How long it stands, counted down from the state's expiresInMs.
    expect(texts(page, 'game', 'game__notice-text--offer')).toEqual(['已请求悔棋，等待回应 1:00'])
    expect(buttonTexts(page)).toContain('撤回')
    // The opponent declines.
    socket.receive({type: 'state', game: onlineState({moves: [[7, 7]], version: 4})})
    expect(wx.rec.toasts).toEqual(['对方拒绝了悔棋'])
    expect(buttonTexts(page)).toContain('请求悔棋')
  })

  test('撤回 withdraws one\'s own offer, without a toast', async () => {
    const {page} = await openLive(onlineState({moves: [[7, 7]], offers: {takeback: null, draw: offer(1), rematch: null}, version: 2}))
    expect(buttonTexts(page)).toContain('已求和…')
    transport.on('POST', '/api/v1/games/g1/draw', () => [200, onlineState({moves: [[7, 7]], version: 3})])
    await tap(page, '撤回')
    await answered(page)
    expect(calls('POST', '/draw').map(c => c.data)).toEqual([{action: 'withdraw'}])
    expect(page.data.drawOut).toBe(false)
    expect(wx.rec.toasts).toEqual([])
  })

  test('an incoming offer opens the dialog; 同意 accepts a takeback; a withdrawn one closes it by itself', async () => {
    const before = onlineState({you: 2, moves: [[7, 7], [6, 6], [5, 5]], version: 5})
    const {page, socket} = await openLive(before)
    expect(byClass(page, 'offer-dialog', 'offer-dialog')).toHaveLength(0)

    socket.receive({type: 'state', game: onlineState({you: 2, moves: [[7, 7], [6, 6], [5, 5]], offers: {takeback: offer(1), draw: null, rematch: null}, version: 6})})
    expect(texts(page, 'offer-dialog', 'offer-dialog__title')).toEqual(['对方请求悔棋'])
    // White (the viewer) is to move: the takeback removes black's last move only.
    expect(texts(page, 'offer-dialog', 'offer-dialog__text')).toEqual(['小明 想悔一手棋，同意吗？'])
    // Withdrawn: the dialog goes, and the page says why.
    socket.receive({type: 'state', game: onlineState({you: 2, moves: [[7, 7], [6, 6], [5, 5]], version: 7})})
    expect(byClass(page, 'offer-dialog', 'offer-dialog')).toHaveLength(0)
    expect(wx.rec.toasts).toEqual(['对方撤回了悔棋请求'])

    socket.receive({type: 'state', game: onlineState({you: 2, moves: [[7, 7], [6, 6], [5, 5]], offers: {takeback: offer(1), draw: null, rematch: null}, version: 8})})
    const after = onlineState({you: 2, moves: [[7, 7], [6, 6]], version: 9})
    transport.on('POST', '/api/v1/games/g1/takeback', () => [200, after])
    expect(buttonTexts(page).slice(-2)).toEqual(['拒绝', '同意'])
    await tap(page, '同意')
    await answered(page)
    expect(calls('POST', '/takeback').map(c => c.data)).toEqual([{action: 'accept'}])
    expect(page.data.board[5][5]).toBe(0)
    expect(byClass(page, 'offer-dialog', 'offer-dialog')).toHaveLength(0)
    expect(wx.rec.toasts).toEqual(['对方撤回了悔棋请求'])
  })

  test('a takeback asked by the side to move takes back two moves, and the dialog says so', async () => {
    const {page} = await openLive(onlineState({you: 2, moves: [[7, 7], [6, 6]], offers: {takeback: offer(1), draw: null, rematch: null}, version: 3}))
    expect(texts(page, 'offer-dialog', 'offer-dialog__text')).toEqual(['小明 想悔棋，退回双方各一手，同意吗？'])
  })

  test('求和 asks first; a draw offer answered 拒绝 declines it; a draw accepted ends the game', async () => {
    const {page, socket} = await openLive(onlineState({moves: [[7, 7], [6, 6]], version: 2}))
    wx.rec.modalAnswer = false
    await page.instance.onOfferDraw()
    expect(calls('POST', '/draw')).toHaveLength(0)

    socket.receive({type: 'state', game: onlineState({moves: [[7, 7], [6, 6]], offers: {takeback: null, draw: offer(2), rematch: null}, version: 3})})
    expect(texts(page, 'offer-dialog', 'offer-dialog__title')).toEqual(['对方提出和棋'])
    transport.on('POST', '/api/v1/games/g1/draw', () => [200, onlineState({moves: [[7, 7], [6, 6]], version: 4})])
    await page.instance.onOfferDecline()
    expect(calls('POST', '/draw').map(c => c.data)).toEqual([{action: 'decline'}])
    expect(byClass(page, 'offer-dialog', 'offer-dialog')).toHaveLength(0)
    expect(wx.rec.toasts).toEqual([])

    socket.receive({type: 'state', game: onlineState({moves: [[7, 7], [6, 6]], status: 'draw', endReason: 'agreement', currentPlayer: null, version: 5})})
    expect(page.data.statusText).toBe('和棋 · 双方同意')
    expect(page.data.over).toBe(true)
  })
})
