/**
 * The gomoku board: a view grid, one <view> per intersection, no canvas, with
 * row numbers up the left side and column letters along the bottom (h8 is the
 * centre of 15×15, as in hints and exported records).
 *
 * It renders the 2D array the server returns. Sizes are whole CSS pixels from
 * the window's width (utils/board.js boardMetrics), so the grid lines fall on
 * pixel rows and stay evenly thin on every screen. Markers — the last move,
 * the winning line, forbidden points with their kind, a hint, the ghost stone
 * of the confirm step with its crosshair, the player's own stone while the
 * server has not confirmed it, move numbers, the analysis's better move as a
 * hollow ring — are looked up in board.wxs on
 * the view side, as are the opening's zone (the central square a stone must
 * go in, tinted) and its marked points (the fifth-move offers, ringed and
 * numbered). The component does no networking: a tap emits `celltap`
 * with {row, col} as numbers and the page decides.
 */
const colours = require('../../behaviors/colours')
const {starPoints, columnLetters, boardMetrics} = require('../../utils/board')
const {windowWidth} = require('../../utils/device')

function _axis(n) {
  const axis = []
  for (let i = 0; i < n; i++) axis.push(i)
  return axis
}

function _style(m) {
  const star = Math.max(3, Math.round(m.cell * 0.2))
  return [
    `--cell:${m.cell}px`, `--mid:${m.mid}px`, `--gutter:${m.gutter}px`, `--font:${m.font}px`,
    `--star:${star}px`, `--num:${Math.max(8, Math.floor(m.cell * 0.5))}px`,
    `width:${m.width}px`, `margin-left:${m.left}px`,
  ].join(';')
}

Component({
  behaviors: [colours],
  properties: {
    // Cells board[row][col]: 0 empty, 1 black, 2 white; 9 to 19 rows of as many cells.
    board: {type: Array, value: []},
    // The last move as a cell index (row × size + col), marked on its stone; -1 for none.
    last: {type: Number, value: -1},
    // The winning stones as cell indices (row × size + col) separated by spaces; '' while nobody has won.
    winLine: {type: String, value: ''},
    // Black's forbidden points [{row, col, kind}] (renju, black to move), marked with 三, 四 or 长.
    forbidden: {type: Array, value: []},
    // A suggested point {row, col}, ringed; null for none.
    hint: {type: Object, value: null},
    // The engine's better move {row, col, player} for a move of the post-game analysis: a hollow
    // ring of the mover's colour on that empty point; null for none.
    better: {type: Object, value: null},
    // The confirm step's ghost stone {row, col, player} with a crosshair through it; null for none.
    ghost: {type: Object, value: null},
    // The player's stone {row, col, player, unsent} sent but not yet confirmed by the server
    // (drawn faded; `unsent` when the request failed and may be retried); null for none.
    pending: {type: Object, value: null},
    // The opening's zone: the side of the central square a stone must be placed in (tinted); 0 for none.
    zone: {type: Number, value: 0},
    // Marked empty points [{row, col}] (the opening's fifth-move offers), ringed and numbered in order.
    marks: {type: Array, value: []},
    // Move numbers by cell (0 for none), shown on the stones; [] to show none.
    numbers: {type: Array, value: []},
    // When true taps do nothing (a move in flight, replay, game over).
    disabled: {type: Boolean, value: false},
  },

  data: {
    size: 0, // rows (= columns) of the current board
    axis: [], // 0..size-1, iterated for rows and columns
    stars: [], // star points of this size
    letters: [], // column letters, left to right
    boxStyle: '', // whole-pixel sizes as CSS variables
  },

  observers: {
    // Derived data changes only with the board's size, not with each move.
    board(board) {
      const n = Array.isArray(board) ? board.length : 0
      if (n !== this.data.size) {
        this.setData({
          size: n,
          axis: _axis(n),
          stars: starPoints(n),
          letters: columnLetters(n),
          boxStyle: n ? _style(boardMetrics(windowWidth(), n)) : '',
        })
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
