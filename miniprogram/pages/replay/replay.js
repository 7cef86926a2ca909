/**
 * Replay: the board driven by the game's moves, with play/pause, speed,
 * 开局 / back / forward / 终局 (first and last), a slider, a list of the moves (tap one to
 * jump there) and a swipe across the board to step. The game comes once from
 * the server (GET /games/{id}); each frame is built here and sent as changed
 * cells only.
 *
 * The result stays hidden until the last move is shown (or 显示结果 is
 * tapped), so a replay does not give it away; a game still in play is
 * labelled as such and can be continued from here (an imported record opens
 * here first).
 *
 * One timer at most: it is cleared on pause, on hide and on unload, so
 * leaving the page mid-replay leaves nothing running. The board is always
 * disabled here, so taps on it do nothing.
 */
const api = require('../../services/api')
const text = require('../../utils/text')
const {boardFromMoves, numbersFromMoves, diffBoard, emptyBoard, coord, pointsKey, pointIndex} = require('../../utils/board')
const {loadSettings, saveSettings} = require('../../utils/settings')
const {pageActions} = require('../../utils/page-actions')

const SPEEDS = [
  {label: '0.5×', ms: 2000},
  {label: '1×', ms: 1000},
  {label: '2×', ms: 500},
  {label: '4×', ms: 250},
]

/** A swipe shorter than this many px, or more vertical than horizontal, is not a step. */
const SWIPE_PX = 40

Page(Object.assign({}, pageActions, {
  data: {
    details: '',
    board: [],
    last: -1, // the last move shown, as a cell index
    winLine: '',
    numbers: [],
    showNumbers: false,
    moves: [], // [{coord, player}] for the move list
    step: 0,
    moveCount: 0,
    playing: false,
    speeds: SPEEDS,
    speedIndex: 1,
    finished: false,
    resultText: '',
    resultShown: false,
    loaded: false,
    loadError: '',
    canRetryLoad: true,
    pending: 'load',
    showSettings: false,
  },

  onLoad(query) {
    this._id = query.id
    this._timer = null
    this._moves = []
    this._finalWinLine = ''
    this._touch = null
    this.setData({showNumbers: loadSettings().numbers})
    return this._load()
  },

  _load() {
    return api.getGame(this._id).then(game => {
      const n = game.boardSize
      this._moves = game.moveHistory
      this._finalWinLine = pointsKey(n, game.winLine)
      this.setData({
        details: text.gameDetails(game),
        board: emptyBoard(n),
        numbers: this.data.showNumbers ? emptyBoard(n) : [],
        moves: game.moveHistory.map(m => ({coord: coord(n, m.row, m.col), player: m.player})),
        moveCount: game.moveCount,
        finished: game.status !== 'playing',
        resultText: text.resultText(game),
        loaded: true,
        loadError: '',
        pending: '',
      })
      wx.setNavigationBarTitle({title: `复盘 · ${text.shortTitle(game)}`})
    }).catch(err => {
      this.setData({pending: '', loadError: text.errorText(err), canRetryLoad: err.code !== 'GAME_NOT_FOUND'})
    })
  },

  onHide() {
    this._stop()
  },

  onUnload() {
    this._clearTimer()
  },

  /** Show the position after `step` moves, sending only what changed. */
  _show(step) {
    const n = this.data.board.length
    const patch = diffBoard(this.data.board, boardFromMoves(n, this._moves, step))
    if (this.data.showNumbers) Object.assign(patch, diffBoard(this.data.numbers, numbersFromMoves(n, this._moves, step), 'numbers'))
    const last = step > 0 ? this._moves[step - 1] : null
    const winLine = step === this.data.moveCount ? this._finalWinLine : ''
    patch.step = step
    patch.last = pointIndex(n, last)
    if (winLine !== this.data.winLine) patch.winLine = winLine
    this.setData(patch)
  },

  _clearTimer() {
    if (this._timer !== null) {
      clearTimeout(this._timer)
      this._timer = null
    }
  },

  _stop() {
    this._clearTimer()
    if (this.data.playing) this.setData({playing: false})
  },

  _schedule() {
    this._clearTimer()
    this._timer = setTimeout(() => {
      this._timer = null
      const next = this.data.step + 1
      if (next > this.data.moveCount) {
        this._stop()
        return
      }
      this._show(next)
      if (next >= this.data.moveCount) this._stop()
      else this._schedule()
    }, SPEEDS[this.data.speedIndex].ms)
  },

  /** Stop playing and show the position after `step` moves (clamped). */
  _seek(step) {
    this._stop()
    const to = Math.max(0, Math.min(this.data.moveCount, step))
    if (to !== this.data.step) this._show(to)
  },

  onTogglePlay() {
    if (!this.data.loaded) return
    if (this.data.playing) {
      this._stop()
      return
    }
    if (!this.data.moveCount) return
    // Playing from the final position starts over.
    if (this.data.step >= this.data.moveCount) this._show(0)
    this.setData({playing: true})
    this._schedule()
  },

  onSpeed(e) {
    const speedIndex = Number(e.currentTarget.dataset.index)
    if (speedIndex === this.data.speedIndex) return
    this.setData({speedIndex})
    if (this.data.playing) this._schedule()
  },

  onFirst() {
    this._seek(0)
  },

  onLast() {
    this._seek(this.data.moveCount)
  },

  onStepBack() {
    this._seek(this.data.step - 1)
  },

  onStepForward() {
    this._seek(this.data.step + 1)
  },

  onSeek(e) {
    this._seek(Number(e.detail.value))
  },

  onSelectMove(e) {
    this._seek(e.detail.step)
  },

  onShowResult() {
    this.setData({resultShown: true})
  },

  onTouchStart(e) {
    const t = e.touches && e.touches[0]
    this._touch = t ? {x: t.clientX, y: t.clientY} : null
  },

  onTouchEnd(e) {
    const start = this._touch
    const t = e.changedTouches && e.changedTouches[0]
    this._touch = null
    if (!start || !t) return
    const dx = t.clientX - start.x
    const dy = t.clientY - start.y
    if (Math.abs(dx) < SWIPE_PX || Math.abs(dx) < Math.abs(dy)) return
    // Swiping left brings the next move, as turning a page.
    if (dx < 0) this.onStepForward()
    else this.onStepBack()
  },

  onContinue() {
    this._stop()
    const pages = typeof getCurrentPages === 'function' ? getCurrentPages() : []
    const before = pages.length > 1 ? pages[pages.length - 2] : null
    // Opened from this very game: go back to it rather than stacking a second copy.
    if (before && before.route === 'pages/game/game' && before.options && before.options.id === this._id) {
      wx.navigateBack()
      return
    }
    wx.redirectTo({url: `/pages/game/game?id=${this._id}`})
  },

  onSettingChange(e) {
    const {key, value} = e.detail
    if (key !== 'numbers') return
    saveSettings({numbers: value})
    const n = this.data.board.length
    this.setData({showNumbers: value, numbers: value ? numbersFromMoves(n, this._moves, this.data.step) : []})
  },
}))
