/**
 * Helpers: board building and diffing, notation, star points, the board's
 * whole-pixel layout, the status and error texts, the game page's state →
 * data patch, the board's WXS lookups, local settings, move sounds, the
 * clocks of an online game, the news of its offers, the live connection's
 * backoff and the display-name rule.
 */
const fs = require('fs')
const path = require('path')
const board = require('../../utils/board')
const text = require('../../utils/text')
const settings = require('../../utils/settings')
const {createFeedback, SOUNDS} = require('../../utils/feedback')
const {gameView, gamePatch, canUndo, offerNews} = require('../../utils/game-view')
const clock = require('../../utils/clock')
const {EMPTY, BLACK, WHITE} = require('../../utils/game-state')
const {backoffMs} = require('../../services/live')
const {payloadBytes, ROOT} = require('../support/harness')
const {gameState, onlineState} = require('../support/states')
const {install} = require('../support/wx')

function loadWxs(rel) {
  const module = {exports: {}}
  // WXS is an ES5 subset with CommonJS exports: evaluate it as such.
  new Function('module', fs.readFileSync(path.join(ROOT, rel), 'utf8'))(module)
  return module.exports
}

function state(overrides) {
  return gameState(overrides)
}

describe('utils/board', () => {
  test('coord names h8 the centre of 15×15 and a1 the bottom-left corner', () => {
    expect(board.coord(15, 7, 7)).toBe('h8')
    expect(board.coord(15, 14, 0)).toBe('a1')
    expect(board.coord(19, 0, 18)).toBe('s19')
  })

  test('boardFromMoves places the first N moves', () => {
    const moves = [{row: 1, col: 1, player: 1}, {row: 2, col: 2, player: 2}, {row: 3, col: 3, player: 1}]
    const b = board.boardFromMoves(9, moves, 2)
    expect(b[1][1]).toBe(1)
    expect(b[2][2]).toBe(2)
    expect(b[3][3]).toBe(0)
    expect(board.boardFromMoves(9, moves)[3][3]).toBe(1)
  })

  test('diffBoard lists only the changed cells as setData paths', () => {
    const a = board.emptyBoard(15)
    const b = board.emptyBoard(15)
    b[7][8] = 1
    b[0][14] = 2
    expect(board.diffBoard(a, b)).toEqual({'board[7][8]': 1, 'board[0][14]': 2})
    expect(board.diffBoard(b, a, 'grid')).toEqual({'grid[7][8]': 0, 'grid[0][14]': 0})
    expect(board.diffBoard(a, a)).toEqual({})
  })

  test('numbersFromMoves numbers the stones from 1, up to a step', () => {
    const moves = [{row: 1, col: 1, player: 1}, {row: 2, col: 2, player: 2}, {row: 3, col: 3, player: 1}]
    const n = board.numbersFromMoves(9, moves, 2)
    expect([n[1][1], n[2][2], n[3][3]]).toEqual([1, 2, 0])
    expect(board.numbersFromMoves(9, moves)[3][3]).toBe(3)
  })

  test('pointsKey writes points as cell indices, and the board finds them', () => {
    const line = [0, 1, 2, 3, 4].map(c => ({row: 7, col: 3 + c}))
    expect(board.pointsKey(15, line)).toBe('108 109 110 111 112')
    expect(board.pointsKey(15, null)).toBe('')
    expect(board.columnLetters(9).join('')).toBe('abcdefghi')
  })

  test.each([320, 360, 375, 390, 414, 430])('at %i px every size fits in whole pixels with even lines', width => {
    for (let n = 9; n <= 19; n++) {
      const m = board.boardMetrics(width, n)
      for (const v of [m.cell, m.mid, m.gutter, m.font, m.width, m.left]) expect(Number.isInteger(v)).toBe(true)
      // The wood and at least 6 px of screen on each side.
      expect(m.left).toBeGreaterThanOrEqual(6)
      expect(m.left + m.width).toBeLessThanOrEqual(width - 6)
      // Labels are readable, and the grid line sits in the middle of its cell.
      expect(m.font).toBeGreaterThanOrEqual(10)
      expect(m.mid * 2 === m.cell || m.mid * 2 + 1 === m.cell).toBe(true)
      expect(m.cell).toBeGreaterThanOrEqual(14)
    }
  })

  test('the confirm step turns itself on below 30 px cells: 19×19 at 320 and 375 px, not 9×9', () => {
    const auto = (w, n) => settings.confirmNeeded('auto', board.boardMetrics(w, n).cell, board.CONFIRM_BELOW_PX)
    expect(board.boardMetrics(320, 19).cell).toBe(15)
    expect(board.boardMetrics(375, 19).cell).toBe(18)
    expect(auto(320, 19)).toBe(true)
    expect(auto(375, 19)).toBe(true)
    expect(auto(375, 9)).toBe(false)
    expect(settings.confirmNeeded('on', 40, 30)).toBe(true)
    expect(settings.confirmNeeded('off', 10, 30)).toBe(false)
  })

  test('star points sit symmetrically on the board', () => {
    expect(board.starPoints(15)).toEqual(expect.arrayContaining([{row: 3, col: 3}, {row: 7, col: 7}, {row: 11, col: 11}]))
    expect(board.starPoints(9)).toEqual(expect.arrayContaining([{row: 2, col: 2}, {row: 4, col: 4}, {row: 6, col: 6}]))
    expect(board.starPoints(19)).toHaveLength(9)
    expect(board.starPoints(10)).toHaveLength(4)
  })
})

