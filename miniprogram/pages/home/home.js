/**
 * Home: set up and start a new game, continue an unfinished one (long-press
 * one to delete it), open the finished ones (replay, export, delete), and
 * import a record from a chat file or the clipboard, which opens in replay.
 * Both lists come from the server, newest first, 20 at a time (更多 loads the
 * next 20), and are refreshed on show.
 */
const api = require('../../services/api')
const text = require('../../utils/text')
const {exportGame} = require('../../utils/export-record')
const {recordFromChatFile, recordFromClipboard} = require('../../utils/import-record')

const MIN_SIZE = 9
const MAX_SIZE = 19
const PAGE_SIZE = 20

function _item(summary) {
  return {
    id: summary.id,
    title: text.describeGame(summary),
    detail: summary.status === 'playing'
      ? `${text.movesText(summary.moveCount)} · ${text.statusText(summary, false)}`
      : `${text.resultText(summary)} · ${text.movesText(summary.moveCount)}`,
    time: text.shortTime(summary.updatedAt),
  }
}

function _toast(err) {
  wx.showToast({title: text.errorText(err), icon: 'none'})
}

Page({
  data: {
    modes: text.MODES,
    levels: text.LEVELS,
    colours: text.COLOURS,
    rules: text.RULES,
    mode: 'ai',
    level: 'medium',
    colour: 'black',
    rule: 'freestyle',
    boardSize: 15,
    minSize: MIN_SIZE,
    maxSize: MAX_SIZE,
    ruleNote: text.RULES[0].note,
    starting: false,
    playing: [],
    playingCursor: null,
    finished: [],
    finishedCursor: null,
    loaded: false,
    loadError: '',
    refreshing: false,
    importing: false,
  },

  onShow() {
    return this._refresh()
  },

  onPullDownRefresh() {
    return this._refresh().then(() => wx.stopPullDownRefresh())
  },

  _refresh() {
    this.setData({refreshing: true})
    return Promise.all([
      api.listGames({status: 'playing', limit: PAGE_SIZE}),
      api.listGames({status: 'finished', limit: PAGE_SIZE}),
    ]).then(([playing, finished]) => {
      this.setData({
        playing: playing.games.map(_item),
        playingCursor: playing.nextCursor || null,
        finished: finished.games.map(_item),
        finishedCursor: finished.nextCursor || null,
        loaded: true,
        loadError: '',
        refreshing: false,
      })
    }).catch(err => {
      // The lists say it, with 重试; starting a new game still works.
      this.setData({loaded: true, loadError: text.errorText(err), refreshing: false})
    })
  },

  onRetryLists() {
    if (this.data.refreshing) return Promise.resolve()
    return this._refresh()
  },

  _loadMore(status) {
    const key = status === 'playing' ? 'playing' : 'finished'
    const cursor = this.data[`${key}Cursor`]
    if (!cursor) return Promise.resolve()
    return api.listGames({status, limit: PAGE_SIZE, cursor}).then(page => {
      this.setData({
        [key]: this.data[key].concat(page.games.map(_item)),
        [`${key}Cursor`]: page.nextCursor || null,
      })
    }).catch(_toast)
  },

  onModeChange(e) {
    this.setData({mode: e.detail.value})
  },

  onLevelChange(e) {
    this.setData({level: e.detail.value})
  },

  onColourChange(e) {
    this.setData({colour: e.detail.value})
  },

  onRuleChange(e) {
    const rule = text.RULES.find(r => r.value === e.detail.value)
    this.setData({rule: rule.value, ruleNote: rule.note})
  },

  onSizeDown() {
    if (this.data.boardSize > MIN_SIZE) this.setData({boardSize: this.data.boardSize - 1})
  },

  onSizeUp() {
    if (this.data.boardSize < MAX_SIZE) this.setData({boardSize: this.data.boardSize + 1})
  },

  onStart() {
    if (this.data.starting) return Promise.resolve()
    const {mode, level, colour, rule, boardSize} = this.data
    const settings = {mode, rule, boardSize}
    // The API names the AI's colour; the picker names the player's.
    if (mode === 'ai') settings.ai = {level, player: colour === 'black' ? 2 : 1}
    this.setData({starting: true})
    return api.createGame(settings).then(game => {
      this.setData({starting: false})
      wx.navigateTo({url: `/pages/game/game?id=${game.id}`})
    }).catch(err => {
      this.setData({starting: false})
      _toast(err)
    })
  },

  onResume(e) {
    wx.navigateTo({url: `/pages/game/game?id=${e.currentTarget.dataset.id}`})
  },

  onReplay(e) {
    wx.navigateTo({url: `/pages/replay/replay?id=${e.currentTarget.dataset.id}`})
  },

  onExport(e) {
    return exportGame(e.currentTarget.dataset.id).catch(_toast)
  },

  onDelete(e) {
    return this._confirmDelete(e.currentTarget.dataset.id)
  },

  /** Long-press on an unfinished game: 删除, after a confirmation. */
  onPlayingLongPress(e) {
    const {id} = e.currentTarget.dataset
    return new Promise(resolve => {
      wx.showActionSheet({
        itemList: ['删除'],
        itemColor: '#b71c1c',
        success: res => resolve(res.tapIndex === 0),
        fail: () => resolve(false),
      })
    }).then(chosen => (chosen ? this._confirmDelete(id) : null))
  },

  _confirmDelete(id) {
    return new Promise(resolve => {
      wx.showModal({
        title: '删除对局',
        content: '删除后无法恢复，确定吗？',
        confirmText: '删除',
        confirmColor: '#b71c1c',
        success: res => resolve(res.confirm),
        fail: () => resolve(false),
      })
    }).then(confirmed => {
      if (!confirmed) return null
      return api.deleteGame(id).then(() => this._refresh(), _toast)
    })
  },

  onMorePlaying() {
    return this._loadMore('playing')
  },

  onMoreFinished() {
    return this._loadMore('finished')
  },

  onImportFile() {
    return this._import(recordFromChatFile)
  },

  onImportClipboard() {
    return this._import(recordFromClipboard)
  },

  /** Import the record `read` finds; the new game opens in replay, from where it can be continued. */
  _import(read) {
    if (this.data.importing) return Promise.resolve()
    this.setData({importing: true})
    return read().then(record => {
      if (!record) return null
      return api.importGame(record).then(game => {
        wx.showToast({title: '棋谱已导入', icon: 'success'})
        wx.navigateTo({url: `/pages/replay/replay?id=${game.id}`})
        return game
      })
    }).catch(_toast).then(game => {
      this.setData({importing: false})
      return game
    })
  },
})
