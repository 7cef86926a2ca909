/**
 * 残局 against a scripted transport: the daily puzzle first with its heading
 * ("黑先胜 · 3 手内"), kind and difficulty, the player's puzzle rating; a tap
 * plays the attacker's move and shows the server's defence, numbered; solved
 * and failed with the rating change; 再试一次; 查看解答 stepping through the
 * solution on the puzzle's position; 下一题.
 */
const {loadPage, openPage, textsOf} = require('../support/harness')
const {installScripted} = require('../support/fake-transport')
const {tapPoint, tapButton, buttonTexts, until} = require('../support/e2e')
const {emptyBoard} = require('../../utils/board')

const puzzlesId = loadPage('puzzles')

let transport
let wx

/** A 15×15 freestyle VCF for black in 3: black stones at row 7, cols 4–6, white at 6,3 and 6,4. */
function puzzle(overrides = {}) {
  const board = emptyBoard(15)
  ;[[7, 4], [7, 5], [7, 6]].forEach(([r, c]) => { board[r][c] = 1 })
  ;[[6, 3], [6, 4]].forEach(([r, c]) => { board[r][c] = 2 })
  return Object.assign({
    id: 'f0001', rule: 'freestyle', boardSize: 15, kind: 'vcf', winIn: 3, attacker: 1, difficulty: 2,
    rating: 1450, daily: true, board, lastMove: {row: 6, col: 4}, moves: [],
    attempt: {status: 'playing', movesLeft: 3, ratingChange: null}, solution: null,
    you: {rating: 1500, rd: 350, provisional: true, shown: '1500?'},
  }, overrides)
}

/** The puzzle after `moves` (board with them, as the server may send it). */
function after(moves, attempt, extra = {}) {
  const p = puzzle(Object.assign({moves, attempt}, extra))
  moves.forEach(m => { p.board[m.row][m.col] = m.player })
  return p
}

beforeEach(() => {
  ;({transport, wx} = installScripted())
  transport.on('GET', '/api/v1/puzzles/daily', () => [200, puzzle()])
})

