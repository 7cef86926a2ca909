/**
 * The moves of a game as a list of chips ("1 h8", "2 i9"…), the one shown on
 * the board highlighted; tapping a chip emits `select` with {step}, the number
 * of moves to show (that move included). The replay page owns the step. A
 * post-game analysis marks moves: the mark's symbol (?!, ?, ??, !, 漏) in its
 * colour on the chip, named in the chip's aria-label. The chips wrap onto as
 * many rows as the game needs and the page scrolls, rather than a short box
 * scrolling inside the page.
 */
const colours = require('../../behaviors/colours')
const {markName, markSymbol} = require('../../utils/text')

Component({
  behaviors: [colours],
  properties: {
    // The moves in order: [{coord, player}], player 1 black, 2 white.
    moves: {type: Array, value: []},
    // How many moves the board shows: the chip of move `current` is highlighted (0: none).
    current: {type: Number, value: 0},
    // The mark of each move by index ('inaccuracy', 'blunder'…), '' for none; [] for no analysis.
    marks: {type: Array, value: []},
  },

  data: {
    badges: [], // [{mark, symbol, name}] by move index, for the view
  },

  observers: {
    marks(marks) {
      this.setData({badges: marks.map(m => (m ? {mark: m, symbol: markSymbol(m), name: `，${markName(m)}`} : null))})
    },
  },

  methods: {
    onSelect(e) {
      const step = Number(e.currentTarget.dataset.step)
      if (step !== this.data.current) this.triggerEvent('select', {step})
    },
  },
})