describe('utils/text', () => {
  test('status line for each kind of game', () => {
    expect(text.statusText(state({}))).toBe('黑方落子')
    expect(text.statusText(state({currentPlayer: 2}))).toBe('白方落子')
    const ai = state({mode: 'ai', ai: {level: 'hard', player: 2}})
    expect(text.statusText(ai)).toBe('轮到你了（黑）')
    expect(text.statusText(ai, true)).toBe('AI 思考中…')
  })

  test('results name the winner and the reason', () => {
    expect(text.resultText(state({status: 'black_won', winner: 1, endReason: 'five'}))).toBe('黑方胜 · 五连')
    expect(text.resultText(state({status: 'white_won', winner: 2, endReason: 'resign'}))).toBe('白方胜 · 黑方认输')
    expect(text.resultText(state({status: 'draw', endReason: 'board_full'}))).toBe('和棋 · 棋盘已满')
    expect(text.resultText(state({status: 'draw', endReason: 'no_five_possible'}))).toBe('和棋 · 双方均无法成五')
    const ai = {mode: 'ai', ai: {level: 'easy', player: 2}}
    expect(text.resultText(state(Object.assign({status: 'black_won', winner: 1, endReason: 'five'}, ai)))).toBe('你赢了！ · 五连')
    expect(text.resultText(state(Object.assign({status: 'black_won', winner: 1, endReason: 'resign'}, ai)))).toBe('你赢了！ · AI认输')
    expect(text.resultText(state(Object.assign({status: 'white_won', winner: 2, endReason: 'resign'}, ai)))).toBe('你已认输')
  })

  test('error toasts in Chinese, forbidden moves with their kind', () => {
    expect(text.errorText({code: 'CELL_OCCUPIED'})).toBe('这里已经有棋子了')
    expect(text.errorText({code: 'FORBIDDEN_MOVE', details: {kind: 'double_four'}})).toBe('禁手：四四')
    expect(text.errorText({code: 'INVALID_RECORD', details: {moveIndex: 4}})).toBe('棋谱无效（第 5 手）')
    expect(text.errorText({code: 'NETWORK_ERROR', status: 0})).toBe('无法连接服务器，请检查网络')
    expect(text.errorText({code: 'SOMETHING_NEW', status: 500})).toBe('服务器出错了，请稍后再试')
    expect(text.errorText({code: 'SOMETHING_NEW', status: 418})).toBe('出错了，请重试')
  })

  test('hint reasons in words, unknown ones as they come', () => {
    expect(text.hintReasonText('VCF in 7')).toBe('连续冲四，7 步取胜')
    expect(text.hintReasonText('VCT in 11')).toBe('连续进攻，11 步取胜')
    expect(text.hintReasonText('blocks an open four')).toBe('挡住对方的活四')
    expect(text.hintReasonText('something new')).toBe('something new')
  })

  test('game descriptions: a short title for the navigation bar, the details for the header', () => {
    const master = {mode: 'ai', ai: {level: 'master', player: 1}, rule: 'renju', boardSize: 15}
    expect(text.describeGame(master)).toBe('人机 · 大师 · 连珠 · 15路')
    expect(text.shortTitle(master)).toBe('人机 · 大师')
    expect(text.gameDetails(master)).toBe('连珠 · 15路')
    expect(text.describeGame({mode: 'local', rule: 'standard', boardSize: 9})).toBe('双人 · 标准 · 9路')
    expect(text.playerNames(master)).toEqual({black: 'AI · 大师', white: '你'})
    expect(text.playerNames({mode: 'local'})).toEqual({black: '黑方', white: '白方'})
  })

  test('one wording for the moves on the board, and forbidden points explained', () => {
    expect(text.movesText(12)).toBe('已下 12 手')
    expect(text.forbiddenText('h8', 'double_three')).toBe('h8 是黑棋的禁手（三三）')
    expect(text.forbiddenText('h8', 'overline')).toBe('h8 是黑棋的禁手（长连）')
  })
})

