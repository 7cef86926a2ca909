/**
 * The board component: a view grid of N×N intersections with lines, star
 * points, stones, coordinates and markers, sized in whole pixels, emitting
 * celltap {row, col} as numbers.
 */
const {load, simulate, byClass} = require('../support/harness')
const {install} = require('../support/wx')
const {emptyBoard, boardMetrics, pointsKey} = require('../../utils/board')

const boardId = load('components/board/board', 'board')

let wx
beforeEach(() => {
  wx = install(() => {})
})

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
    const comp = render({board, last: 6 * 15 + 8})
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
    const comp = render({board, winLine: pointsKey(15, winLine)})
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

  test('coordinates: numbers up the left side, letters along the bottom (h8 is the centre of 15×15)', () => {
    const comp = render({board: emptyBoard(15)})
    const ranks = byClass(comp, 'board', 'board__rank').map(el => el.textContent)
    const files = byClass(comp, 'board', 'board__file').map(el => el.textContent)
    expect(ranks).toEqual(Array.from({length: 15}, (_, i) => String(15 - i)))
    expect(files).toEqual('abcdefghijklmno'.split(''))
    // Row 7 carries the number 8, column 7 the letter h: the centre.
    expect(ranks[7]).toBe('8')
    expect(files[7]).toBe('h')
  })

  test('sizes are whole pixels from the window width, in CSS variables', () => {
    wx.rec.windowWidth = 320
    const comp = render({board: emptyBoard(19)})
    const style = byClass(comp, 'board', 'board')[0].getAttribute('style')
    const m = boardMetrics(320, 19)
    expect(style).toContain(`--cell:${m.cell}px`)
    expect(style).toContain(`--mid:${m.mid}px`)
    expect(style).toContain(`width:${m.width}px`)
    expect(style).toContain(`margin-left:${m.left}px`)
  })

  test('the ghost stone of the confirm step sits on its point with a crosshair through its row and column', () => {
    const comp = render({board: emptyBoard(19), ghost: {row: 3, col: 15, player: 1}})
    const ghosts = byClass(comp, 'board', 'board__stone--ghost')
    expect(ghosts).toHaveLength(1)
    expect(byClass(cellAt(comp, 19, 3, 15), 'board', 'board__stone--ghost')).toHaveLength(1)
    expect(has(ghosts[0], 'board__stone--black')).toBe(true)
    expect(byClass(comp, 'board', 'board__cell--cross-row')).toHaveLength(19)
    expect(byClass(comp, 'board', 'board__cell--cross-col')).toHaveLength(19)
    expect(has(cellAt(comp, 19, 10, 15), 'board__cell--cross-col')).toBe(true)
    expect(has(cellAt(comp, 19, 10, 14), 'board__cell--cross-col')).toBe(false)
  })

  test('a stone waiting for the server is drawn faded, and marked when its request failed', () => {
    const comp = render({board: emptyBoard(15), pending: {row: 7, col: 7, player: 2}})
    const [stone] = byClass(cellAt(comp, 15, 7, 7), 'board', 'board__stone')
    expect(has(stone, 'board__stone--pending')).toBe(true)
    expect(has(stone, 'board__stone--white')).toBe(true)
    expect(has(stone, 'board__stone--unsent')).toBe(false)
    comp.setData({pending: {row: 7, col: 7, player: 2, unsent: true}})
    expect(byClass(comp, 'board', 'board__stone--unsent')).toHaveLength(1)
    // The server's stone replaces it.
    const board = emptyBoard(15)
    board[7][7] = 2
    comp.setData({board, pending: null})
    expect(byClass(comp, 'board', 'board__stone--pending')).toHaveLength(0)
    expect(byClass(comp, 'board', 'board__stone--white')).toHaveLength(1)
  })

  test('move numbers on the stones, the last one marked', () => {
    const board = emptyBoard(15)
    const numbers = emptyBoard(15)
    board[7][7] = 1
    numbers[7][7] = 1
    board[7][8] = 2
    numbers[7][8] = 2
    const comp = render({board, numbers, last: 7 * 15 + 8})
    expect(byClass(comp, 'board', 'board__number').map(el => el.textContent)).toEqual(['1', '2'])
    expect(byClass(cellAt(comp, 15, 7, 8), 'board', 'board__number--last')).toHaveLength(1)
    // With numbers shown, the last move's dot gives way to its red number.
    expect(byClass(comp, 'board', 'board__last')).toHaveLength(0)
  })

  test('forbidden points say their kind: 三 for double three, 四 for double four, 长 for overline', () => {
    const forbidden = [
      {row: 6, col: 8, kind: 'double_three'},
      {row: 9, col: 9, kind: 'double_four'},
      {row: 2, col: 2, kind: 'overline'},
    ]
    const comp = render({board: emptyBoard(15), forbidden})
    const mark = (r, c) => byClass(cellAt(comp, 15, r, c), 'board', 'board__forbidden')[0].textContent
    expect([mark(6, 8), mark(9, 9), mark(2, 2)]).toEqual(['三', '四', '长'])
  })
})
