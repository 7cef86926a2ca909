/**
 * Game: the board, the status line and the game's buttons. The server owns
 * the game; this page sends a move, undo, resign or hint request and shows
 * the state that comes back. After any error it shows a short toast and then
 * fetches the game again, so what is on screen is exactly the server's state.
 *
 * setData discipline: after a move only the changed cells go out, as
 * 'board[r][c]' paths (utils/game-view.js).
 */
const api = require('../../services/api')
const {NETWORK_ERROR} = require('../../services/request')
const text = require('../../utils/text')
const {gameView, gamePatch} = require('../../utils/game-view')
const {coord} = require('../../utils/board')
const {exportGame} = require('../../utils/export-record')

function _toast(err) {
  wx.showToast({title: text.errorText(err), icon: 'none'})
}

Page({
  data: {
    gameId: '',
    title: '',
    board: [],
    lastMove: null,
    winLine: [],
    forbidden: [],
    moveCount: 0,
    currentPlayer: null,
    isAi: false,
    over: false,
    statusText: '加载中…',
    pending: 'load', // the request in flight: '' none, or load, move, undo, resign, hint, new
    loaded: false,
    hint: null,
    hintText: '',
  },

  onLoad(query) {
    this._id = query.id
    this._settings = null
    return this._sync()
  },

  onShow() {
    // Coming back from replay or from the background: the server may have moved on.
    if (this.data.loaded && !this.data.pending) return this._sync()
    return Promise.resolve()
  },

  /** Fetch the game and show exactly the server's state. */
  _sync() {
    return api.getGame(this._id).then(state => this._show(state)).catch(err => {
      _toast(err)
      this.setData({pending: '', statusText: text.errorText(err)})
    })
  },

  /** Show `state`: the first time whole, afterwards as the smallest patch. */
  _show(state) {
    this._settings = {mode: state.mode, rule: state.rule, boardSize: state.boardSize, ai: state.ai}
    const patch = this.data.loaded ? gamePatch(this.data, state) : Object.assign(gameView(state), {loaded: true})
    if (this.data.pending) patch.pending = ''
    if (this.data.hint) {
      patch.hint = null
      patch.hintText = ''
    }
    this.setData(patch)
    if (patch.title) wx.setNavigationBarTitle({title: patch.title})
  },

  /** Run one request while the board is disabled; on error toast, then resync. */
  _act(what, request) {
    if (this.data.pending) return Promise.resolve()
    this.setData({pending: what})
    return request().then(state => this._show(state)).catch(err => this._recover(err))
  },

  /** After a failed request: toast, then show the server's state (unless it cannot be reached). */
  _recover(err) {
    _toast(err)
    if (err.code === NETWORK_ERROR) {
      this.setData({pending: ''})
      return null
    }
    return this._sync()
  },

  onCellTap(e) {
    const {row, col} = e.detail
    if (this.data.over || this.data.pending) return Promise.resolve()
    // `ply` makes a retried request harmless: the server never lands it twice.
    const ply = this.data.moveCount
    return this._act('move', () => api.playMove(this._id, row, col, ply))
  },

  onUndo() {
    if (!this.data.moveCount) return Promise.resolve()
    return this._act('undo', () => api.undo(this._id))
  },

  onResign() {
    if (this.data.over || this.data.pending) return Promise.resolve()
    return new Promise(resolve => {
      wx.showModal({
        title: '认输',
        content: '确定认输吗？',
        confirmText: '认输',
        confirmColor: '#b71c1c',
        success: res => resolve(res.confirm),
        fail: () => resolve(false),
      })
    }).then(confirmed => (confirmed ? this._act('resign', () => api.resign(this._id)) : null))
  },

  onHint() {
    if (this.data.over || this.data.pending) return Promise.resolve()
    this.setData({pending: 'hint'})
    return api.hint(this._id).then(h => {
      const size = this.data.board.length
      this.setData({
        pending: '',
        hint: {row: h.row, col: h.col},
        hintText: `提示 ${coord(size, h.row, h.col)}：${text.hintReasonText(h.reason)}`,
      })
    }).catch(err => this._recover(err))
  },

  onNewGame() {
    if (this.data.pending || !this._settings) return Promise.resolve()
    const {mode, rule, boardSize, ai} = this._settings
    const settings = {mode, rule, boardSize}
    if (mode === 'ai' && ai) settings.ai = {level: ai.level, player: ai.player}
    this.setData({pending: 'new'})
    return api.createGame(settings).then(game => {
      this.setData({pending: ''})
      wx.redirectTo({url: `/pages/game/game?id=${game.id}`})
    }).catch(err => {
      this.setData({pending: ''})
      _toast(err)
    })
  },

  onExport() {
    return exportGame(this._id).catch(_toast)
  },

  onReplay() {
    wx.navigateTo({url: `/pages/replay/replay?id=${this._id}`})
  },
})