describe('utils/game-view', () => {
  test('a move becomes a patch of changed cells well under 200 bytes', () => {
    const before = state({})
    const data = gameView(before)
    const after = JSON.parse(JSON.stringify(before))
    after.board[7][7] = 1
    after.board[7][8] = 2
    Object.assign(after, {moveCount: 2, currentPlayer: 1, lastMove: {row: 7, col: 8, player: 2}})
    data.moveCount = 1 // the page showed one move before
    const patch = gamePatch(data, after)
    expect(patch['board[7][7]']).toBe(1)
    expect(patch['board[7][8]']).toBe(2)
    expect(patch.board).toBeUndefined()
    expect(patch.title).toBeUndefined()
    expect(payloadBytes(patch)).toBeLessThanOrEqual(200)
    expect(payloadBytes(patch) * 3).toBeLessThan(payloadBytes({board: after.board}))
  })

  test('a different size sends the whole board', () => {
    const data = gameView(state({}))
    const small = state({boardSize: 9, board: board.emptyBoard(9)})
    expect(gamePatch(data, small).board).toHaveLength(9)
  })

  test('the winning move is one small patch: the stone, the result and the line as cell indices', () => {
    // Black has four on row 7 (d8–g8); white four on row 8; black plays h8 and wins.
    const before = state({moves: [[7, 3], [8, 3], [7, 4], [8, 4], [7, 5], [8, 5], [7, 6], [8, 6]]})
    const data = gameView(before)
    const line = [3, 4, 5, 6, 7].map(col => ({row: 7, col}))
    const won = state({
      moves: [[7, 3], [8, 3], [7, 4], [8, 4], [7, 5], [8, 5], [7, 6], [8, 6], [7, 7]],
      status: 'black_won', winner: 1, endReason: 'five', winLine: line, currentPlayer: null,
    })
    const patch = gamePatch(data, won)
    expect(patch.over).toBe(true)
    expect(patch.winLine).toBe('108 109 110 111 112')
    expect(patch.statusText).toBe('黑方胜 · 五连')
    expect(patch['board[7][7]']).toBe(1)
    // Issue 10 measured 272 bytes with the line as objects.
    expect(payloadBytes(patch)).toBeLessThanOrEqual(200)
  })

  test('undo is offered only where the server would take a move back', () => {
    expect(canUndo(state({}))).toBe(false)
    expect(canUndo(state({moves: [[7, 7]]}))).toBe(true)
    expect(canUndo(state({moves: [[7, 7], [7, 8]], status: 'white_won', endReason: 'resign', winner: 2}))).toBe(false)
    // Against the AI: not while only the AI's opening stone is on the board.
    const aiBlack = {mode: 'ai', ai: {level: 'easy', player: 1}}
    expect(canUndo(state(Object.assign({moves: [[7, 7]]}, aiBlack)))).toBe(false)
    expect(canUndo(state(Object.assign({moves: [[7, 7], [6, 6]]}, aiBlack)))).toBe(true)
    // A game won by five can be reopened (the page asks first).
    expect(canUndo(state({moves: [[7, 7], [6, 6]], status: 'black_won', endReason: 'five', winner: 1}))).toBe(true)
  })

  test('move numbers are patched cell by cell when shown', () => {
    const before = state({moves: [[7, 7]]})
    const data = gameView(before, {numbers: true})
    expect(data.numbers[7][7]).toBe(1)
    const patch = gamePatch(data, state({moves: [[7, 7], [7, 8]]}), {numbers: true})
    expect(patch['numbers[7][8]']).toBe(2)
    expect(patch.numbers).toBeUndefined()
  })
})

