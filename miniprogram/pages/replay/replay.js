/**
 * Replay: the board driven by the game's moves, with play/pause, speed,
 * step back/forward and a slider to any move. The moves come once from the
 * server; each frame is built here and sent as changed cells only.
 *
 * One timer at most: it is cleared on pause, on hide and on unload, so
 * leaving the page mid-replay leaves nothing running. The board is always
 * disabled here, so taps on it do nothing.
 */
const api = require('../../services/api')
const text = require('../../utils/text')
const {boardFromMoves, diffBoard, emptyBoard} = require('../../utils/board')

const SPEEDS = [
  {label: '0.5×', ms: 2000},
  {label: '1×', ms: 1000},
  {label: '2×', ms: 500},
  {label: '4×', ms: 250},
]

function _toast(err) {
  wx.showToast({title: text.errorText(err), icon: 'none'})
}

Page({
  data: {
    title: '',
    board: [],
    lastMove: null,
    winLine: [],
    step: 0,
    moveCount: 0,
    playing: false,
    speeds: SPEEDS,
    speedIndex: 1,
    resultText: '',
    loaded: false,
  },

  onLoad(query) {
    this._id = query.id
    this._timer = null
    this._moves = []
    this._finalWinLine = []
    return Promise.all([api.replay(this._id), api.getGame(this._id)]).then(([replay, game]) => {
      this._moves = replay.moves
      this._finalWinLine = replay.winLine || []
      this.setData({
        title: text.describeGame(game),
        board: emptyBoard(replay.boardSize),
        moveCount: replay.moveCount,
        resultText: text.resultText(game) || '对局未结束',
        loaded: true,
      })
      wx.setNavigationBarTitle({title: `复盘 · ${text.describeGame(game)}`})
    }).catch(_toast)
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
    const target = boardFromMoves(n, this._moves, step)
    const patch = diffBoard(this.data.board, target)
    const last = step > 0 ? this._moves[step - 1] : null
    const winLine = step === this.data.moveCount ? this._finalWinLine : []
    patch.step = step
    patch.lastMove = last ? {row: last.row, col: last.col, player: last.player} : null
    if (winLine.length !== this.data.winLine.length) patch.winLine = winLine
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

  onStepBack() {
    this._stop()
    if (this.data.step > 0) this._show(this.data.step - 1)
  },

  onStepForward() {
    this._stop()
    if (this.data.step < this.data.moveCount) this._show(this.data.step + 1)
  },

  onSeek(e) {
    this._stop()
    const step = Math.max(0, Math.min(this.data.moveCount, Number(e.detail.value)))
    if (step !== this.data.step) this._show(step)
  },
})
