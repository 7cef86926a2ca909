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
 * 分析 asks the server for a post-game analysis (POST /games/{id}/analysis)
 * and shows it as it comes (GET every second while it runs): black's win
 * probability after each move as a bar strip above the slider (tap a bar to
 * go there), each move's mark on the move list with a legend, and for the
 * move on the board a line saying what the analysis found and, for a marked
 * move, the engine's better move as a hollow ring on the board, and, when the
 * analysis carries the engine's line from there (`line`: its expected moves,
 * the better move first), ‹ ▶ that play the line on the board, numbered,
 * one move at a time (the game's position comes back with any step of the
 * replay, or ‹ at the line's start). The analysis
 * covers the whole game, so showing it shows the result too; an analysis
 * that exists already is shown on 查看分析, not at once. The game's own
 * players may start one (an online game once it is over); a spectator sees
 * one that exists.
 *
 * Two timers at most, the replay's and the analysis poll: both are cleared on
 * hide and on unload (the poll starts again on show while the analysis
 * runs), so leaving the page leaves nothing running. The board is always
 * disabled here, so taps on it do nothing.
 */
const api = require('../../services/api')
const text = require('../../utils/text')
const {boardFromMoves, numbersFromMoves, diffBoard, emptyBoard, coord, pointsKey, pointIndex} = require('../../utils/board')
const {isOver, opponentOf} = require('../../utils/game-state')
const colours = require('../../behaviors/colours')
const {loadSettings, saveSettings} = require('../../utils/settings')
const {pageActions, toastError} = require('../../utils/page-actions')

const SPEEDS = [
  {label: '0.5×', ms: 2000},
  {label: '1×', ms: 1000},
  {label: '2×', ms: 500},
  {label: '4×', ms: 250},
]

/** A swipe shorter than this many px, or more vertical than horizontal, is not a step. */
const SWIPE_PX = 40

/** How often a running analysis is asked for again. */
const POLL_MS = 1000

Page(Object.assign({}, pageActions, {
  behaviors: [colours],
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
    // The post-game analysis: '' (not known: not read yet, or the read failed), 'none' (none
    // started), 'running' or 'done'.
    analysis: '',
    canAnalyse: false, // the viewer may start one
    analysisShown: false,
    analysisPercent: 0,
    analysisOutdated: false, // done, but the game has moves it does not cover
    evals: [], // black's win probability after each move, null where not analysed
    marks: [], // each move's mark, '' for none
    better: null, // the engine's better move {row, col, player} for the move on the board
    line: [], // the engine's line from the position before that move: [{coord, player}], best first
    lineStep: 0, // how many moves of the line the board shows (0: the game's own position)
    analysisNote: '', // what the analysis says of the move on the board
    markLegend: text.MARKS,
  },

  onLoad(query) {
    this._id = query.id
    this._timer = null
    this._poll = null
    this._hidden = false
    this._analysed = [] // the analysed moves by ply, as served
    this._moves = []
    this._finalWinLine = ''
    this._touch = null
    this.setData({showNumbers: loadSettings().numbers})
    // The game page's 复盘分析 opens the replay with `analyse=1`, having started the analysis.
    return this._load().then(() => {
      if (query.analyse === '1' && this.data.loaded) return this.onAnalyse()
    })
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
        // A game waiting for its second player is not finished either: there is nothing to show.
        finished: isOver(game),
        resultText: text.resultText(game),
        loaded: true,
        loadError: '',
        pending: '',
        // Online games are analysed once over, and only at their players' asking.
        canAnalyse: !text.isOnline(game) || (!!game.you && isOver(game)),
      })
      wx.setNavigationBarTitle({title: `复盘 · ${text.shortTitle(game)}`})
      return this._readAnalysis()
    }).catch(err => {
      this.setData({pending: '', loadError: text.errorText(err), canRetryLoad: err.code !== 'GAME_NOT_FOUND'})
    })
  },

  onShow() {
    this._hidden = false
    if (this.data.analysisShown && this.data.analysis === 'running' && this._poll === null) this._schedulePoll()
  },

  onHide() {
    this._hidden = true
    this._stop()
    this._clearPoll()
  },

  onUnload() {
    this._hidden = true
    this._clearTimer()
    this._clearPoll()
  },

  /** The analysis as it stands, if there is one (none: 'none'; a failure leaves it unknown). */
  _readAnalysis() {
    return api.getAnalysis(this._id).then(a => this._applyAnalysis(a), err => {
      if (err.code === 'ANALYSIS_NOT_FOUND') this.setData({analysis: 'none'})
    })
  },

  /** Take in an analysis as served: the graph's bars, the marks, and the move on the board. */
  _applyAnalysis(a) {
    const count = this.data.moveCount
    const evals = new Array(count).fill(null)
    const marks = new Array(count).fill('')
    this._analysed = []
    for (const m of a.moves) {
      if (m.ply >= count) continue
      this._analysed[m.ply] = m
      // Two decimals are all a bar can show: a smaller setData.
      evals[m.ply] = Math.round(m.eval * 100) / 100
      marks[m.ply] = m.mark || ''
    }
    this.setData(Object.assign({
      analysis: a.status,
      analysisPercent: Math.round(a.progress * 100),
      analysisOutdated: !!a.outdated,
      evals,
      marks,
    // A line being stepped through stays on the board (the move's analysis does not change).
    }, this.data.lineStep ? {} : this._analysisAt(this.data.step)))
    if (a.status === 'running' && this.data.analysisShown) this._schedulePoll()
  },

  /**
   * The note, the better move and the engine's line for the position after
   * `step` moves (none until shown); the board back at the game's position.
   */
  _analysisAt(step) {
    const m = step > 0 ? this._analysed[step - 1] : null
    this._line = []
    if (!this.data.analysisShown || !m) return {better: null, analysisNote: '', line: [], lineStep: 0}
    const n = this.data.board.length
    const played = this._moves[step - 1]
    const bestCoord = coord(n, m.best.row, m.best.col)
    const note = text.analysisNote({
      number: step,
      player: played.player,
      coord: coord(n, played.row, played.col),
      eval: m.eval,
      bestEval: m.bestEval,
      bestCoord,
      mark: m.mark,
    })
    const marked = !!m.mark && m.mark !== 'only_move'
    const better = marked ? {row: m.best.row, col: m.best.col, player: played.player} : null
    // The line alternates from the mover; an analysis without one shows the better move alone.
    this._line = marked && Array.isArray(m.line) ? m.line.map((p, i) => ({row: p.row, col: p.col, player: i % 2 ? opponentOf(played.player) : played.player})) : []
    const line = this._line.map(p => ({coord: coord(n, p.row, p.col), player: p.player}))
    return {better, analysisNote: note, line, lineStep: 0}
  },

  /**
   * The board with the first `k` moves of the engine's line played from the
   * position before the move on the board, numbered 1…k; k = 0 is the game's
   * own position again.
   */
  _showLine(k) {
    const {step, board} = this.data
    const n = board.length
    if (k <= 0) {
      this._show(step)
      return
    }
    const next = boardFromMoves(n, this._moves, step - 1)
    const numbers = emptyBoard(n)
    let shown = 0
    // A point already taken ends the line there (the line is the server's; the board is the game's).
    while (shown < k && !next[this._line[shown].row][this._line[shown].col]) {
      const p = this._line[shown]
      next[p.row][p.col] = p.player
      numbers[p.row][p.col] = ++shown
    }
    if (!shown) return
    const patch = diffBoard(board, next)
    this.setData(Object.assign(patch, {lineStep: shown, numbers, last: pointIndex(n, this._line[shown - 1]), better: null, winLine: ''}))
  },

  /** ▶ on the engine's line: one more move of it on the board. */
  onLineForward() {
    if (this.data.lineStep < this.data.line.length) this._showLine(this.data.lineStep + 1)
  },

  /** ‹ on the engine's line: one move fewer, back to the game's position at the start. */
  onLineBack() {
    if (this.data.lineStep > 0) this._showLine(this.data.lineStep - 1)
  },

  /** A move of the line tapped: the line up to it. */
  onLineTo(e) {
    this._showLine(Number(e.currentTarget.dataset.count))
  },

  _schedulePoll() {
    this._clearPoll()
    if (this._hidden) return
    this._poll = setTimeout(() => {
      this._poll = null
      api.getAnalysis(this._id).then(a => {
        if (!this._hidden) this._applyAnalysis(a)
      }, err => {
        // A lost answer is asked again; a game gone (deleted meanwhile) is not.
        if (err.code !== 'GAME_NOT_FOUND' && err.code !== 'ANALYSIS_NOT_FOUND') this._schedulePoll()
      })
    }, POLL_MS)
  },

  _clearPoll() {
    if (this._poll !== null) {
      clearTimeout(this._poll)
      this._poll = null
    }
  },

  /**
   * 分析 starts the analysis, 查看分析 shows the one there is, 分析新着法
   * (on a shown one that is outdated) extends it; each shows it, with the
   * result.
   */
  onAnalyse() {
    if (this.data.pending) return
    const {canAnalyse, analysis, analysisShown, analysisOutdated} = this.data
    const start = canAnalyse && (analysis === 'none' || (analysisShown && analysisOutdated))
    this.setData({analysisShown: true, resultShown: true})
    if (!start) {
      this.setData(this._analysisAt(this.data.step))
      if (this.data.analysis === 'running') this._schedulePoll()
      return
    }
    this.setData({pending: 'analysis'})
    return api.startAnalysis(this._id).then(a => {
      this.setData({pending: ''})
      this._applyAnalysis(a)
    }, err => {
      this.setData({pending: '', analysisShown: this.data.analysis !== 'none'})
      toastError(err)
    })
  },

  /** Show the position after `step` moves, sending only what changed. */
  _show(step) {
    const n = this.data.board.length
    const patch = diffBoard(this.data.board, boardFromMoves(n, this._moves, step))
    if (this.data.showNumbers) Object.assign(patch, diffBoard(this.data.numbers, numbersFromMoves(n, this._moves, step), 'numbers'))
    else if (this.data.lineStep) patch.numbers = [] // the line's numbers go with it
    const last = step > 0 ? this._moves[step - 1] : null
    const winLine = step === this.data.moveCount ? this._finalWinLine : ''
    patch.step = step
    patch.last = pointIndex(n, last)
    if (winLine !== this.data.winLine) patch.winLine = winLine
    if (this.data.analysisShown) Object.assign(patch, this._analysisAt(step))
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