describe('components/board/board.wxs', () => {
  const wxs = loadWxs('components/board/board.wxs')
  test('aria labels name the point and what stands there', () => {
    expect(wxs.label(15, 7, 7, EMPTY, [], BLACK)).toBe('h8')
    expect(wxs.label(15, 7, 7, BLACK, [], BLACK)).toBe('h8 黑子')
    expect(wxs.label(15, 0, 0, WHITE, [], BLACK)).toBe('a15 白子')
    expect(wxs.label(15, 6, 8, EMPTY, [{row: 6, col: 8, kind: 'overline'}], BLACK)).toBe('i9 禁手长连')
    expect(wxs.label(15, 6, 8, EMPTY, [{row: 6, col: 8, kind: 'double_three'}], BLACK)).toBe('i9 禁手三三')
  })

  test('point keys, numbers and the crosshair', () => {
    expect(wxs.inKey('108 109 110', 15, 7, 4)).toBe(true)
    expect(wxs.inKey('108 109 110', 15, 7, 6)).toBe(false)
    expect(wxs.inKey('1 11', 15, 0, 10)).toBe(false) // 10 is not 1 or 11
    expect(wxs.inKey('', 15, 0, 0)).toBe(false)
    expect(wxs.number([], 1, 1)).toBe(0)
    expect(wxs.cross({row: 2, col: 3}, 2, 9)).toBe(' board__cell--cross-row')
    expect(wxs.cross({row: 2, col: 3}, 2, 3)).toBe(' board__cell--cross-row board__cell--cross-col')
    expect(wxs.cross(null, 2, 3)).toBe('')
  })

  test('lookups find points in lists and tolerate null', () => {
    expect(wxs.has([{row: 1, col: 2}], 1, 2)).toBe(true)
    expect(wxs.has(null, 1, 2)).toBe(false)
    expect(wxs.isAt({row: 3, col: 4}, 3, 4)).toBe(true)
    expect(wxs.isAt(null, 3, 4)).toBe(false)
    expect(wxs.forbiddenKind([{row: 1, col: 1, kind: 'double_four'}], 1, 1)).toBe('double_four')
  })
})

