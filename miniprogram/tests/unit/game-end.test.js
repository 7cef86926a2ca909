/**
 * The end of a game on the game page, against a scripted transport and a
 * scripted socket: the result dialog for every way a game ends (from the
 * player's side, and a spectator's), its chime and toasts, the buttons that
 * replace 悔棋 / 提示 / 认输 once it is over, 再来一局 against the AI, the
 * rematch against a friend (offered, answered, accepted by either side, and
 * the move of both pages to the new game), leaving a game in play, and the
 * offers' countdown and an answer to an offer that is gone (409 NO_OFFER).
 */
const {openPage, loadPage, byClass, textsOf} = require('../support/harness')
const {installScripted} = require('../support/fake-transport')
const {gameState, onlineState, offer} = require('../support/states')
const {flush, until, tapButton: tap, buttonTexts, answered} = require('../support/e2e')
const settings = require('../../utils/settings')
const {SOUNDS} = require('../../utils/feedback')
const {OFFER_GRACE_MS} = require('../../pages/game/online')

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
/** The result dialog as the player reads it: [medal, title, how], or [] when closed. */
const dialog = page => ['mark', 'title', 'how'].flatMap(part => texts(page, 'result-dialog', `result-dialog__${part}`))
const noOffers = {takeback: null, draw: null, rematch: null}

async function socketNo(n) {
  for (let i = 0; i < 50 && wx.rec.sockets.length < n; i++) await flush()
  const task = wx.rec.sockets[n - 1]
  if (!task) throw new Error(`no socket #${n}`)
  return task
}

/** Open the game page on `state` (GET answers it) and its socket, which delivers the state first. */
async function openLive(state) {
  transport.on('GET', '/api/v1/games/g1', () => [200, state])
  const before = wx.rec.sockets.length
  const page = await openPage(gameId, {id: 'g1'})
  const socket = await socketNo(before + 1)
  socket.open()
  socket.receive({type: 'state', game: state})
  return {page, socket}
}

/** A finished online game (white resigned by default), as `you` sees it, with `extra`. */
const finished = (extra = {}) => onlineState(Object.assign({
  moves: [[7, 7], [6, 6]], status: 'black_won', winner: 1, endReason: 'resign', currentPlayer: null, version: 9,
}, extra))

