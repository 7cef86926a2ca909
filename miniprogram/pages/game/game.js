/**
 * Game: the board between the two player bars, a notice line, and the game's
 * buttons. The server owns the game; this page sends a move, undo, resign or
 * hint request and shows the state that comes back.
 *
 * - A move shows at once: the player's stone goes on the board faded (board's
 *   `pending`), then the server's answer replaces it, with the AI's reply. It
 *   is never drawn as final before the server confirmed it.
 * - On small cells (or when the player asks for it) the first tap only places
 *   a ghost stone with a crosshair; a second tap on the same point sends it.
 * - If the answer to a move never came, the stone stays faded and the notice
 *   line offers 重试 (the same move with the same `ply`: the server lands it at
 *   most once) and 放弃 (show the server's position again).
 * - After any other error a short toast, then the server's state again.
 * - A first load that fails shows what happened with 重试 and 返回首页 only.
 * - The moment a game on screen ends: components/result-dialog (the result
 *   from the viewer's side, how it ended, 再来一局 / 复盘分析 / 返回首页), a
 *   chime (rising for a win, falling for a loss; muted with the sound), and
 *   under the board the same actions in place of 悔棋 / 提示 / 认输. 再来一局
 *   starts a game with the same settings (against a friend: a rematch offer).
 * - A game against a friend (mode 'online') adds what pages/game/online.js
 *   does: the invite and waiting screen, joining from a card, the live
 *   socket, clocks, offers and the spectator's view. Every state, whether it
 *   answers a request or comes over the socket, goes through `_statePatch`,
 *   which drops one not newer than what is on screen (`version`).
 * - A rated game (from the pool on home) shows each player's rating and
 *   rank on their bar, a tap on a bar opens the player card
 *   (behaviors/player-card.js), and the result dialog the rating change
 *   (or 对局已取消（未计分） for an aborted one).
 * - A game with an opening rule starts with the opening's steps
 *   (pages/game/opening.js): a banner says what to do, taps and buttons
 *   send each step.
 *
 * setData discipline: after a move only the changed cells go out, as
 * 'board[r][c]' paths, and lists the board only looks up as short strings
 * (utils/game-view.js).
 */
const api = require('../../services/api')
const {NETWORK_ERROR} = require('../../services/request')
const text = require('../../utils/text')
const {gameView, gameHeader, gamePatch} = require('../../utils/game-view')
const {BLACK, isOver} = require('../../utils/game-state')
const colours = require('../../behaviors/colours')
const {coord, boardMetrics, numbersFromMoves, CONFIRM_BELOW_PX} = require('../../utils/board')
const {windowWidth} = require('../../utils/device')
const {loadSettings, saveSettings, confirmNeeded} = require('../../utils/settings')
const {createFeedback} = require('../../utils/feedback')
const {exportGame} = require('../../utils/export-record')
const {pageActions, nameActions, toastError: _toast, ask: _ask} = require('../../utils/page-actions')
const {onlineActions, ONLINE_DATA} = require('./online')
const {openingActions, OPENING_DATA} = require('./opening')
const playerCard = require('../../behaviors/player-card')

