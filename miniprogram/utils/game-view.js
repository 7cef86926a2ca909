/**
 * From the server's game state to the game page's data, and from one state
 * to the next as the smallest setData payload: unchanged fields are left
 * out, the board goes cell by cell ('board[7][8]': 1) once the page has one
 * of the same size, and points the board only looks up go as cell indices
 * (the last move is 112, a winning line "108 109 110 111 112"). An online
 * game adds the viewer's seat, presence and offers.
 */
const {diffBoard, sameSize, pointsKey, pointIndex, numbersFromMoves} = require('./board')
const text = require('./text')

/**
 * Whether the server would take back a move now: not in a resigned game, and
 * in an AI game only when one of the player's own moves is on the board. An
 * online game has no plain undo (a takeback is asked of the opponent).
 */
function canUndo(state) {
  if (state.mode === 'online' || state.endReason === 'resign') return false
  const moves = state.moveHistory || []
  if (state.mode === 'ai' && state.ai) return moves.some(m => m.player !== state.ai.player)
  return moves.length > 0
}

/** Whether a game has ended (a game waiting for its second player has not begun). */
function isOver(state) {
  return state.status !== 'playing' && state.status !== 'waiting'
}

/**
 * What an online game adds: the viewer's seat (0 for a spectator) and who
 * sits above the board, both players' presence, and the offers as the viewer sees them: `offerIn` is
 * the opponent's pending offer the viewer must answer ('takeback', 'draw' or
 * ''), `takebackOut`/`drawOut` the viewer's own, still unanswered.
 */
function _onlineView(state) {
  const you = state.you || 0
  const players = state.players || {}
  const offers = state.offers || {}
  const playing = state.status === 'playing'
  const opponent = you ? 3 - you : 0
  let offerIn = ''
  if (playing && opponent && offers.takeback === opponent) offerIn = 'takeback'
  else if (playing && opponent && offers.draw === opponent) offerIn = 'draw'
  const mine = (state.moveHistory || []).some(m => m.player === you)
  return {
    online: true,
    you,
    // The colour shown above the board: the opponent's (white for a spectator).
    top: you ? 3 - you : 2,
    waiting: state.status === 'waiting',
    blackOnline: !!(players.black && players.black.online),
    whiteOnline: !!(players.white && players.white.online),
    offerIn,
    takebackOut: playing && !!you && offers.takeback === you,
    drawOut: playing && !!you && offers.draw === you,
    canTakeback: playing && !!you && mine && !offers.takeback,
    canDraw: playing && !!you && !offers.draw,
  }
}

/** Every field the game page shows, from a full game state; `numbers` only when they are shown. */
function gameView(state, {numbers = false} = {}) {
  const over = isOver(state)
  const names = text.playerNames(state)
  const view = {
    gameId: state.id,
    board: state.board,
    last: pointIndex(state.boardSize, state.lastMove),
    winLine: pointsKey(state.boardSize, state.winLine),
    forbidden: state.forbiddenMoves || [],
    moveCount: state.moveCount,
    currentPlayer: state.currentPlayer,
    winner: state.winner || 0,
    aiPlayer: state.mode === 'ai' && state.ai ? state.ai.player : 0,
    over,
    canUndo: canUndo(state),
    statusText: text.statusText(state, false),
    blackName: names.black,
    whiteName: names.white,
  }
  if (text.isOnline(state)) Object.assign(view, _onlineView(state))
  if (numbers) view.numbers = numbersFromMoves(state.boardSize, state.moveHistory || [])
  return view
}

/** What stays the same for the whole game: its title and settings, set once. */
function gameHeader(state) {
  return {
    title: text.shortTitle(state),
    details: text.gameDetails(state),
    ruleName: text.ruleLabel(state.rule),
  }
}

function _same(a, b) {
  return a === b || JSON.stringify(a) === JSON.stringify(b)
}

/**
 * The setData payload that turns `data` (what the page shows now) into the
 * view of `state`.
 */
function gamePatch(data, state, options = {}) {
  const next = gameView(state, options)
  const patch = {}
  Object.keys(next).forEach(key => {
    if (key === 'board' || key === 'numbers') return
    if (!_same(data[key], next[key])) patch[key] = next[key]
  })
  if (sameSize(data.board, next.board)) Object.assign(patch, diffBoard(data.board, next.board))
  else patch.board = next.board
  if (next.numbers) {
    if (sameSize(data.numbers, next.numbers)) Object.assign(patch, diffBoard(data.numbers, next.numbers, 'numbers'))
    else patch.numbers = next.numbers
  }
  return patch
}

/**
 * What the viewer of an online game is told when an offer went away between
 * two states ('' for nothing): the answer to their own offer, or the
 * opponent withdrawing theirs. An offer cleared by a move, or by the end of
 * the game, is no news: the board says it.
 */
function offerNews(prev, state) {
  const you = state.you
  if (!you || !prev.offers || !state.offers) return ''
  const was = prev.offers
  const now = state.offers
  const quiet = state.moveCount === prev.moveCount && state.status === 'playing'
  if (was.takeback === you && !now.takeback) {
    if (state.moveCount < prev.moveCount) return '对方同意了悔棋'
    if (quiet) return '对方拒绝了悔棋'
  }
  if (!quiet) return ''
  if (was.draw === you && !now.draw) return '对方拒绝了和棋'
  if (was.takeback === 3 - you && !now.takeback) return '对方撤回了悔棋请求'
  if (was.draw === 3 - you && !now.draw) return '对方撤回了和棋提议'
  return ''
}

module.exports = {gameView, gameHeader, gamePatch, canUndo, isOver, offerNews}
