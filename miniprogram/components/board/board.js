/**
 * The gomoku board: a view grid, one <view> per intersection, no canvas.
 *
 * It renders the 2D array the server returns. Grid lines run through the
 * centre of each cell and stop at the outermost intersections; markers for
 * the last move, the winning line, forbidden points and a hint are looked up
 * in board.wxs on the view side. The component does no networking: a tap
 * emits `celltap` with {row, col} as numbers and the page decides.
 */
const {starPoints} = require('../../utils/board')

function _axis(n) {
  const axis = []
  for (let i = 0; i < n; i++) axis.push(i)
  return axis
}

Component({
  properties: {
    // Cells board[row][col]: 0 empty, 1 black, 2 white; 9 to 19 rows of as many cells.
    board: {type: Array, value: []},
    // The last move {row, col, player}, marked on its stone; null for none.
    lastMove: {type: Object, value: null},
    // The winning stones [{row, col}], highlighted; empty while nobody has won.
    winLine: {type: Array, value: []},
    // Black's forbidden points [{row, col, kind}] (renju, black to move), marked with a cross.
    forbidden: {type: Array, value: []},
    // A suggested point {row, col}, ringed; null for none.
    hint: {type: Object, value: null},
    // When true taps do nothing (a move in flight, replay, game over).
    disabled: {type: Boolean, value: false},
  },

  data: {
    size: 0, // rows (= columns) of the current board
    axis: [], // 0..size-1, iterated for rows and columns
    stars: [], // star points of this size
  },

  observers: {
    // Derived data changes only with the board's size, not with each move.
    board(board) {
      const n = Array.isArray(board) ? board.length : 0
      if (n !== this.data.size) {
        this.setData({size: n, axis: _axis(n), stars: starPoints(n)})
      }
    },
  },

  methods: {
    onCellTap(e) {
      if (this.data.disabled) return
      const {row, col} = e.currentTarget.dataset
      this.triggerEvent('celltap', {row: Number(row), col: Number(col)})
    },
  },
})
