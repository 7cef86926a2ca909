/**
 * The game page against a scripted transport (the real server is exercised
 * in tests/e2e): the own stone shown at once and the AI's reply after it, the
 * confirm step on small cells, a move whose answer was lost (重试 with the
 * same ply, or 放弃), the failed-load state, undo that asks or is disabled,
 * forbidden points explained, sound and vibration with their switch, hints.
 */
const {loadPage, openPage, byClass} = require('../support/harness')
const {installScripted} = require('../support/fake-transport')
const {gameState} = require('../support/states')
const settings = require('../../utils/settings')
const text = require('../../utils/text')
const {SOUNDS} = require('../../utils/feedback')

const gameId = loadPage('game')

let transport
let wx

beforeEach(() => {
  ;({transport, wx} = installScripted())
  // One tap, one move, unless a test is about the confirm step.
  settings.saveSettings({confirm: 'off'})
})

const calls = (method, suffix) => transport.calls(method, suffix)

/** Answer moves as the server would for a local game: the stone, then the other side to move. */
function acceptMoves(from) {
  let state = from
  transport.on('POST', '/api/v1/games/g1/moves', options => {
    const {row, col} = options.data
    const moves = state.moveHistory.map(m => [m.row, m.col]).concat([[row, col]])
    state = gameState({mode: state.mode, ai: state.ai, boardSize: state.boardSize, moves})
    return [200, state]
  })
}

describe('a move shows at once', () => {
  test('against the AI: the own stone faded with AI 思考中…, then both stones from the server', async () => {
    const ai = {mode: 'ai', ai: {level: 'master', player: 2}}
    transport.on('GET', '/api/v1/games/g1', () => [200, gameState(ai)])
    transport.on('POST', '/api/v1/games/g1/moves', () => [200, gameState(Object.assign({moves: [[7, 7], [6, 8]]}, ai))])
    const page = await openPage(gameId, {id: 'g1'})
    expect(page.data.statusText).toBe('轮到你了（黑）')

    const tapped = page.instance.onCellTap({detail: {row: 7, col: 7}})
    // Before any answer: the stone is there, pending, and not in the server's board.
    expect(page.data.pendingStone).toEqual({row: 7, col: 7, player: 1})
    expect(page.data.board[7][7]).toBe(0)
    expect(page.data.statusText).toBe('AI 思考中…')
    expect(byClass(page, 'board', 'board__stone--pending')).toHaveLength(1)
    expect(byClass(page, 'player-bar', 'player-bar__caption').map(el => el.textContent)).toEqual(['思考中…'])
    expect(wx.rec.sounds).toEqual([SOUNDS.own])
    expect(wx.rec.vibrations).toBe(1)

    await tapped
    expect(page.data.pendingStone).toBeNull()
    expect(page.data.board[7][7]).toBe(1)
    expect(page.data.board[6][8]).toBe(2)
    expect(page.data.statusText).toBe('轮到你了（黑）')
    expect(byClass(page, 'board', 'board__stone--pending')).toHaveLength(0)
    expect(wx.rec.sounds).toEqual([SOUNDS.own, SOUNDS.ai])
    expect(wx.rec.vibrations).toBe(1)
  })

  test('a refused move takes the stone away again, says why and shows the server state', async () => {
    transport.on('GET', '/api/v1/games/g1', () => [200, gameState({moves: [[7, 7]], status: 'white_won', endReason: 'resign', winner: 2, currentPlayer: null})])
    transport.on('POST', '/api/v1/games/g1/moves', () => [409, {error: {code: 'GAME_OVER', message: 'over'}}])
    const page = await openPage(gameId, {id: 'g1'})
    page.setData({over: false, currentPlayer: 2}) // the page has not heard of the resignation yet
    const before = calls('GET', '/games/g1').length
    await page.instance.onCellTap({detail: {row: 3, col: 3}})
    expect(wx.rec.toasts).toEqual(['对局已结束'])
    expect(page.data.pendingStone).toBeNull()
    expect(calls('GET', '/games/g1')).toHaveLength(before + 1)
    expect(page.data.over).toBe(true)
    expect(page.data.board[3][3]).toBe(0)
  })

  test('a double tap sends one move, with its ply', async () => {
    transport.on('GET', '/api/v1/games/g1', () => [200, gameState()])
    acceptMoves(gameState())
    const page = await openPage(gameId, {id: 'g1'})
    const first = page.instance.onCellTap({detail: {row: 7, col: 7}})
    const second = page.instance.onCellTap({detail: {row: 7, col: 8}})
    expect(page.data.pending).toBe('move')
    await Promise.all([first, second])
    expect(calls('POST', '/moves').map(c => c.data)).toEqual([{row: 7, col: 7, ply: 0}])
    expect(page.data.board[7][7]).toBe(1)
    expect(page.data.pending).toBe('')
  })

  test('a tap on a stone or on a finished game sends nothing', async () => {
    transport.on('GET', '/api/v1/games/g1', () => [200, gameState({moves: [[7, 7]]})])
    const page = await openPage(gameId, {id: 'g1'})
    await page.instance.onCellTap({detail: {row: 7, col: 7}})
    expect(wx.rec.toasts).toEqual(['这里已经有棋子了'])
    page.setData({over: true})
    await page.instance.onCellTap({detail: {row: 0, col: 0}})
    expect(calls('POST', '/moves')).toHaveLength(0)
  })

  test('a forbidden point is explained, not sent', async () => {
    const forbiddenMoves = [{row: 7, col: 7, kind: 'double_four'}]
    transport.on('GET', '/api/v1/games/g1', () => [200, gameState({rule: 'renju', moves: [[7, 5], [0, 0]], forbiddenMoves})])
    const page = await openPage(gameId, {id: 'g1'})
    await page.instance.onCellTap({detail: {row: 7, col: 7}})
    expect(wx.rec.toasts).toEqual(['h8 是黑棋的禁手（四四）'])
    expect(calls('POST', '/moves')).toHaveLength(0)
  })
})

