/**
 * The board component: a view grid of N×N intersections with lines, star
 * points, stones and markers, emitting celltap {row, col} as numbers.
 */
const fs = require('fs')
const path = require('path')
const {load, simulate, byClass, ROOT} = require('../support/harness')
const {emptyBoard} = require('../../utils/board')

const boardId = load('components/board/board', 'board')

function render(props) {
  const comp = simulate.render(boardId, props)
  comp.attach(document.createElement('parent-wrapper'))
  return comp
}

const cells = comp => byClass(comp, 'board', 'board__cell')
const cellAt = (comp, n, row, col) => cells(comp)[row * n + col]
const has = (el, cls) => el.classList.contains(`board--${cls}`)

function tapCell(comp, n, row, col) {
  const wrapped = comp.querySelectorAll('.board__cell')[row * n + col]
  wrapped.dispatchEvent('tap')
  return simulate.sleep(0)
}

describe('board', () => {
  test.each([9, 15, 19])('renders a board of size %i: N×N intersections and the size class', n => {
    const comp = render({board: emptyBoard(n)})
    expect(byClass(comp, 'board', 'board__row')).toHaveLength(n)
    expect(cells(comp)).toHaveLength(n * n)
    expect(has(byClass(comp, 'board', 'board')[0], `board--size-${n}`)).toBe(true)
    expect(comp.data.size).toBe(n)
  })

  test.each([[9, 5], [13, 5], [15, 5], [19, 9]])('a %i board has %i star points', (n, stars) => {
    const comp = render({board: emptyBoard(n)})
    expect(byClass(comp, 'board', 'board__star')).toHaveLength(stars)
    const centre = Math.floor(n / 2)
    expect(byClass(cellAt(comp, n, centre, centre), 'board', 'board__star')).toHaveLength(1)
  })

  test('grid lines stop at the edge intersections', () => {
    const n = 9
    const comp = render({board: emptyBoard(n)})
    const lines = (r, c) => byClass(cellAt(comp, n, r, c), 'board', 'board__line')
    const [h00, v00] = lines(0, 0)
    expect(has(h00, 'board__line--start')).toBe(true)
    expect(has(v00, 'board__line--start')).toBe(true)
    const [hEnd, vEnd] = lines(n - 1, n - 1)
    expect(has(hEnd, 'board__line--end')).toBe(true)
    expect(has(vEnd, 'board__line--end')).toBe(true)
    const [hMid, vMid] = lines(4, 4)
    for (const cls of ['board__line--start', 'board__line--end', 'board__line--border']) {
      expect(has(hMid, cls)).toBe(false)
      expect(has(vMid, cls)).toBe(false)
    }
  })

  test('renders black and white stones where the array says', () => {
    const board = emptyBoard(15)
    board[7][7] = 1
    board[7][8] = 2
    board[0][14] = 1
    const comp = render({board})
    expect(byClass(comp, 'board', 'board__stone--black')).toHaveLength(2)
    expect(byClass(comp, 'board', 'board__stone--white')).toHaveLength(1)
    expect(byClass(cellAt(comp, 15, 7, 8), 'board', 'board__stone--white')).toHaveLength(1)
    expect(byClass(cellAt(comp, 15, 0, 14), 'board', 'board__stone--black')).toHaveLength(1)
  })

  test('marks the last move on its stone only', () => {
    const board = emptyBoard(15)
    board[7][7] = 1
    board[6][8] = 2
    const comp = render({board, lastMove: {row: 6, col: 8, player: 2}})
    const marks = byClass(comp, 'board', 'board__last')
    expect(marks).toHaveLength(1)
    expect(byClass(cellAt(comp, 15, 6, 8), 'board', 'board__last')).toHaveLength(1)
    expect(has(marks[0], 'board__last--on-white')).toBe(true)
  })

  test('highlights the winning line', () => {
    const board = emptyBoard(15)
    const winLine = []
    for (let c = 3; c < 8; c++) {
      board[7][c] = 1
      winLine.push({row: 7, col: c})
    }
    board[8][8] = 2
    const comp = render({board, winLine})
    const win = byClass(comp, 'board', 'board__stone--win')
    expect(win).toHaveLength(5)
    winLine.forEach(p => expect(byClass(cellAt(comp, 15, p.row, p.col), 'board', 'board__stone--win')).toHaveLength(1))
    expect(byClass(cellAt(comp, 15, 8, 8), 'board', 'board__stone--win')).toHaveLength(0)
  })

  test('marks forbidden points with their kind, never on a stone', () => {
    const board = emptyBoard(15)
    board[5][5] = 1
    const forbidden = [
      {row: 6, col: 8, kind: 'double_three'},
      {row: 9, col: 9, kind: 'overline'},
      {row: 5, col: 5, kind: 'double_four'},
    ]
    const comp = render({board, forbidden})
    expect(byClass(comp, 'board', 'board__forbidden')).toHaveLength(2)
    const [mark] = byClass(cellAt(comp, 15, 6, 8), 'board', 'board__forbidden')
    expect(has(mark, 'board__forbidden--double_three')).toBe(true)
    expect(byClass(cellAt(comp, 15, 9, 9), 'board', 'board__forbidden--overline')).toHaveLength(1)
  })

  test('rings the hint point', () => {
    const comp = render({board: emptyBoard(15), hint: {row: 3, col: 4}})
    expect(byClass(comp, 'board', 'board__hint')).toHaveLength(1)
    expect(byClass(cellAt(comp, 15, 3, 4), 'board', 'board__hint')).toHaveLength(1)
  })

  test('a tap emits celltap with row and col as numbers', async () => {
    const comp = render({board: emptyBoard(15)})
    const events = []
    comp.addEventListener('celltap', e => events.push(e.detail))
    await tapCell(comp, 15, 3, 11)
    await tapCell(comp, 15, 14, 0)
    expect(events).toEqual([{row: 3, col: 11}, {row: 14, col: 0}])
    expect(typeof events[0].row).toBe('number')
    expect(typeof events[0].col).toBe('number')
  })

  test('disabled blocks taps, enabling again restores them', async () => {
    const comp = render({board: emptyBoard(9), disabled: true})
    const events = []
    comp.addEventListener('celltap', e => events.push(e.detail))
    await tapCell(comp, 9, 4, 4)
    expect(events).toEqual([])
    comp.setData({disabled: false})
    await tapCell(comp, 9, 4, 4)
    expect(events).toEqual([{row: 4, col: 4}])
  })

  test('a new size rebuilds the grid', () => {
    const comp = render({board: emptyBoard(9)})
    comp.setData({board: emptyBoard(19)})
    expect(cells(comp)).toHaveLength(361)
    expect(comp.data.axis).toHaveLength(19)
  })

  test('every size from 9 to 19 fits a 750rpx screen with square cells', () => {
    const wxss = fs.readFileSync(path.join(ROOT, 'components/board/board.wxss'), 'utf8')
    const padding = Number(/\.board \{[^}]*padding: (\d+)rpx/.exec(wxss)[1])
    for (let n = 9; n <= 19; n++) {
      const rule = new RegExp(`\\.board--size-${n} \\.board__cell \\{ width: (\\d+)rpx; height: (\\d+)rpx; \\}`).exec(wxss)
      expect(rule).not.toBeNull()
      const [, width, height] = rule.map(Number)
      expect(width).toBe(height)
      // At least 16rpx of margin on each side of the board.
      expect(n * width + 2 * padding).toBeLessThanOrEqual(750 - 32)
      // Big enough to hit with a finger on the largest board.
      expect(width).toBeGreaterThanOrEqual(36)
    }
  })
})
