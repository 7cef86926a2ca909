/**
 * Handlers the game and replay pages share, mixed into both: 重试 and
 * 返回首页 of the failed-load state (components/load-error), and opening and
 * closing the settings sheet (components/settings-panel). A page that uses
 * them has `pending` and `showSettings` in its data and a `_load()` that
 * fetches its game.
 */
const pageActions = {
  onRetryLoad() {
    if (this.data.pending) return Promise.resolve()
    this.setData({pending: 'load'})
    return this._load()
  },

  onHome() {
    wx.reLaunch({url: '/pages/home/home'})
  },

  onOpenSettings() {
    this.setData({showSettings: true})
  },

  onCloseSettings() {
    this.setData({showSettings: false})
  },
}

module.exports = {pageActions}