describe('the confirm step', () => {
  test('19×19 at 375 px: the first tap places a ghost, a tap elsewhere moves it, the same point again sends', async () => {
    settings.saveSettings({confirm: 'auto'})
    const start = gameState({boardSize: 19})
    transport.on('GET', '/api/v1/games/g1', () => [200, start])
    acceptMoves(start)
    const page = await openPage(gameId, {id: 'g1'})
    expect(page.data.confirmOn).toBe(true)

    await page.instance.onCellTap({detail: {row: 9, col: 9}})
    expect(page.data.ghost).toEqual({row: 9, col: 9, player: 1})
    expect(page.data.ghostText).toBe('j10：再点一次落子')
    expect(byClass(page, 'board', 'board__stone--ghost')).toHaveLength(1)
    await page.instance.onCellTap({detail: {row: 3, col: 15}})
    expect(page.data.ghost).toEqual({row: 3, col: 15, player: 1})
    expect(calls('POST', '/moves')).toHaveLength(0)

    await page.instance.onCellTap({detail: {row: 3, col: 15}})
    expect(calls('POST', '/moves').map(c => c.data)).toEqual([{row: 3, col: 15, ply: 0}])
    expect(page.data.ghost).toBeNull()
    expect(page.data.board[3][15]).toBe(1)
  })

  test('9×9 at 375 px needs no confirm; the setting turns it on for every size and is remembered', async () => {
    settings.saveSettings({confirm: 'auto'})
    transport.on('GET', '/api/v1/games/g1', () => [200, gameState({boardSize: 9})])
    const page = await openPage(gameId, {id: 'g1'})
    expect(page.data.confirmOn).toBe(false)
    page.instance.onSettingChange({detail: {key: 'confirm', value: 'on'}})
    expect(page.data.confirmOn).toBe(true)
    expect(settings.loadSettings().confirm).toBe('on')
    await page.instance.onCellTap({detail: {row: 4, col: 4}})
    expect(page.data.ghost).toEqual({row: 4, col: 4, player: 1})
    // Turning it off drops the ghost.
    page.instance.onSettingChange({detail: {key: 'confirm', value: 'off'}})
    expect(page.data.ghost).toBeNull()
    const again = await openPage(gameId, {id: 'g1'})
    expect(again.data.confirm).toBe('off')
  })

  test('at 320 px even 15×15 asks for the second tap; 取消 drops the ghost', async () => {
    settings.saveSettings({confirm: 'auto'})
    wx.rec.windowWidth = 320
    transport.on('GET', '/api/v1/games/g1', () => [200, gameState()])
    const page = await openPage(gameId, {id: 'g1'})
    await page.instance.onCellTap({detail: {row: 7, col: 7}})
    expect(page.data.ghost).not.toBeNull()
    page.instance.onCancelGhost()
    expect(page.data.ghost).toBeNull()
    expect(calls('POST', '/moves')).toHaveLength(0)
  })
})

