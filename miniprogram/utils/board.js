/**
 * Board helpers shared by the pages and the board component: building boards
 * (and move numbers) from moves, notation ("h8"), star points, the board's
 * size on screen, compact point lists, and the cell-by-cell diff that keeps
 * setData small (only changed cells are sent, as 'board[r][c]' paths).
 *
 * Cells: 0 empty, 1 black, 2 white; row 0 is the top, col 0 the left.
 */

/** An n×n board of zeros. */
function emptyBoard(n) {
  const rows = []
  for (let r = 0; r < n; r++) rows.push(new Array(n).fill(0))
  return rows
}

/** The board after the first `step` moves (all of them when step is omitted). */
function boardFromMoves(n, moves, step) {
  const board = emptyBoard(n)
  const upto = step === undefined ? moves.length : Math.min(step, moves.length)
  for (let i = 0; i < upto; i++) {
    const m = moves[i]
    board[m.row][m.col] = m.player
  }
  return board
}

/** Move numbers by cell (1 for the first move, 0 where no stone stands) after the first `step` moves. */
function numbersFromMoves(n, moves, step) {
  const numbers = emptyBoard(n)
  const upto = step === undefined ? moves.length : Math.min(step, moves.length)
  for (let i = 0; i < upto; i++) numbers[moves[i].row][moves[i].col] = i + 1
  return numbers
}

/**
 * setData paths for every cell that differs between two boards of the same
 * size, e.g. {'board[7][8]': 1}. `key` names the data field (default 'board').
 */
function diffBoard(prev, next, key = 'board') {
  const patch = {}
  for (let r = 0; r < next.length; r++) {
    const a = prev[r]
    const b = next[r]
    for (let c = 0; c < b.length; c++) {
      if (a[c] !== b[c]) patch[`${key}[${r}][${c}]`] = b[c]
    }
  }
  return patch
}

/** True when both are boards of the same size. */
function sameSize(a, b) {
  return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.length > 0 && a[0].length === b[0].length
}

/** Standard notation: column letters from the left, row numbers from 1 at the bottom (h8 on 15×15). */
function coord(size, row, col) {
  return String.fromCharCode(97 + col) + (size - row)
}

/**
 * Star points (hoshi): four corner points and the centre; nine points on
 * boards of 17 and more.
 */
function starPoints(size) {
  if (size < 9) return []
  const off = size >= 13 ? 3 : 2
  const far = size - 1 - off
  const mid = (size - 1) / 2
  const odd = size % 2 === 1
  const pts = [[off, off], [off, far], [far, off], [far, far]]
  if (odd) pts.push([mid, mid])
  if (odd && size >= 17) pts.push([off, mid], [mid, off], [mid, far], [far, mid])
  return pts.map(([row, col]) => ({row, col}))
}

/** The column letters of a board, left to right (a… without skipping i, as the server's `coord`). */
function columnLetters(size) {
  const letters = []
  for (let c = 0; c < size; c++) letters.push(String.fromCharCode(97 + c))
  return letters
}

/**
 * Points as one short string of cell indices ("108 109 110"), which the board
 * expands: a winning line costs about 20 bytes of setData instead of 85.
 * Empty string for none.
 */
function pointsKey(size, points) {
  if (!points || !points.length) return ''
  return points.map(p => cellIndex(size, p.row, p.col)).join(' ')
}

/** A point as one number, row × size + col; -1 for none. */
function cellIndex(size, row, col) {
  return row * size + col
}

/** The index of `point` ({row, col} or null) on a board of `size`, -1 for none. */
function pointIndex(size, point) {
  return point ? cellIndex(size, point.row, point.col) : -1
}

/** The board's layout in whole CSS pixels, so grid lines fall on pixel rows and stay even. */
const LAYOUT = {
  margin: 6, // wood to screen edge, each side
  pad: 4, // wood around the grid and labels
  minGutter: 12, // the column of row numbers on the left, and the row of letters below
  maxCell: 44,
}

/**
 * Sizes of an n×n board on a screen `windowWidth` px wide: `cell` (px per
 * intersection), `mid` (offset of a grid line inside its cell), `gutter`
 * (the label column and row), `font` (label and move-number size), `width`
 * of the wood and `left`, its whole-pixel offset that centres it.
 */
function boardMetrics(windowWidth, n) {
  const width0 = Math.max(240, Math.floor(windowWidth || 375))
  const guess = Math.floor((width0 - 2 * LAYOUT.margin - 2 * LAYOUT.pad) / (n + 0.8))
  // Coordinates stay 10 px at least: 19×19 on a 320 px screen has 15 px cells.
  const font = Math.max(10, Math.min(12, Math.floor(guess * 0.5)))
  const gutter = Math.max(LAYOUT.minGutter, font + 3)
  const cell = Math.min(LAYOUT.maxCell, Math.floor((width0 - 2 * LAYOUT.margin - 2 * LAYOUT.pad - gutter) / n))
  const width = n * cell + gutter + 2 * LAYOUT.pad
  return {
    cell,
    mid: Math.floor(cell / 2),
    gutter,
    font,
    width,
    left: Math.floor((width0 - width) / 2),
  }
}

/** Below this many px a cell is too small to hit reliably: the confirm step turns on by itself. */
const CONFIRM_BELOW_PX = 30

module.exports = {
  emptyBoard,
  boardFromMoves,
  numbersFromMoves,
  diffBoard,
  sameSize,
  coord,
  columnLetters,
  starPoints,
  pointsKey,
  cellIndex,
  pointIndex,
  boardMetrics,
  CONFIRM_BELOW_PX,
}
