/**
 * Handlers the pages share, mixed into them.
 *
 * - pageActions (game, replay): 重试 and 返回首页 of the failed-load state
 *   (components/load-error), and opening and closing the settings sheet
 *   (components/settings-panel). A page that uses them has `pending` and
 *   `showSettings` in its data and a `_load()` that fetches its game.
 * - nameActions (home, game): the display-name sheet (components/name-sheet),
 *   asked once before the first game against a friend and editable later. A
 *   page that uses them has `nameSheet`, `nameBusy` and `myName` in its data
 *   (and `nameInviter`, the name of who invited the joiner, set here).
 * - toastError and ask: the short toast for a failed request, and a
 *   confirmation (a promise of true when confirmed).
 */
const api = require('../services/api')
const text = require('./text')
const {loadSettings, saveSettings} = require('./settings')

/** A short toast saying why a request failed. */
function toastError(err) {
  wx.showToast({title: text.errorText(err), icon: 'none'})
}

/** Ask before something that cannot be undone; resolves with whether it was confirmed. */
function ask(title, content, confirmText) {
  return new Promise(resolve => {
    wx.showModal({
      title,
      content,
      confirmText,
      confirmColor: '#b71c1c',
      success: res => resolve(res.confirm),
      fail: () => resolve(false),
    })
  })
}

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

const nameActions = {
  /**
   * Open the name sheet with the current name; resolves when it is saved or
   * dismissed. Without the server the sheet cannot be filled: rejects.
   */
  _editName() {
    return api.getMe().then(me => new Promise(resolve => {
      this._nameDone = resolve
      this.setData({nameSheet: true, myName: me.name})
    }))
  },

  /**
   * Before the first game against a friend: ask for the name once (never
   * blocks the game); a joiner's sheet names who invited them (`inviter`).
   */
  _askNameOnce(inviter = '') {
    if (loadSettings().nameAsked) return Promise.resolve()
    if (inviter !== this.data.nameInviter) this.setData({nameInviter: inviter})
    return this._editName().catch(() => null)
  },

  onNameSave(e) {
    if (this.data.nameBusy) return Promise.resolve()
    this.setData({nameBusy: true})
    return api.setName(e.detail.name).then(me => {
      saveSettings({nameAsked: true})
      this.setData({nameBusy: false, nameSheet: false, myName: (me && me.name) || e.detail.name})
      this._nameClosed()
    }).catch(err => {
      this.setData({nameBusy: false})
      toastError(err)
    })
  },

  onNameClose() {
    saveSettings({nameAsked: true})
    this.setData({nameSheet: false})
    this._nameClosed()
  },

  _nameClosed() {
    const done = this._nameDone
    this._nameDone = null
    if (done) done()
  },
}

module.exports = {pageActions, nameActions, toastError, ask}
