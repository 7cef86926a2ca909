/**
 * The game-over moment: a card over the board with the result from the
 * viewer's side (a medal 胜 / 负 / 和, or the winner's colour for a viewer
 * with no side), how the game ended, and what to do next — 再来一局, 复盘分析
 * and 返回首页 — and after a rated game the viewer's new rating with the
 * change (+12 in green, −9 in red). ✕ or a tap beside the card closes it, to look at the final
 * position; the same actions stay under the board. The page decides when
 * it shows (the moment a game it shows ends) and what the texts are
 * (utils/text.js resultView); it does no networking. Emits `rematch`,
 * `analyse`, `home` and `close`.
 */
Component({
  properties: {
    // Whether the card is shown.
    show: {type: Boolean, value: false},
    // 'win', 'loss', 'draw', or the winner's colour 'black' / 'white' for a viewer with no side.
    outcome: {type: String, value: ''},
    // The medal's character: 胜, 负, 和, 黑 or 白.
    mark: {type: String, value: ''},
    // The result in a few words: 你赢了, 你已认输, 白方胜…
    title: {type: String, value: ''},
    // How the game ended: 对方认输, 黑方五连, 棋盘已满…
    how: {type: String, value: ''},
    // A rated game's change of the viewer's rating ('等级分 1512 (+12)'), '' for none.
    change: {type: String, value: ''},
    // Its direction, for the colour: 'up', 'down' or 'even'.
    changeDir: {type: String, value: ''},
    // The rematch button's text ('' hides it: a spectator has none).
    rematch: {type: String, value: '再来一局'},
    // Whether 复盘分析 is offered (a spectator may replay, not start an analysis).
    analyse: {type: Boolean, value: true},
    // Whether a request is on its way (the buttons then wait).
    busy: {type: Boolean, value: false},
  },

  methods: {
    onRematch() {
      if (!this.data.busy) this.triggerEvent('rematch')
    },
    onAnalyse() {
      if (!this.data.busy) this.triggerEvent('analyse')
    },
    onHome() {
      this.triggerEvent('home')
    },
    onClose() {
      this.triggerEvent('close')
    },
    // Taps on the card must not reach the mask behind it, which closes it.
    onStop() {},
  },
})
