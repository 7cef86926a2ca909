/**
 * Pure helpers: board building and diffing, notation, star points, the
 * status and error texts, the game page's state → data patch, and the
 * board's WXS lookups.
 */
const fs = require('fs')
const path = require('path')
const board = require('../../utils/board')
const text = require('../../utils/text')
const {gameView, gamePatch} = require('../../utils/game-view')
const {payloadBytes, ROOT} = require('../support/harness')

function loadWxs(rel) {
  const module = {exports: {}}
  // WXS is an ES5 subset with CommonJS exports: evaluate it as such.
  new Function('module', fs.readFileSync(path.join(ROOT, rel), 'utf8'))(module)
  return module.exports
}

function state(overrides) {
  const n = 15
  return Object.assign({
    id: 'g1', mode: 'local', rule: 'freestyle', boardSize: n,
    board: board.emptyBoard(n), moveHistory: [], moveCount: 0, currentPlayer: 1,
    status: 'playing', winner: null, endReason: null, winLine: null, lastMove: null,
    forbiddenMoves: [], ai: null,
  }, overrides)
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
    expect(text.resultText(state(Object.assign({status: 'white_won', winner: 2, endReason: 'resign'}, ai)))).toBe('AI 获胜 · 你认输')
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

  test('game descriptions', () => {
    expect(text.describeGame({mode: 'ai', ai: {level: 'master', player: 1}, rule: 'renju', boardSize: 15})).toBe('人机 · 大师 · 连珠 · 15路')
    expect(text.describeGame({mode: 'local', rule: 'standard', boardSize: 9})).toBe('双人 · 标准 · 9路')
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

  test('the end of a game sends the result and the winning line', () => {
    const data = gameView(state({}))
    const line = [0, 1, 2, 3, 4].map(c => ({row: 0, col: c}))
    const over = state({status: 'black_won', winner: 1, endReason: 'five', winLine: line, currentPlayer: null})
    const patch = gamePatch(data, over)
    expect(patch.over).toBe(true)
    expect(patch.winLine).toEqual(line)
    expect(patch.statusText).toBe('黑方胜 · 五连')
  })
})

describe('components/board/board.wxs', () => {
  const wxs = loadWxs('components/board/board.wxs')
  test('aria labels name the point and what stands there', () => {
    expect(wxs.label(15, 7, 7, 0, [])).toBe('h8')
    expect(wxs.label(15, 7, 7, 1, [])).toBe('h8 黑子')
    expect(wxs.label(15, 0, 0, 2, [])).toBe('a15 白子')
    expect(wxs.label(15, 6, 8, 0, [{row: 6, col: 8, kind: 'overline'}])).toBe('i9 禁手')
  })

  test('lookups find points in lists and tolerate null', () => {
    expect(wxs.has([{row: 1, col: 2}], 1, 2)).toBe(true)
    expect(wxs.has(null, 1, 2)).toBe(false)
    expect(wxs.isAt({row: 3, col: 4}, 3, 4)).toBe(true)
    expect(wxs.isAt(null, 3, 4)).toBe(false)
    expect(wxs.forbiddenKind([{row: 1, col: 1, kind: 'double_four'}], 1, 1)).toBe('double_four')
  })
})
