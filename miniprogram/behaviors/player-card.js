/**
 * The player card on a page (components/player-card): a tap on a name —
 * a player bar's `nametap`, a leaderboard row — fetches GET /players/{id}
 * and opens the card; ✕ or a tap beside it closes it. The page puts
 * `<player-card show="{{cardShown}}" player="{{card}}" busy="{{cardBusy}}"
 * bind:close="onCardClose" />` in its WXML.
 */
const api = require('../services/api')
const text = require('../utils/text')
const {toastError} = require('../utils/page-actions')

module.exports = Behavior({
  data: {
    card: null, // the card's view (utils/text.js playerCardView), null until one is opened
    cardShown: false,
    cardBusy: false, // the player is being fetched
  },

  methods: {
    /** A tap on a name: its player id comes in the event's detail or the tapped view's data-player-id. */
    onPlayerTap(e) {
      const id = (e.detail && e.detail.playerId) || (e.currentTarget && e.currentTarget.dataset.playerId)
      if (!id || this.data.cardBusy) return Promise.resolve()
      this.setData({cardBusy: true})
      return api.getPlayer(id).then(player => {
        this.setData({card: text.playerCardView(player), cardShown: true, cardBusy: false})
      }).catch(err => {
        this.setData({cardBusy: false})
        toastError(err)
      })
    },

    onCardClose() {
      this.setData({cardShown: false})
    },
  },
})
