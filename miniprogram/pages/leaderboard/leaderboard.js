/**
 * 排行榜: the top players of a rating family (tabs 五子棋 / 连珠), each row
 * with the place, the name, the rank (the server's `rank.name`), the rating
 * and the games played; the viewer's own row is highlighted when they are
 * on it. A tap on a row opens the player card (behaviors/player-card.js).
 * Each tab is fetched when first shown and on pull-down refresh.
 */
const api = require('../../services/api')
const text = require('../../utils/text')
const playerCard = require('../../behaviors/player-card')

/** A leaderboard row as the page shows it; `me` is the viewer's player id. */
function _row(entry, me) {
  const r = entry.rating || {}
  return {
    place: entry.place,
    playerId: entry.playerId,
    name: entry.name,
    rank: (r.rank && r.rank.name) || '',
    rating: r.shown || '',
    games: r.games || 0,
    mine: entry.playerId === me,
  }
}

Page({
  behaviors: [playerCard],
  data: {
    families: text.FAMILIES,
    family: text.FAMILIES[0].value,
    rows: [],
    loaded: false,
    loading: false,
    loadError: '',
    mineShown: false, // the viewer is on this board (their row is highlighted)
  },

  onLoad() {
    return this._load()
  },

  onPullDownRefresh() {
    return this._load().then(() => wx.stopPullDownRefresh())
  },

  onFamilyTap(e) {
    const {family} = e.currentTarget.dataset
    if (family === this.data.family || this.data.loading) return Promise.resolve()
    this.setData({family, rows: [], loaded: false})
    return this._load()
  },

  onRetryLoad() {
    return this._load()
  },

  onHome() {
    wx.reLaunch({url: '/pages/home/home'})
  },

  _load() {
    const family = text.FAMILIES.find(f => f.value === this.data.family)
    this.setData({loading: true})
    return Promise.all([api.ensureSession(), api.leaderboard(family.rule)]).then(([session, board]) => {
      if (this.data.family !== family.value) return // another tab was chosen meanwhile
      const rows = (board.players || []).map(p => _row(p, session.playerId))
      this.setData({rows, loaded: true, loading: false, loadError: '', mineShown: rows.some(r => r.mine)})
    }).catch(err => {
      this.setData({loaded: true, loading: false, loadError: text.errorText(err)})
    })
  },
})