describe('utils/clock', () => {
  const T0 = Date.parse('2026-11-30T04:00:00Z')
  const c = {blackMs: 65000, whiteMs: 9500, running: 1, asOf: '2026-11-30T04:00:00Z'}

  test('the running clock counts from asOf; the other stands still; never below 0', () => {
    expect(clock.remainingMs(c, 1, T0 + 5000)).toBe(60000)
    expect(clock.remainingMs(c, 2, T0 + 5000)).toBe(9500)
    expect(clock.remainingMs(c, 1, T0 + 70000)).toBe(0)
    // A state stamped ahead of the phone's clock does not add time.
    expect(clock.remainingMs(c, 1, T0 - 3000)).toBe(65000)
    expect(clock.remainingMs(Object.assign({}, c, {asOf: T0}), 1, T0 + 1000)).toBe(64000)
  })

  test('reads in whole seconds rounded up, with hours when there are some', () => {
    expect(['0', '1', '999', '1000', '1001', '59999', '60000', '3599000', '3600000', '86400000'].map(ms => clock.clockText(Number(ms))))
      .toEqual(['0:00', '0:01', '0:01', '0:01', '0:02', '1:00', '1:00', '59:59', '1:00:00', '24:00:00'])
  })

  test('the view: texts, red from 0:09 down, the running side; nothing for an untimed game', () => {
    expect(clock.clockView(c, T0 + 500)).toEqual({blackClock: '1:05', whiteClock: '0:10', blackLow: false, whiteLow: false, clockRunning: 1})
    expect(clock.clockView(Object.assign({}, c, {whiteMs: 9000}), T0)).toEqual(expect.objectContaining({whiteClock: '0:09', whiteLow: true}))
    expect(clock.clockView(null, T0)).toEqual({blackClock: '', whiteClock: '', blackLow: false, whiteLow: false, clockRunning: 0})
  })

  test('the next tick lands just past the next whole second; none when stopped or out', () => {
    expect(clock.nextChangeIn(c, T0)).toBe(1005)
    expect(clock.nextChangeIn(c, T0 + 300)).toBe(705)
    expect(clock.nextChangeIn(Object.assign({}, c, {blackMs: 1200}), T0)).toBe(205)
    expect(clock.nextChangeIn(Object.assign({}, c, {running: null}), T0)).toBeNull()
    expect(clock.nextChangeIn(c, T0 + 64999)).toBe(6)
    expect(clock.nextChangeIn(c, T0 + 65000)).toBeNull()
  })

  test('time controls in words', () => {
    expect(text.TIME_CONTROLS.map(t => clock.timeControlText(t.control))).toEqual(['不限时', '5分钟+5秒', '10分钟+10秒', '每方20分钟'])
    expect(clock.timeControlText({initialMs: 2000, incrementMs: 0})).toBe('每方2秒')
  })
})