describe('the result dialog', () => {
  // Every end reason the server has (api/rules EndReason). Renju's forbidden points are refused
  // as moves (422 FORBIDDEN_MOVE), never an end: there is no "forbidden" end reason to show.
  const ENDS = [
    // [you, status, winner, endReason, medal, title, how, sound, toast]
    [1, 'black_won', 1, 'five', '胜', '你赢了', '你五连', 'win', ''],
    [2, 'black_won', 1, 'five', '负', '你输了', '对方五连', 'lose', ''],
    [1, 'black_won', 1, 'resign', '胜', '你赢了', '对方认输', 'win', '对方已认输'],
    [2, 'black_won', 1, 'resign', '负', '你已认输', '认输', 'lose', ''],
    [1, 'black_won', 1, 'timeout', '胜', '你赢了', '对方超时', 'win', '对方超时'],
    [2, 'black_won', 1, 'timeout', '负', '你输了', '你超时', 'lose', ''],
    [1, 'draw', null, 'agreement', '和', '和棋', '双方同意和棋', 'draw', ''],
    [2, 'draw', null, 'board_full', '和', '和棋', '棋盘已满', 'draw', ''],
    [1, 'draw', null, 'no_five_possible', '和', '和棋', '双方均无法成五', 'draw', ''],
    [null, 'white_won', 2, 'five', '白', '白方胜', '白方五连', 'win', ''],
    [null, 'black_won', 1, 'resign', '黑', '黑方胜', '白方认输', 'win', ''],
  ]

  test.each(ENDS)('viewer %s, %s by %s: %s %s %s', async (you, status, winner, endReason, mark, title, how, sound, toast) => {
    const {page, socket} = await openLive(onlineState({you, moves: [[7, 7], [6, 6]], version: 2}))
    expect(dialog(page)).toEqual([])
    socket.receive({type: 'state', game: onlineState({you, moves: [[7, 7], [6, 6]], status, winner, endReason, currentPlayer: null, version: 3})})
    expect(dialog(page)).toEqual([mark, title, how])
    expect(wx.rec.sounds.slice(-1)).toEqual([SOUNDS[sound]])
    expect(wx.rec.toasts).toEqual(toast ? [toast] : [])
    // A player may ask for a rematch and start an analysis; a spectator only looks.
    const actions = you ? ['再来一局', '复盘分析', '返回首页'] : ['返回首页']
    expect(texts(page, 'result-dialog', 'btn')).toEqual(actions)
    page.instance.onUnload()
  })

  test('muted, the end makes no sound; ✕ closes the dialog and the board shows the final position', async () => {
    settings.saveSettings({muted: true})
    const {page, socket} = await openLive(onlineState({moves: [[7, 7], [6, 6]], version: 2}))
    socket.receive({type: 'state', game: finished({version: 3})})
    expect(wx.rec.sounds).toEqual([])
    expect(dialog(page)).toEqual(['胜', '你赢了', '对方认输'])
    page.querySelector('#result').querySelector('.result-dialog__close').dispatchEvent('tap')
    await flush()
    expect(dialog(page)).toEqual([])
    expect(page.data.statusText).toBe('你赢了！ · 对方认输')
    page.instance.onUnload()
  })

  test('a game opened finished shows no dialog, and its buttons are what comes next: no dead 悔棋 / 提示 / 认输', async () => {
    const {page} = await openLive(finished())
    expect(dialog(page)).toEqual([])
    expect(buttonTexts(page)).toEqual(['复盘分析', '再来一局', '返回首页', '导出', '设置'])
    // 复盘分析 starts the analysis, then opens the replay asked to show it.
    transport.on('POST', '/api/v1/games/g1/analysis', () => [202, {status: 'running', progress: 0, moveCount: 2, moves: [], outdated: false}])
    await tap(page, '复盘分析')
    await until(() => wx.rec.navigations.length, 'the replay')
    expect(calls('POST', '/analysis')).toHaveLength(1)
    expect(wx.rec.navigations).toEqual([{type: 'navigateTo', url: '/pages/replay/replay?id=g1&analyse=1'}])
    await tap(page, '返回首页')
    expect(wx.rec.navigations[1]).toEqual({type: 'reLaunch', url: '/pages/home/home'})
    page.instance.onUnload()
  })

  test('复盘分析 whose start is refused (429) still opens the replay, which says why on its own 分析', async () => {
    const {page} = await openLive(finished())
    transport.on('POST', '/api/v1/games/g1/analysis', () => [429, {error: {code: 'RATE_LIMITED', message: 'slow down'}}])
    await page.instance.onAnalyse()
    expect(wx.rec.navigations).toEqual([{type: 'navigateTo', url: '/pages/replay/replay?id=g1&analyse=1'}])
    expect(page.data.pending).toBe('')
    page.instance.onUnload()
  })

  test('against the AI: the winning move opens the dialog with the win chime; 悔棋 stays while the server would undo', async () => {
    const ai = {mode: 'ai', ai: {level: 'easy', player: 2}}
    const four = [[7, 3], [8, 3], [7, 4], [8, 4], [7, 5], [8, 5], [7, 6], [8, 6]]
    transport.on('GET', '/api/v1/games/g1', () => [200, gameState(Object.assign({moves: four}, ai))])
    const line = [3, 4, 5, 6, 7].map(col => ({row: 7, col}))
    transport.on('POST', '/api/v1/games/g1/moves', () => [200, gameState(Object.assign({
      moves: four.concat([[7, 7]]), status: 'black_won', winner: 1, endReason: 'five', winLine: line, currentPlayer: null,
    }, ai))])
    const page = await openPage(gameId, {id: 'g1'})
    expect(buttonTexts(page)).toEqual(['悔棋', '提示', '认输', '再来一局', '导出', '复盘', '设置'])
    await page.instance.onCellTap({detail: {row: 7, col: 7}})
    expect(dialog(page)).toEqual(['胜', '你赢了', '你五连'])
    expect(wx.rec.sounds).toEqual([SOUNDS.own, SOUNDS.win])
    expect(buttonTexts(page).slice(0, 6)).toEqual(['复盘分析', '再来一局', '返回首页', '悔棋', '导出', '设置'])
  })

  test('against the AI, 再来一局 (in play or after the end) opens a new game with the same settings', async () => {
    const ai = {mode: 'ai', rule: 'renju', boardSize: 13, ai: {level: 'hard', player: 1}}
    transport.on('GET', '/api/v1/games/g1', () => [200, gameState(Object.assign({moves: [[6, 6]]}, ai))])
    transport.on('POST', '/api/v1/games', () => [201, gameState(Object.assign({id: 'g2', moves: [[6, 6]]}, ai))])
    const page = await openPage(gameId, {id: 'g1'})
    await tap(page, '再来一局')
    await answered(page)
    expect(calls('POST', '/api/v1/games').map(c => c.data)).toEqual([{mode: 'ai', rule: 'renju', boardSize: 13, ai: {level: 'hard', player: 1}}])
    expect(wx.rec.navigations).toEqual([{type: 'redirectTo', url: '/pages/game/game?id=g2'}])
  })
})

