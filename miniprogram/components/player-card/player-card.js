/**
 * A player's card, over the page: the name, the rating of each family with
 * its rank and record (games, W/L/D), the puzzle rating, and the recent
 * rated games with their result and rating change. The page fetches the
 * player (behaviors/player-card.js) and hands over the view
 * (utils/text.js playerCardView); the card does no networking. ✕ or a tap
 * beside the card emits `close`.
 */
Component({
  properties: {
    // Whether the card is shown.
    show: {type: Boolean, value: false},
    // The card's view: {name, ratings: [{family, rating, record}], puzzle, recent: [{score, outcome, opponent, family, delta, dir, time}]}.
    player: {type: Object, value: null},
  },

  methods: {
    onClose() {
      this.triggerEvent('close')
    },
    // Taps on the card must not reach the mask behind it, which closes it.
    onStop() {},
  },
})