describe('online games in words and in the view', () => {
  test('titles, names, status lines and results as the viewer sees them', () => {
    const g = onlineState({moves: [[7, 7]]})
    expect(text.shortTitle(g)).toBe('好友对战')
    expect(text.shortTitle(Object.assign({}, g, {you: null}))).toBe('观战')
    expect(text.gameDetails(Object.assign({}, g, {timeControl: {initialMs: 300000, incrementMs: 5000}}))).toBe('无禁手 · 15路 · 5分钟+5秒')
    expect(text.playerNames(onlineState({status: 'waiting'}))).toEqual({black: '小明', white: '等待加入'})
    expect(text.statusText(onlineState({status: 'waiting'}))).toBe('等待好友加入…')
    expect(text.statusText(g)).toBe('等待对方落子…')
    expect(text.statusText(Object.assign({}, g, {you: 2}))).toBe('轮到你了（白）')
    expect(text.statusText(Object.assign({}, g, {you: null}))).toBe('观战中 · 白方落子')
    const over = (winner, endReason, you) => text.resultText(onlineState({
      status: winner === 1 ? 'black_won' : 'white_won', winner, endReason, you, currentPlayer: null,
    }))
    expect(over(1, 'resign', 1)).toBe('你赢了！ · 对方认输')
    expect(over(1, 'resign', 2)).toBe('你已认输')
    expect(over(2, 'timeout', 1)).toBe('你输了 · 超时')
    expect(over(2, 'timeout', 2)).toBe('你赢了！ · 对方超时')
    expect(over(2, 'timeout', null)).toBe('白方胜 · 黑方超时')
    expect(over(1, 'five', 2)).toBe('你输了 · 五连')
    expect(text.resultText(onlineState({status: 'draw', endReason: 'agreement', currentPlayer: null}))).toBe('和棋 · 双方同意')
    expect(text.shareTitle(Object.assign({}, g, {rule: 'renju', timeControl: {initialMs: 1200000, incrementMs: 0}}), '')).toBe('来下一盘五子棋 · 连珠 · 20分')
  })

  test('the view: seat, presence and offers as the viewer must treat them; no plain undo', () => {
    const g = onlineState({you: 2, moves: [[7, 7], [6, 6]], offers: {takeback: {by: 1, expiresInMs: 60000}, draw: {by: 2, expiresInMs: 50000}, rematch: null}})
    g.players.black.online = false
    const v = gameView(g)
    expect(v).toEqual(expect.objectContaining({
      online: true, you: 2, waiting: false, blackOnline: false, whiteOnline: true,
      offerIn: 'takeback', takebackOut: false, drawOut: true, canTakeback: false, canDraw: false, canUndo: false,
      blackName: '小明', whiteName: '小红', rematchOut: false, rematchGameId: '', rematchText: '再来一局',
    }))
    // After the end: the opponent's rematch offer to answer, or one's own waiting; once made, the new game.
    const over = extra => gameView(onlineState(Object.assign({you: 2, moves: [[7, 7]], status: 'black_won', winner: 1, endReason: 'resign', currentPlayer: null}, extra)))
    expect(over({offers: {takeback: null, draw: null, rematch: {by: 1, expiresInMs: 600000}}})).toEqual(expect.objectContaining({offerIn: 'rematch', rematchOut: false, rematchText: '接受邀请'}))
    expect(over({offers: {takeback: null, draw: null, rematch: {by: 2, expiresInMs: 600000}}})).toEqual(expect.objectContaining({offerIn: '', rematchOut: true, rematchText: '已邀请…'}))
    expect(over({rematchGameId: 'g2', offers: {takeback: null, draw: null, rematch: null}})).toEqual(expect.objectContaining({offerIn: '', rematchGameId: 'g2', rematchText: '进入新对局'}))
    // A spectator answers nothing.
    expect(over({you: null, offers: {takeback: null, draw: null, rematch: {by: 1, expiresInMs: 600000}}}).offerIn).toBe('')
    const fresh = gameView(onlineState({you: 1}))
    expect(fresh.canTakeback).toBe(false) // nothing of one's own to take back
    expect(fresh.canDraw).toBe(true)
    expect(gameView(onlineState({status: 'waiting'})).over).toBe(false)
    // A local game has none of it.
    expect(gameView(state({})).online).toBeUndefined()
  })

  test('offer news: the answer to one\'s own offer, the opponent withdrawing; nothing when a move or the end cleared it', () => {
    const by = (who, ms = 60000) => (who ? {by: who, expiresInMs: ms} : null)
    const before = (takeback, draw) => onlineState({moves: [[7, 7], [6, 6], [5, 5]], offers: {takeback: by(takeback), draw: by(draw), rematch: null}, version: 1})
    const after = (moves, extra) => onlineState(Object.assign({moves, version: 2}, extra))
    const three = [[7, 7], [6, 6], [5, 5]]
    expect(offerNews(before(1, 0), after(three.slice(0, 2)))).toBe('对方同意了悔棋')
    expect(offerNews(before(1, 0), after(three))).toBe('对方拒绝了悔棋')
    expect(offerNews(before(0, 1), after(three))).toBe('对方拒绝了和棋')
    expect(offerNews(before(2, 0), after(three))).toBe('对方撤回了悔棋请求')
    expect(offerNews(before(0, 2), after(three))).toBe('对方撤回了和棋提议')
    expect(offerNews(before(0, 1), after(three.concat([[4, 4]])))).toBe('')
    expect(offerNews(before(0, 1), after(three, {status: 'draw', endReason: 'agreement'}))).toBe('')
    expect(offerNews(before(0, 1), after(three, {you: null}))).toBe('')
    // Gone once its time was up (60 s after it arrived, give or take a second): it lapsed, nobody answered.
    expect(offerNews(before(1, 0), after(three), 59500)).toBe('悔棋请求已过期')
    expect(offerNews(before(0, 2), after(three), 60000)).toBe('和棋提议已过期')
    expect(offerNews(before(0, 1), after(three), 30000)).toBe('对方拒绝了和棋')
  })

  test('rematch news: declined, withdrawn or lapsed; nothing once the rematch is made', () => {
    const over = {moves: [[7, 7]], status: 'black_won', winner: 1, endReason: 'resign', currentPlayer: null}
    const with_ = (rematch, extra) => onlineState(Object.assign({}, over, {offers: {takeback: null, draw: null, rematch}}, extra))
    expect(offerNews(with_({by: 1, expiresInMs: 600000}), with_(null))).toBe('对方拒绝了再来一局')
    expect(offerNews(with_({by: 2, expiresInMs: 600000}), with_(null))).toBe('对方撤回了再来一局的邀请')
    expect(offerNews(with_({by: 1, expiresInMs: 2000}), with_(null), 1500)).toBe('再来一局的邀请已过期')
    expect(offerNews(with_({by: 1, expiresInMs: 600000}), with_(null, {rematchGameId: 'g2'}))).toBe('')
  })

  test('the result dialog from the viewer\'s side, for every way a game ends', () => {
    const end = (status, winner, endReason, extra) => text.resultView(onlineState(Object.assign({status, winner, endReason, currentPlayer: null}, extra)))
    const won = (winner, endReason, you) => end(winner === 1 ? 'black_won' : 'white_won', winner, endReason, {you})
    expect(won(1, 'five', 1)).toEqual({outcome: 'win', mark: '胜', title: '你赢了', how: '你五连'})
    expect(won(1, 'five', 2)).toEqual({outcome: 'loss', mark: '负', title: '你输了', how: '对方五连'})
    expect(won(2, 'resign', 2)).toEqual({outcome: 'win', mark: '胜', title: '你赢了', how: '对方认输'})
    expect(won(2, 'resign', 1)).toEqual({outcome: 'loss', mark: '负', title: '你已认输', how: '认输'})
    expect(won(1, 'timeout', 2)).toEqual({outcome: 'loss', mark: '负', title: '你输了', how: '你超时'})
    expect(won(1, 'timeout', 1)).toEqual({outcome: 'win', mark: '胜', title: '你赢了', how: '对方超时'})
    // A spectator sees who won.
    expect(won(2, 'five', null)).toEqual({outcome: 'white', mark: '白', title: '白方胜', how: '白方五连'})
    expect(won(1, 'resign', null)).toEqual({outcome: 'black', mark: '黑', title: '黑方胜', how: '白方认输'})
    expect(end('draw', null, 'agreement', {you: 1})).toEqual({outcome: 'draw', mark: '和', title: '和棋', how: '双方同意和棋'})
    expect(end('draw', null, 'board_full', {you: null})).toEqual({outcome: 'draw', mark: '和', title: '和棋', how: '棋盘已满'})
    expect(end('draw', null, 'no_five_possible', {you: 2})).toEqual({outcome: 'draw', mark: '和', title: '和棋', how: '双方均无法成五'})
    // Against the AI the player has a side; two on one phone nobody has.
    const ai = {mode: 'ai', ai: {level: 'easy', player: 2}}
    expect(text.resultView(state(Object.assign({status: 'white_won', winner: 2, endReason: 'five'}, ai)))).toEqual({outcome: 'loss', mark: '负', title: '你输了', how: 'AI五连'})
    expect(text.resultView(state({status: 'black_won', winner: 1, endReason: 'five'}))).toEqual({outcome: 'black', mark: '黑', title: '黑方胜', how: '黑方五连'})
    expect(text.resultView(state({}))).toBeNull()
    // The toast for the opponent ending it off the board, in the viewer's favour only.
    expect(text.opponentEndedText(onlineState({status: 'white_won', winner: 2, endReason: 'resign', you: 2}))).toBe('对方已认输')
    expect(text.opponentEndedText(onlineState({status: 'white_won', winner: 2, endReason: 'timeout', you: 2}))).toBe('对方超时')
    expect(text.opponentEndedText(onlineState({status: 'white_won', winner: 2, endReason: 'resign', you: 1}))).toBe('')
    expect(text.opponentEndedText(onlineState({status: 'white_won', winner: 2, endReason: 'five', you: 2}))).toBe('')
  })

  test('the display-name rule: 1–16 characters after trimming, no control characters', () => {
    expect(text.nameProblem('小红')).toBe('')
    expect(text.nameProblem(' 一二三四五六七八九十一二三四五六 ')).toBe('')
    expect(text.nameProblem('')).toBe('请输入昵称')
    expect(text.nameProblem('  ')).toBe('请输入昵称')
    expect(text.nameProblem('一二三四五六七八九十一二三四五六七')).toBe('昵称最多 16 个字')
    expect(text.nameProblem('a\u0007b')).toBe('昵称不能含有控制字符')
    // Characters, not UTF-16 units: 16 emoji are 16 characters.
    expect(text.nameProblem('😀'.repeat(16))).toBe('')
  })
})