Page(Object.assign({}, pageActions, nameActions, onlineActions, openingActions, {
  behaviors: [colours, playerCard],
  data: Object.assign({
    gameId: '',
    title: '',
    details: '',
    ruleName: '',
    blackName: '',
    whiteName: '',
    board: [],
    last: -1, // the last move as a cell index
    winLine: '',
    forbidden: [],
    numbers: [],
    moveCount: 0,
    currentPlayer: null,
    winner: 0,
    aiPlayer: 0,
    over: false,
    canUndo: false,
    statusText: '加载中…',
    pending: 'load', // the request in flight: '' none, or load, move, undo, resign, hint, new, analysis
    loaded: false,
    loadError: '', // why the first load failed; the page then offers only 重试 and 返回首页
    canRetryLoad: true,
    hint: null,
    hintText: '',
    ghost: null, // the confirm step's ghost stone {row, col, player}
    ghostText: '',
    pendingStone: null, // the player's stone sent and not yet confirmed {row, col, player, unsent?}
    unsent: null, // a move whose answer never came {row, col, ply, player}: 重试 sends it again
    confirm: 'auto',
    confirmOn: false,
    showNumbers: false,
    muted: false,
    showSettings: false,
    result: null, // the result dialog's texts (utils/text.js resultView) once the game is over
    resultShown: false, // the result dialog is open: the game ended while on screen
  }, ONLINE_DATA, OPENING_DATA),

  onLoad(query) {
    this._id = query.id
    // Opened from an invite card: take the free seat if there is one.
    this._invite = query.join === '1'
    this._state = null
    this._visible = true
    const settings = loadSettings()
    this._feedback = createFeedback(settings.muted)
    this.setData({confirm: settings.confirm, showNumbers: settings.numbers, muted: settings.muted})
    this._watchNetwork()
    return this._load()
  },

  onShow() {
    this._visible = true
    if (!this.data.loaded) return Promise.resolve()
    this._goLive()
    // Coming back from replay or from the background: the server may have moved on.
    if (!this.data.pending && !this.data.unsent) return this._sync()
    return Promise.resolve()
  },

  onHide() {
    this._visible = false
    this._pauseLive()
  },

  onUnload() {
    this._visible = false
    this._pauseLive()
    this._unwatchNetwork()
    if (this._feedback) this._feedback.destroy()
  },

  /** The first load (through the invite when opened from a card), and 重试 after it failed. */
  _load() {
    const fetch = this._invite ? this._openInvite() : api.getGame(this._id)
    return fetch.then(state => this._show(state)).catch(err => this._loadFailed(err))
  },

  /** Nothing on screen yet: say what happened instead of an empty board with live buttons. */
  _loadFailed(err) {
    const gone = err.code === 'GAME_NOT_FOUND'
    this.setData({
      pending: '',
      loadError: gone && this._invite ? text.INVITE_GONE_TEXT : text.errorText(err),
      canRetryLoad: !gone,
    })
  },

  /** Fetch the game and show exactly the server's state. */
  _sync() {
    return api.getGame(this._id).then(state => this._show(state)).catch(err => {
      if (!this.data.loaded) {
        this._loadFailed(err)
        return
      }
      _toast(err)
      this.setData({pending: ''})
    })
  },

  /**
   * Show `state`, the answer to the page's own request: what the state
   * changed, and the request's traces (the pending stone, a move to retry,
   * a hint, the ghost stone) cleared — in one setData.
   */
  _show(state) {
    const patch = this._statePatch(state) || {}
    if (this.data.pending) patch.pending = ''
    if (this.data.pendingStone) patch.pendingStone = null
    if (this.data.unsent) patch.unsent = null
    if (this.data.hint) {
      patch.hint = null
      patch.hintText = ''
    }
    if (this.data.ghost) {
      patch.ghost = null
      patch.ghostText = ''
    }
    this._apply(patch)
  },

  /**
   * The patch that shows `state` — the first time whole, afterwards as the
   * smallest change — or null when it is older than what is on screen (a
   * state of an online game carries a `version`; one that is not newer is
   * news already shown). Records `state` as the page's.
   */
  _statePatch(state) {
    const prev = this._state
    if (prev && typeof state.version === 'number' && typeof prev.version === 'number' && state.version <= prev.version) {
      return null
    }
    const options = {numbers: this.data.showNumbers}
    const first = !this.data.loaded
    const patch = first
      ? Object.assign(gameView(state, options), gameHeader(state), {loaded: true, loadError: ''})
      : gamePatch(this.data, state, options)
    if (first) patch.confirmOn = this._confirmOn(this.data.confirm, state.boardSize)
    // The game reopened (a finished move undone): the dialog has nothing to say any more.
    if (this.data.resultShown && !isOver(state)) patch.resultShown = false
    // Offers count down from the arrival of the state that carried them.
    const now = Date.now()
    const elapsed = prev ? now - this._stateAt : 0
    this._stateAt = now
    this._state = state
    // An offer that went away because of the page's own answer or withdrawal is no news to tell.
    const byMe = this.data.pending === 'answer' || this.data.pending === 'withdraw'
    this._changes = {prev, state, first, byMe, elapsed}
    if (text.isOnline(state)) Object.assign(patch, this._onlinePatch(prev, state))
    return patch
  },

  /** Send `patch`, then do what a new state starts: the title once, and for an online game its live parts. */
  _apply(patch) {
    const changes = this._changes
    this._changes = null
    this.setData(patch)
    if (!changes) return
    if (changes.first) {
      wx.setNavigationBarTitle({title: patch.title})
      this._offerShare(changes.state)
    }
    if (changes.prev && !isOver(changes.prev) && isOver(changes.state)) this._gameOver(changes.state)
    else if (changes.prev && isOver(changes.state) && this.data.result) this._resultNews(changes.state)
    if (text.isOnline(changes.state)) this._onlineChanged(changes.prev, changes.state, changes.byMe, changes.elapsed)
  },

  /**
   * The game on screen just ended (not one opened finished): the result
   * dialog, the chime, and a toast when the opponent resigned or ran out of
   * time (the board does not show that).
   */
  _gameOver(state) {
    const result = text.resultView(state)
    this.setData({result, resultShown: true})
    this._feedback.end(result.outcome)
    const news = text.opponentEndedText(state)
    if (news) wx.showToast({title: news, icon: 'none'})
  },

  /**
   * A rated game's rating changes come in a later state than its end (the
   * server applies them, then moves the version on): the result card takes
   * them when they arrive.
   */
  _resultNews(state) {
    const result = text.resultView(state)
    if (result.change !== this.data.result.change) this.setData({result})
  },

  onResultClose() {
    this.setData({resultShown: false})
  },

  _confirmOn(mode, size) {
    return confirmNeeded(mode, boardMetrics(windowWidth(), size).cell, CONFIRM_BELOW_PX)
  },

  /** Run one request while the board is disabled; on error toast, then resync. */
  _act(what, request) {
    if (this.data.pending || this.data.unsent) return Promise.resolve()
    this.setData({pending: what})
    return request().then(state => this._show(state)).catch(err => this._recover(err))
  },

  /** After a failed request: toast, then show the server's state. */
  _recover(err) {
    if (err.code === NETWORK_ERROR) return this._restore()
    _toast(err)
    return this._sync()
  },

  /**
   * After a lost connection: fetch the game; once it is on screen say that the
   * page shows the server's position, or that the server is still out of reach.
   */
  _restore() {
    this.setData({pending: 'load'})
    return api.getGame(this._id).then(state => {
      this._show(state)
      wx.showToast({title: text.RESTORED_TEXT, icon: 'none'})
    }).catch(err => {
      this.setData({pending: ''})
      _toast(err)
    })
  },

  onCellTap(e) {
    const {row, col} = e.detail
    const d = this.data
    if (!d.loaded || d.over || d.pending || d.unsent) return Promise.resolve()
    if (d.openingOn) return this._openingTap(row, col)
    // Against a friend only the side to move plays, and only once both have sat down.
    if (d.online && (d.waiting || d.you !== d.currentPlayer)) return Promise.resolve()
    if (d.board[row][col]) {
      wx.showToast({title: text.errorText({code: 'CELL_OCCUPIED'}), icon: 'none'})
      return Promise.resolve()
    }
    const name = coord(d.board.length, row, col)
    const forbidden = d.currentPlayer === BLACK && d.forbidden.find(f => f.row === row && f.col === col)
    if (forbidden) {
      // The server's own list for this position: say why instead of sending a move it refuses.
      wx.showToast({title: text.forbiddenText(name, forbidden.kind), icon: 'none'})
      return Promise.resolve()
    }
    if (d.confirmOn && !(d.ghost && d.ghost.row === row && d.ghost.col === col)) {
      this.setData({ghost: {row, col, player: d.currentPlayer}, ghostText: `${name}：再点一次落子`})
      return Promise.resolve()
    }
    // `ply` makes a retried request harmless: the server never lands it twice.
    return this._sendMove({row, col, ply: d.moveCount, player: d.currentPlayer}, true)
  },

  /** Send a move, its stone shown at once as pending; `fresh` is false for a retry. */
  _sendMove(move, fresh) {
    const isAi = !!this.data.aiPlayer
    const patch = {
      pending: 'move',
      pendingStone: {row: move.row, col: move.col, player: move.player},
      unsent: null,
    }
    if (this.data.ghost) Object.assign(patch, {ghost: null, ghostText: ''})
    if (this.data.hint) Object.assign(patch, {hint: null, hintText: ''})
    if (isAi) patch.statusText = text.statusText(this._state, true)
    this.setData(patch)
    if (fresh) this._feedback.ownStone()
    return api.playMove(this._id, move.row, move.col, move.ply).then(state => {
      const replied = isAi && state.lastMove && state.lastMove.player === state.ai.player && state.moveCount > move.ply + 1
      this._show(state)
      if (replied) this._feedback.aiStone()
    }).catch(err => {
      if (err.code === NETWORK_ERROR) {
        // The move may or may not have landed: keep it, faded, until retried or given up.
        this.setData({
          pending: '',
          unsent: move,
          pendingStone: {row: move.row, col: move.col, player: move.player, unsent: true},
          statusText: text.statusText(this._state, false),
        })
        return null
      }
      this.setData({pendingStone: null})
      return this._recover(err)
    })
  },

  onRetryMove() {
    if (!this.data.unsent || this.data.pending) return Promise.resolve()
    return this._sendMove(this.data.unsent, false)
  },

  onDiscardMove() {
    if (!this.data.unsent || this.data.pending) return Promise.resolve()
    this.setData({unsent: null, pendingStone: null})
    return this._restore()
  },

  onCancelGhost() {
    if (this.data.ghost) this.setData({ghost: null, ghostText: ''})
  },

  onUndo() {
    // The opening's stones are steps of a negotiation, not moves to take back (the server refuses).
    if (!this.data.canUndo || this.data.pending || this.data.unsent || this.data.openingOn) return Promise.resolve()
    // Undo after a win (or a full board) reopens the game: ask first.
    const asked = this.data.over ? _ask('撤销终局的一手？', '对局已经结束，撤销后可以接着下。', '撤销') : Promise.resolve(true)
    return asked.then(confirmed => (confirmed ? this._act('undo', () => api.undo(this._id)) : null))
  },

  onResign() {
    if (this.data.over || this.data.pending || this.data.unsent) return Promise.resolve()
    return _ask('认输', '确定认输吗？', '认输')
      .then(confirmed => (confirmed ? this._act('resign', () => api.resign(this._id)) : null))
  },

  onHint() {
    if (this.data.over || this.data.pending || this.data.unsent || this.data.openingOn) return Promise.resolve()
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

  /**
   * 再来一局: a new game with the same settings (against the AI, the same
   * level and colour); against a friend, once the game is over, a rematch
   * offer (pages/game/online.js).
   */
  onRematch() {
    if (this.data.pending || !this._state) return Promise.resolve()
    if (this.data.resultShown) this.setData({resultShown: false})
    const {mode, rule, boardSize, ai} = this._state
    if (mode === 'online') return isOver(this._state) ? this._rematch() : Promise.resolve()
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

  /**
   * 复盘分析: start the post-game analysis, then open the replay, asked to
   * show it. A refused start (the hint bucket empty, another analysis
   * running) still opens the replay, whose own 分析 says why when tapped.
   */
  onAnalyse() {
    if (this.data.pending) return Promise.resolve()
    this.setData({pending: 'analysis', resultShown: false})
    return api.startAnalysis(this._id).catch(() => null).then(() => {
      this.setData({pending: ''})
      wx.navigateTo({url: `/pages/replay/replay?id=${this._id}&analyse=1`})
    })
  },

  onSettingChange(e) {
    const {key, value} = e.detail
    saveSettings({[key]: value})
    if (key === 'confirm') {
      const patch = {confirm: value, confirmOn: this._confirmOn(value, this.data.board.length)}
      if (!patch.confirmOn && this.data.ghost) Object.assign(patch, {ghost: null, ghostText: ''})
      this.setData(patch)
    } else if (key === 'numbers') {
      const moves = (this._state && this._state.moveHistory) || []
      this.setData({showNumbers: value, numbers: value ? numbersFromMoves(this.data.board.length, moves) : []})
    } else if (key === 'muted') {
      this._feedback.setMuted(value)
      this.setData({muted: value})
    }
  },
}))
