/**
 * The moves of a game as a list of chips ("1 h8", "2 i9"…), the one shown on
 * the board highlighted; tapping a chip emits `select` with {step}, the number
 * of moves to show (that move included). The replay page owns the step; the
 * post-game analysis will mark moves here.
 */
Component({
  properties: {
    // The moves in order: [{coord, player}], player 1 black, 2 white.
    moves: {type: Array, value: []},
    // How many moves the board shows: the chip of move `current` is highlighted (0: none).
    current: {type: Number, value: 0},
  },

  data: {
    scrollTo: '',
  },

  observers: {
    // Keep the highlighted chip in view, a row early so the next one shows too.
    current(current) {
      this.setData({scrollTo: current > 0 ? `move-${Math.max(1, current - 4)}` : 'move-start'})
    },
  },

  methods: {
    onSelect(e) {
      const step = Number(e.currentTarget.dataset.step)
      if (step !== this.data.current) this.triggerEvent('select', {step})
    },
  },
})