describe('a move whose answer was lost', () => {
  test('stays faded with 重试, which sends the same move with the same ply', async () => {
    transport.on('GET', '/api/v1/games/g1', () => [200, gameState({moves: [[7, 7]]})])
    const page = await openPage(gameId, {id: 'g1'})
    transport.state.down = true
    await page.instance.onCellTap({detail: {row: 6, col: 6}})
    expect(page.data.unsent).toEqual({row: 6, col: 6, ply: 1, player: 2})
    expect(page.data.pendingStone).toEqual({row: 6, col: 6, player: 2, unsent: true})
    expect(byClass(page, 'board', 'board__stone--unsent')).toHaveLength(1)
    expect(byClass(page, 'game', 'game__notice-text--warn')[0].textContent).toBe(text.UNSENT_TEXT)
    // While it waits, other taps and buttons send nothing.
    await page.instance.onCellTap({detail: {row: 1, col: 1}})
    await page.instance.onHint()
    expect(calls('POST', '/moves')).toHaveLength(1)
    expect(calls('GET', '/hint')).toHaveLength(0)

    transport.state.down = false
    acceptMoves(gameState({moves: [[7, 7]]}))
    await page.instance.onRetryMove()
    expect(calls('POST', '/moves').map(c => c.data)).toEqual([{row: 6, col: 6, ply: 1}, {row: 6, col: 6, ply: 1}])
    expect(page.data.unsent).toBeNull()
    expect(page.data.board[6][6]).toBe(2)
    expect(page.data.moveCount).toBe(2)
  })

  test('放弃 shows the server\'s position again and says so', async () => {
    transport.on('GET', '/api/v1/games/g1', () => [200, gameState({moves: [[7, 7]]})])
    const page = await openPage(gameId, {id: 'g1'})
    transport.state.down = true
    await page.instance.onCellTap({detail: {row: 6, col: 6}})
    transport.state.down = false
    // The move had landed after all.
    transport.on('GET', '/api/v1/games/g1', () => [200, gameState({moves: [[7, 7], [6, 6]]})])
    await page.instance.onDiscardMove()
    expect(wx.rec.toasts).toEqual(['网络中断，已恢复到服务器的局面'])
    expect(page.data.unsent).toBeNull()
    expect(page.data.pendingStone).toBeNull()
    expect(page.data.board[6][6]).toBe(2)
  })
})

describe('a first load that fails', () => {
  test('shows what happened with 重试 and 返回首页, and no board or game buttons', async () => {
    transport.state.down = true
    const page = await openPage(gameId, {id: 'g1'})
    expect(page.data.loadError).toBe('无法连接服务器，请检查网络')
    expect(byClass(page, 'load-error', 'load-error__message')[0].textContent).toBe('无法连接服务器，请检查网络')
    expect(byClass(page, 'load-error', 'btn').map(b => b.textContent.trim())).toEqual(['重试', '返回首页'])
    // Nothing of the game itself can be tapped.
    expect(page.querySelectorAll('.btn')).toEqual([])
    expect(page.querySelector('#board')).toBeUndefined()

    transport.state.down = false
    transport.on('GET', '/api/v1/games/g1', () => [200, gameState()])
    await page.instance.onRetryLoad()
    expect(page.data.loadError).toBe('')
    expect(page.data.loaded).toBe(true)
    expect(page.querySelector('#board')).toBeTruthy()
  })

  test('a game that no longer exists offers only 返回首页', async () => {
    transport.on('GET', '/api/v1/games/g1', () => [404, {error: {code: 'GAME_NOT_FOUND', message: 'no'}}])
    const page = await openPage(gameId, {id: 'g1'})
    expect(page.data.loadError).toBe('对局不存在或已删除')
    expect(byClass(page, 'load-error', 'btn').map(b => b.textContent.trim())).toEqual(['返回首页'])
    page.instance.onHome()
    expect(wx.rec.navigations).toEqual([{type: 'reLaunch', url: '/pages/home/home'}])
  })
})

describe('undo', () => {
  test('after a win it asks first; declined, nothing is sent', async () => {
    const line = [3, 4, 5, 6, 7].map(col => ({row: 7, col}))
    const won = gameState({
      moves: [[7, 3], [8, 3], [7, 4], [8, 4], [7, 5], [8, 5], [7, 6], [8, 6], [7, 7]],
      status: 'black_won', winner: 1, endReason: 'five', winLine: line, currentPlayer: null,
    })
    transport.on('GET', '/api/v1/games/g1', () => [200, won])
    transport.on('POST', '/api/v1/games/g1/undo', () => [200, gameState({moves: [[7, 3], [8, 3], [7, 4], [8, 4], [7, 5], [8, 5], [7, 6], [8, 6]]})])
    const page = await openPage(gameId, {id: 'g1'})
    expect(page.data.canUndo).toBe(true)
    wx.rec.modalAnswer = false
    await page.instance.onUndo()
    expect(wx.rec.modals.map(m => m.title)).toEqual(['撤销终局的一手？'])
    expect(calls('POST', '/undo')).toHaveLength(0)
    wx.rec.modalAnswer = true
    await page.instance.onUndo()
    expect(calls('POST', '/undo')).toHaveLength(1)
    expect(page.data.over).toBe(false)
  })

  test('is disabled where the server would refuse it: only the AI\'s stone, or a resigned game', async () => {
    transport.on('GET', '/api/v1/games/g1', () => [200, gameState({mode: 'ai', ai: {level: 'easy', player: 1}, moves: [[7, 7]]})])
    const page = await openPage(gameId, {id: 'g1'})
    expect(page.data.canUndo).toBe(false)
    const undo = page.querySelectorAll('.btn').find(b => b.dom.textContent.trim() === '悔棋')
    expect(undo.dom.className).toContain('btn--disabled')
    await page.instance.onUndo()
    transport.on('GET', '/api/v1/games/g1', () => [200, gameState({moves: [[7, 7], [6, 6]], status: 'black_won', winner: 1, endReason: 'resign', currentPlayer: null})])
    const resigned = await openPage(gameId, {id: 'g1'})
    expect(resigned.data.canUndo).toBe(false)
    await resigned.instance.onUndo()
    expect(calls('POST', '/undo')).toHaveLength(0)
    expect(wx.rec.modals).toEqual([])
  })
})