describe('the rematch against a friend', () => {
  test('offered: 再来一局 sends the offer, shown as 已邀请… with its time left and 撤回; 撤回 withdraws it', async () => {
    const {page, socket} = await openLive(finished())
    const mine = finished({offers: Object.assign({}, noOffers, {rematch: offer(1, 600000)}), version: 10})
    transport.on('POST', '/api/v1/games/g1/rematch', options => [200, options.data.action === 'offer' ? mine : finished({version: 11})])
    await tap(page, '再来一局')
    await answered(page)
    expect(calls('POST', '/rematch').map(c => c.data)).toEqual([{action: 'offer'}])
    expect(texts(page, 'game', 'game__notice-text--offer')).toEqual(['已邀请再来一局… 10:00'])
    expect(buttonTexts(page)).toEqual(['撤回', '复盘分析', '已邀请…', '返回首页', '导出', '设置'])
    // The socket stays open after the end: the answer comes through it.
    expect(socket.closed).toBe(false)
    await tap(page, '撤回')
    await answered(page)
    expect(calls('POST', '/rematch').map(c => c.data)).toEqual([{action: 'offer'}, {action: 'withdraw'}])
    expect(page.data.rematchOut).toBe(false)
    expect(wx.rec.toasts).toEqual([])
    page.instance.onUnload()
  })

  test('declined: the offerer is told, and may offer again', async () => {
    const {page, socket} = await openLive(finished({offers: Object.assign({}, noOffers, {rematch: offer(1, 600000)})}))
    socket.receive({type: 'state', game: finished({version: 10})})
    expect(wx.rec.toasts).toEqual(['对方拒绝了再来一局'])
    expect(buttonTexts(page)).toContain('再来一局')
    page.instance.onUnload()
  })

  test('accepted by the opponent: the new game\'s id comes over the socket and the page moves to it', async () => {
    const {page, socket} = await openLive(finished({offers: Object.assign({}, noOffers, {rematch: offer(1, 600000)})}))
    socket.receive({type: 'state', game: finished({rematchGameId: 'g2', version: 10})})
    expect(wx.rec.navigations).toEqual([{type: 'redirectTo', url: '/pages/game/game?id=g2'}])
    expect(socket.closed).toBe(true)
    // A second push naming it changes nothing.
    socket.receive({type: 'state', game: finished({rematchGameId: 'g2', version: 11})})
    expect(wx.rec.navigations).toHaveLength(1)
  })

  test('received: 对方想再来一局 with its time left, in place of the result card; 同意 accepts and the page moves to the new game', async () => {
    const {page, socket} = await openLive(onlineState({you: 2, moves: [[7, 7], [6, 6]], version: 8}))
    socket.receive({type: 'state', game: finished({you: 2})})
    expect(dialog(page)).toEqual(['负', '你已认输', '认输'])
    socket.receive({type: 'state', game: finished({you: 2, offers: Object.assign({}, noOffers, {rematch: offer(1, 600000)}), version: 10})})
    expect(dialog(page)).toEqual([])
    expect(texts(page, 'offer-dialog', 'offer-dialog__title')).toEqual(['对方想再来一局'])
    expect(texts(page, 'offer-dialog', 'offer-dialog__left')).toEqual(['还剩 10:00'])
    expect(texts(page, 'offer-dialog', 'offer-dialog__text')).toEqual(['小明 邀你再来一局，交换先后手。'])
    // The dialog is a card at the top: the viewer's own bar under the board is not behind a mask.
    expect(byClass(page, 'offer-dialog', 'offer-dialog__box')).toHaveLength(0)
    transport.on('POST', '/api/v1/games/g1/rematch', () => [200, finished({you: 2, rematchGameId: 'g2', version: 11})])
    await tap(page, '同意')
    await until(() => wx.rec.navigations.length, 'the move to the new game')
    expect(calls('POST', '/rematch').map(c => c.data)).toEqual([{action: 'accept'}])
    expect(wx.rec.navigations).toEqual([{type: 'redirectTo', url: '/pages/game/game?id=g2'}])
    expect(socket.closed).toBe(true)
  })

  test('a player coming back to the finished game sees the pending offer, and 再来一局 accepts it', async () => {
    const {page} = await openLive(finished({you: 2, offers: Object.assign({}, noOffers, {rematch: offer(1, 300000)})}))
    expect(texts(page, 'offer-dialog', 'offer-dialog__title')).toEqual(['对方想再来一局'])
    expect(buttonTexts(page)).toContain('接受邀请')
    transport.on('POST', '/api/v1/games/g1/rematch', () => [200, finished({you: 2, rematchGameId: 'g2', version: 10})])
    await page.instance.onRematch()
    expect(calls('POST', '/rematch').map(c => c.data)).toEqual([{action: 'accept'}])
    expect(wx.rec.navigations).toEqual([{type: 'redirectTo', url: '/pages/game/game?id=g2'}])
  })

  test('a finished game whose rematch was made offers the way to it, and does not move by itself', async () => {
    transport.on('GET', '/api/v1/games/g1', () => [200, finished({rematchGameId: 'g2'})])
    const page = await openPage(gameId, {id: 'g1'})
    expect(wx.rec.navigations).toEqual([])
    // Nothing more can come for it: no socket.
    await flush()
    expect(wx.rec.sockets).toHaveLength(0)
    await tap(page, '进入新对局')
    expect(wx.rec.navigations).toEqual([{type: 'redirectTo', url: '/pages/game/game?id=g2'}])
  })
})

