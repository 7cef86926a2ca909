/**
 * The evaluation of a game as a strip of bars, one per move, drawn with views
 * (no canvas): each bar is black's win probability after that move, black
 * filling it from the bottom and white from the top, with a line at even.
 * A marked move has a dot of its mark's colour on its bar, and the bar of
 * the move on the board is outlined. Moves not analysed yet (or kept back)
 * have an empty bar. Tapping a bar emits `select` with {step}, the number of
 * moves to show (that move included). The page owns the data; no networking.
 */
const {markName, percentText} = require('../../utils/text')

Component({
  properties: {
    // Black's win probability (0–1) after each move, by move index; null for a move not shown.
    evals: {type: Array, value: []},
    // The mark of each move by index ('inaccuracy', 'blunder'…), '' for none.
    marks: {type: Array, value: []},
    // How many moves the board shows: the bar of move `current` is outlined (0: none).
    current: {type: Number, value: 0},
  },

  data: {
    bars: [], // [{known, black (percent), mark, label}] for the view
  },

  observers: {
    'evals, marks'(evals, marks) {
      this.setData({bars: evals.map((e, i) => this._bar(e, marks[i] || '', i))})
    },
  },

  methods: {
    _bar(value, mark, index) {
      const known = typeof value === 'number'
      const black = known ? Math.round(value * 100) : 0
      const name = mark ? `，${markName(mark)}` : ''
      const label = known ? `第 ${index + 1} 手，黑方胜率 ${percentText(value)}${name}` : `第 ${index + 1} 手`
      return {known, black, mark: known ? mark : '', label}
    },

    onSelect(e) {
      const step = Number(e.currentTarget.dataset.step)
      if (step !== this.data.current) this.triggerEvent('select', {step})
    },
  },
})