describe('sound and touch', () => {
  test('the switch mutes both, is remembered, and a page opened later starts muted', async () => {
    transport.on('GET', '/api/v1/games/g1', () => [200, gameState()])
    acceptMoves(gameState())
    const page = await openPage(gameId, {id: 'g1'})
    expect(page.data.muted).toBe(false)
    page.instance.onSettingChange({detail: {key: 'muted', value: true}})
    expect(settings.loadSettings().muted).toBe(true)
    await page.instance.onCellTap({detail: {row: 7, col: 7}})
    expect(page.data.board[7][7]).toBe(1)
    expect(wx.rec.sounds).toEqual([])
    expect(wx.rec.vibrations).toBe(0)
    const later = await openPage(gameId, {id: 'g1'})
    expect(later.data.muted).toBe(true)
    later.instance.onSettingChange({detail: {key: 'muted', value: false}})
    await later.instance.onCellTap({detail: {row: 7, col: 8}})
    expect(wx.rec.sounds).toEqual([SOUNDS.own])
    expect(wx.rec.vibrations).toBe(1)
  })

  test('move numbers can be shown on the stones', async () => {
    transport.on('GET', '/api/v1/games/g1', () => [200, gameState({moves: [[7, 7], [7, 8]]})])
    const page = await openPage(gameId, {id: 'g1'})
    page.instance.onSettingChange({detail: {key: 'numbers', value: true}})
    expect(byClass(page, 'board', 'board__number').map(el => el.textContent)).toEqual(['1', '2'])
    page.instance.onSettingChange({detail: {key: 'numbers', value: false}})
    expect(byClass(page, 'board', 'board__number')).toHaveLength(0)
  })
})

describe('the header and the player bars', () => {
  test('the navigation title is short; rule, size and the moves played are in the header', async () => {
    transport.on('GET', '/api/v1/games/g1', () => [200, gameState({mode: 'ai', ai: {level: 'master', player: 1}, rule: 'renju', moves: [[7, 7]]})])
    const page = await openPage(gameId, {id: 'g1'})
    expect(wx.rec.titles).toEqual(['人机 · 大师'])
    expect(byClass(page, 'game', 'game__details')[0].textContent).toBe('连珠 · 15路')
    expect(byClass(page, 'game', 'game__moves')[0].textContent).toBe('已下 1 手')
    expect(byClass(page, 'player-bar', 'player-bar__name').map(el => el.textContent)).toEqual(['AI · 大师', '你'])
    expect(byClass(page, 'player-bar', 'player-bar--active')).toHaveLength(1)
  })
})

describe('hints', () => {
  test('a hint rings the point and explains it; the next move clears it', async () => {
    transport.on('GET', '/api/v1/games/g1', () => [200, gameState()])
    transport.on('GET', '/api/v1/games/g1/hint', () => [200, {row: 7, col: 7, reason: 'VCF in 7'}])
    acceptMoves(gameState())
    const page = await openPage(gameId, {id: 'g1'})
    await page.instance.onHint()
    expect(page.data.hint).toEqual({row: 7, col: 7})
    expect(page.data.hintText).toBe('提示 h8：连续冲四，7 步取胜')
    expect(byClass(page, 'board', 'board__hint')).toHaveLength(1)
    expect(byClass(page, 'game', 'game__notice-text--hint')).toHaveLength(1)
    await page.instance.onCellTap({detail: {row: 7, col: 7}})
    expect(page.data.hint).toBeNull()
    expect(byClass(page, 'board', 'board__hint')).toHaveLength(0)
  })
})