describe('leaving a game in play', () => {
  test('no 再来一局 during play; the back button asks (where the phone can); 离开 offers 暂时离开 and 认输', async () => {
    const {page, socket} = await openLive(onlineState({moves: [[7, 7]], version: 2}))
    expect(buttonTexts(page)).toEqual(['请求悔棋', '求和', '认输', '离开', '导出', '复盘', '设置'])
    expect(wx.rec.leaveAlert).toBe('离开对局？时钟仍在走，对方会等你回来')

    wx.rec.sheetAnswer = null // 取消: stay
    await page.instance.onLeave()
    expect(wx.rec.sheets).toEqual([['暂时离开', '认输']])
    expect(wx.rec.sheetAlerts).toEqual(['离开对局？时钟仍在走'])
    expect(wx.rec.navigations).toEqual([])

    transport.on('POST', '/api/v1/games/g1/resign', () => [200, onlineState({
      moves: [[7, 7]], status: 'white_won', winner: 2, endReason: 'resign', currentPlayer: null, version: 3,
    })])
    wx.rec.sheetAnswer = 1 // 认输: the honest way out
    await page.instance.onLeave()
    expect(calls('POST', '/resign')).toHaveLength(1)
    expect(dialog(page)).toEqual(['负', '你已认输', '认输'])
    expect(page.data.statusText).toBe('你已认输')
    // Over: nothing to ask any more, and 离开 leaves.
    expect(wx.rec.leaveAlert).toBeNull()
    expect(socket.closed).toBe(false)
    page.instance.onUnload()
  })

  test('暂时离开 goes back without resigning, and the back button no longer asks', async () => {
    const {page} = await openLive(onlineState({moves: [[7, 7]], version: 2}))
    wx.rec.sheetAnswer = 0
    await page.instance.onLeave()
    expect(wx.rec.navigations).toEqual([{type: 'navigateBack'}])
    expect(calls('POST', '/resign')).toHaveLength(0)
    expect(wx.rec.leaveAlert).toBeNull()
    page.instance.onUnload()
  })

  test('a spectator is never asked', async () => {
    const {page} = await openLive(onlineState({you: null, moves: [[7, 7]], version: 2}))
    expect(wx.rec.leaveAlert).toBeNull()
    page.instance.onUnload()
  })
})