describe('残局', () => {
  test('opens on the daily puzzle: heading, kind and difficulty, the player\'s puzzle rating', async () => {
    const page = await openPage(puzzlesId)
    expect(textsOf(page, 'puzzles', 'puzzles__heading')).toEqual(['每日残局黑先胜 · 3 手内'])
    expect(textsOf(page, 'puzzles', 'puzzles__details')).toEqual(['连续冲四 · 难度 ★★☆☆☆ · 无禁手'])
    expect(textsOf(page, 'puzzles', 'puzzles__rating')).toEqual(['我的残局等级分 1500?'])
    expect(textsOf(page, 'puzzles', 'puzzles__status-text')).toEqual(['轮到你了（黑），还剩 3 手'])
    expect(wx.rec.titles).toEqual(['每日残局'])
    expect(page.data.board[7][5]).toBe(1)
  })

  test('a move is the attacker\'s, the defence comes back; a five solves, with the rating change', async () => {
    const page = await openPage(puzzlesId)
    const first = [{row: 7, col: 7, player: 1}, {row: 7, col: 8, player: 2}]
    transport.on('POST', '/api/v1/puzzles/f0001/moves', () => [200, after(first, {status: 'playing', movesLeft: 2, ratingChange: null})])
    await tapPoint(page, 7, 7)
    await until(() => !page.data.pending, 'the defence')
    expect(transport.calls('POST', '/moves').map(c => c.data)).toEqual([{row: 7, col: 7}])
    expect(page.data.board[7][8]).toBe(2)
    expect(page.data.numbers[7][7]).toBe(1)
    expect(page.data.numbers[7][8]).toBe(2)
    const solved = after(first.concat([{row: 7, col: 3, player: 1}]), {status: 'solved', movesLeft: 0, ratingChange: {before: 1500, after: 1562, delta: 62, shown: '+62'}}, {solution: [{row: 7, col: 7}, {row: 7, col: 8}, {row: 7, col: 3}]})
    transport.on('POST', '/api/v1/puzzles/f0001/moves', () => [200, solved])
    await tapPoint(page, 7, 3)
    await until(() => !page.data.pending, 'the end')
    expect(textsOf(page, 'puzzles', 'puzzles__status-text')).toEqual(['解题成功！残局等级分 1562（+62）'])
    expect(page.data.changeDir).toBe('up')
    expect(buttonTexts(page)).toEqual(['再试一次', '查看解答', '下一题'])
    // Over: the board takes no more moves.
    expect(page.querySelector('#board').data.disabled).toBe(true)
  })

  test('查看解答 steps through the solution from the puzzle\'s position; 返回 shows the attempt again', async () => {
    const failed = after([{row: 7, col: 8, player: 1}, {row: 7, col: 7, player: 2}], {status: 'failed', movesLeft: 0, ratingChange: {before: 1500, after: 1441, delta: -59, shown: '−59'}}, {solution: [{row: 7, col: 7}, {row: 7, col: 3}, {row: 7, col: 8}]})
    transport.on('GET', '/api/v1/puzzles/daily', () => [200, failed])
    const page = await openPage(puzzlesId)
    expect(page.data.changeDir).toBe('down')
    await tapButton(page, '查看解答')
    expect(textsOf(page, 'puzzles', 'puzzles__status-text')).toEqual(['解答 第 1 / 3 手'])
    // The attempt's stones are gone; the solution's first move is black's at 7,7.
    expect(page.data.board[7][7]).toBe(1)
    expect(page.data.board[7][8]).toBe(0)
    await tapButton(page, '下一步')
    await tapButton(page, '下一步')
    expect(page.data.board[7][3]).toBe(2)
    expect(page.data.board[7][8]).toBe(1)
    expect(page.data.numbers[7][8]).toBe(3)
    await tapButton(page, '返回')
    expect(page.data.solutionStep).toBe(-1)
    expect(page.data.board[7][8]).toBe(1)
    expect(page.data.board[7][7]).toBe(2)
  })

  test('再试一次 starts a fresh attempt; 下一题 fetches another puzzle', async () => {
    transport.on('GET', '/api/v1/puzzles/daily', () => [200, after([{row: 7, col: 8, player: 1}], {status: 'failed', movesLeft: 0, ratingChange: null})])
    transport.on('POST', '/api/v1/puzzles/f0001/retry', () => [200, puzzle()])
    transport.on('GET', '/api/v1/puzzles/next', () => [200, puzzle({id: 'f0002', daily: false, attacker: 2, kind: 'vct', winIn: 5})])
    const page = await openPage(puzzlesId)
    await tapButton(page, '再试一次')
    await until(() => !page.data.pending, 'the retry')
    expect(page.data.status).toBe('playing')
    expect(page.data.board[7][8]).toBe(0)
    await tapButton(page, '下一题')
    await until(() => page.data.puzzleId === 'f0002', 'the next puzzle')
    expect(textsOf(page, 'puzzles', 'puzzles__heading')).toEqual(['白先胜 · 5 手内'])
    expect(buttonTexts(page)).toEqual(['每日残局', '下一题'])
  })

  test('a refused move: the server\'s words and its state again', async () => {
    const page = await openPage(puzzlesId)
    transport.on('POST', '/api/v1/puzzles/f0001/moves', () => [409, {error: {code: 'PUZZLE_OVER', message: 'over'}}])
    transport.on('GET', '/api/v1/puzzles/f0001', () => [200, puzzle()])
    await tapPoint(page, 0, 0)
    await until(() => transport.calls('GET', '/puzzles/f0001').length === 1, 'the state again')
    expect(wx.rec.toasts).toEqual(['这一题已经结束，可以再试一次'])
    expect(page.data.pendingStone).toBeNull()
  })
})
