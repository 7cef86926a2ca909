/**
 * Board helpers shared by the pages and the board component: building boards
 * from moves, notation ("h8"), star points and the cell-by-cell diff that keeps
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

module.exports = {emptyBoard, boardFromMoves, diffBoard, sameSize, coord, starPoints}