describe('the offers\' countdown and an offer gone meanwhile', () => {
  test('the dialog counts down from expiresInMs; at 0:00 the page asks for the state once; the lapse is said', async () => {
    const {page, socket} = await openLive(onlineState({you: 2, moves: [[7, 7], [6, 6]], version: 2}))
    jest.useFakeTimers()
    socket.receive({type: 'state', game: onlineState({you: 2, moves: [[7, 7], [6, 6]], offers: Object.assign({}, noOffers, {draw: offer(1, 2500)}), version: 3})})
    expect(texts(page, 'offer-dialog', 'offer-dialog__left')).toEqual(['还剩 0:03'])
    await jest.advanceTimersByTimeAsync(510)
    expect(page.data.offerInLeft).toBe('0:02')
    await jest.advanceTimersByTimeAsync(2000)
    expect(page.data.offerInLeft).toBe('0:00')
    const gets = calls('GET', '/games/g1').length
    transport.on('GET', '/api/v1/games/g1', () => [200, onlineState({you: 2, moves: [[7, 7], [6, 6]], version: 4})])
    await jest.advanceTimersByTimeAsync(OFFER_GRACE_MS + 10)
    expect(calls('GET', '/games/g1')).toHaveLength(gets + 1)
    expect(page.data.offerIn).toBe('')
    expect(wx.rec.toasts).toEqual(['和棋提议已过期'])
    expect(jest.getTimerCount()).toBe(0)
    page.instance.onUnload()
  })

  test('同意 on an offer withdrawn meanwhile (409 NO_OFFER): the dialog closes, a toast says why, the state is fetched', async () => {
    const pending = onlineState({you: 2, moves: [[7, 7], [6, 6], [5, 5]], offers: Object.assign({}, noOffers, {takeback: offer(1)}), version: 3})
    const {page} = await openLive(pending)
    expect(texts(page, 'offer-dialog', 'offer-dialog__title')).toEqual(['对方请求悔棋'])
    transport.on('POST', '/api/v1/games/g1/takeback', () => [409, {error: {code: 'NO_OFFER', message: 'no offer to answer'}}])
    transport.on('GET', '/api/v1/games/g1', () => [200, onlineState({you: 2, moves: [[7, 7], [6, 6], [5, 5]], version: 4})])
    const gets = calls('GET', '/games/g1').length
    await tap(page, '同意')
    await answered(page)
    expect(calls('POST', '/takeback').map(c => c.data)).toEqual([{action: 'accept'}])
    expect(byClass(page, 'offer-dialog', 'offer-dialog')).toHaveLength(0)
    expect(wx.rec.toasts).toEqual(['对方已撤回或已过期'])
    expect(calls('GET', '/games/g1')).toHaveLength(gets + 1)
    expect(page.data.board[5][5]).toBe(1)
    page.instance.onUnload()
  })

  test('one\'s own offer that lapsed is said as such, not as a refusal', async () => {
    const {page, socket} = await openLive(onlineState({moves: [[7, 7], [6, 6]], offers: Object.assign({}, noOffers, {takeback: offer(1, 1000)}), version: 2}))
    expect(texts(page, 'game', 'game__notice-text--offer')).toEqual(['已请求悔棋，等待回应 0:01'])
    jest.useFakeTimers()
    await jest.advanceTimersByTimeAsync(1100)
    socket.receive({type: 'state', game: onlineState({moves: [[7, 7], [6, 6]], version: 3})})
    expect(wx.rec.toasts).toEqual(['悔棋请求已过期'])
    page.instance.onUnload()
  })
})
