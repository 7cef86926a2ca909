/**
 * 残局: a position where one side wins by force, and the player plays that
 * side. 每日残局 (the same puzzle for everyone on a UTC day) opens first;
 * 下一题 fetches one near the player's puzzle rating.
 *
 * - The heading says who wins and how soon ("黑先胜 · 5 手内"), the line
 *   under it the kind (连续冲四 VCF / 连续攻击 VCT), the difficulty and the rule.
 * - A tap plays the attacker's move (shown faded at once); the server
 *   answers with its defence, both drawn numbered on the board. A move that
 *   keeps the win goes on, a five solves, a move that lets the win go fails.
 * - At the end: solved or failed with the rating change (the first attempt
 *   counts), 再试一次 (a fresh, unrated attempt) and 查看解答, which steps
 *   through the solution on the board (上一步 / 下一步).
 * - The player's puzzle rating is shown under the board.
 */
const api = require('../../services/api')
const text = require('../../utils/text')
const colours = require('../../behaviors/colours')
const {pointIndex, numbersFromMoves} = require('../../utils/board')
const {opponentOf} = require('../../utils/game-state')
const {toastError} = require('../../utils/page-actions')

/** The puzzle's own position: its board without the attempt's stones (whether or not `board` holds them). */
function _startBoard(p) {
  const board = p.board.map(row => row.slice())
  for (const m of p.moves || []) board[m.row][m.col] = 0
  return board
}

/** The attempt's moves, or the solution's, on the puzzle's position, numbered from 1. */
function _withMoves(p, moves) {
  const board = _startBoard(p)
  for (const m of moves) board[m.row][m.col] = m.player
  return {board, numbers: numbersFromMoves(p.boardSize, moves)}
}

/** The solution's points as moves: the attacker's first, then alternating with the defence. */
function _solutionMoves(p) {
  return (p.solution || []).map((m, i) => ({row: m.row, col: m.col, player: m.player || (i % 2 === 0 ? p.attacker : opponentOf(p.attacker))}))
}

/** Everything the page shows of a puzzle and its attempt. */
function _view(p) {
  const moves = p.moves || []
  const {board, numbers} = _withMoves(p, moves)
  const status = (p.attempt && p.attempt.status) || 'playing'
  const last = moves.length ? moves[moves.length - 1] : p.lastMove
  const change = p.attempt && p.attempt.ratingChange
  return {
    puzzleId: p.id,
    daily: !!p.daily,
    heading: text.puzzleHeading(p),
    details: text.puzzleDetails(p),
    board,
    numbers,
    last: pointIndex(p.boardSize, last),
    attacker: p.attacker,
    status,
    statusText: text.puzzleStatusText(p),
    changeDir: change ? text.deltaDir(change.delta) : '',
    hasSolution: !!(p.solution && p.solution.length),
    myRating: p.you ? `我的残局等级分 ${p.you.shown}` : '',
    solutionStep: -1,
    solutionText: '',
    pendingStone: null,
  }
}

Page({
  behaviors: [colours],
  data: {
    puzzleId: '',
    daily: false,
    heading: '',
    details: '',
    board: [],
    numbers: [],
    last: -1,
    attacker: 1,
    status: '',
    statusText: '',
    changeDir: '',
    hasSolution: false,
    myRating: '',
    solutionStep: -1, // stepping through the solution: how many of its moves are shown; -1 when not
    solutionText: '',
    pendingStone: null, // the attacker's move sent, not yet answered
    pending: 'load', // the request in flight: '' none, load, move, retry
    loaded: false,
    loadError: '',
  },

  onLoad(query) {
    this._puzzle = null
    const first = query && query.id ? api.getPuzzle(query.id) : api.dailyPuzzle()
    return this._open(first)
  },

  /** Show the puzzle a request brings (the first load's failure says so with 重试). */
  _open(request) {
    this.setData({pending: 'load'})
    return request.then(p => this._show(p)).catch(err => {
      if (this.data.loaded) {
        this.setData({pending: ''})
        toastError(err)
        return
      }
      this.setData({pending: '', loadError: text.errorText(err)})
    })
  },

  _show(p) {
    this._puzzle = p
    this.setData(Object.assign(_view(p), {pending: '', loaded: true, loadError: ''}))
    wx.setNavigationBarTitle({title: p.daily ? '每日残局' : '残局'})
  },

  onRetryLoad() {
    this.setData({loadError: ''})
    return this._open(api.dailyPuzzle())
  },

  onHome() {
    wx.reLaunch({url: '/pages/home/home'})
  },

  onDaily() {
    if (this.data.pending) return Promise.resolve()
    return this._open(api.dailyPuzzle())
  },

  /** 下一题: a puzzle near the player's rating. */
  onNext() {
    if (this.data.pending) return Promise.resolve()
    return this._open(api.nextPuzzle())
  },

  onCellTap(e) {
    const {row, col} = e.detail
    const d = this.data
    if (!d.loaded || d.pending || d.status !== 'playing' || d.solutionStep >= 0) return Promise.resolve()
    if (d.board[row][col]) {
      wx.showToast({title: text.errorText({code: 'CELL_OCCUPIED'}), icon: 'none'})
      return Promise.resolve()
    }
    this.setData({pending: 'move', pendingStone: {row, col, player: d.attacker}})
    return api.puzzleMove(d.puzzleId, row, col).then(p => this._show(p)).catch(err => {
      this.setData({pendingStone: null, pending: ''})
      toastError(err)
      // The attempt may have moved on elsewhere (another phone, a lost answer): show the server's.
      return api.getPuzzle(d.puzzleId).then(p => this._show(p)).catch(() => null)
    })
  },

  /** 再试一次: a fresh attempt at the same puzzle. */
  onRetry() {
    if (this.data.pending) return Promise.resolve()
    this.setData({pending: 'retry'})
    return api.retryPuzzle(this.data.puzzleId).then(p => this._show(p)).catch(err => {
      this.setData({pending: ''})
      toastError(err)
    })
  },

  /** 查看解答: the solution on the puzzle's position, its first move shown. */
  onShowSolution() {
    if (!this.data.hasSolution) return
    this._solutionAt(1)
  },

  onSolutionNext() {
    const moves = _solutionMoves(this._puzzle)
    if (this.data.solutionStep < moves.length) this._solutionAt(this.data.solutionStep + 1)
  },

  onSolutionPrev() {
    if (this.data.solutionStep > 0) this._solutionAt(this.data.solutionStep - 1)
  },

  /** 返回: back from the solution to the attempt as it ended. */
  onSolutionClose() {
    this.setData(Object.assign(_view(this._puzzle), {pending: ''}))
  },

  _solutionAt(step) {
    const p = this._puzzle
    const moves = _solutionMoves(p).slice(0, step)
    const {board, numbers} = _withMoves(p, moves)
    const total = (p.solution || []).length
    this.setData({
      board,
      numbers,
      last: pointIndex(p.boardSize, moves[moves.length - 1] || null),
      solutionStep: step,
      solutionText: `解答 第 ${step} / ${total} 手`,
    })
  },
})