describe('services/live', () => {
  test('the reconnection backoff: 1, 2, 4 … 30 s', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 20].map(backoffMs)).toEqual([1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000])
  })
})

describe('utils/settings', () => {
  let wx
  beforeEach(() => {
    wx = install(() => {})
  })

  test('defaults, then what was saved, field by field; unknown values fall back', () => {
    expect(settings.loadSettings()).toEqual({confirm: 'auto', numbers: false, muted: false, nameAsked: false, rulesSeen: false})
    settings.saveSettings({muted: true})
    settings.saveSettings({confirm: 'off'})
    settings.saveSettings({nameAsked: true})
    settings.saveSettings({rulesSeen: true})
    expect(settings.loadSettings()).toEqual({confirm: 'off', numbers: false, muted: true, nameAsked: true, rulesSeen: true})
    wx.setStorageSync(settings.KEY, {confirm: 'sometimes', numbers: 'yes', muted: true, nameAsked: 1, rulesSeen: 'no'})
    expect(settings.loadSettings()).toEqual({confirm: 'auto', numbers: false, muted: true, nameAsked: false, rulesSeen: false})
  })
})

describe('utils/feedback and the bundled sounds', () => {
  let wx
  beforeEach(() => {
    wx = install(() => {})
  })

  test('the player\'s stone clicks and buzzes, the AI\'s only clicks, the end chimes by its outcome; muted, none', () => {
    const fb = createFeedback(false)
    fb.ownStone()
    fb.aiStone()
    expect(wx.rec.sounds).toEqual([SOUNDS.own, SOUNDS.ai])
    expect(wx.rec.vibrations).toBe(1)
    fb.end('win')
    fb.end('loss')
    fb.end('draw')
    fb.end('white') // a game the viewer had no side in
    expect(wx.rec.sounds.slice(2)).toEqual([SOUNDS.win, SOUNDS.lose, SOUNDS.draw, SOUNDS.win])
    fb.setMuted(true)
    fb.ownStone()
    fb.aiStone()
    fb.end('win')
    expect(wx.rec.sounds).toHaveLength(6)
    expect(wx.rec.vibrations).toBe(1)
    fb.destroy()
  })

  test('the sounds are small PCM WAV files, under 30 KB in all', () => {
    let total = 0
    for (const src of Object.values(SOUNDS)) {
      const bytes = fs.readFileSync(path.join(ROOT, src))
      total += bytes.length
      expect(bytes.toString('ascii', 0, 4)).toBe('RIFF')
      expect(bytes.toString('ascii', 8, 12)).toBe('WAVE')
      expect(bytes.readUInt16LE(20)).toBe(1) // PCM
      expect(bytes.readUInt32LE(40)).toBe(bytes.length - 44) // the data chunk is the rest
    }
    expect(total).toBeLessThan(30 * 1024)
  })
})
