/**
 * From the server's game state to the game page's data, and from one state
 * to the next as the smallest setData payload: unchanged fields are left
 * out, the board goes cell by cell ('board[7][8]': 1) once the page has one
 * of the same size, and points the board only looks up go as cell indices
 * (the last move is 112, a winning line "108 109 110 111 112").
 */
const {diffBoard, sameSize, pointsKey, pointIndex, numbersFromMoves} = require('./board')
const text = require('./text')

/**
 * Whether the server would take back a move now: not in a resigned game, and
 * in an AI game only when one of the player's own moves is on the board.
 */
function canUndo(state) {
  if (state.endReason === 'resign') return false
  const moves = state.moveHistory || []
  if (state.mode === 'ai' && state.ai) return moves.some(m => m.player !== state.ai.player)
  return moves.length > 0
}

/** Every field the game page shows, from a full game state; `numbers` only when they are shown. */
function gameView(state, {numbers = false} = {}) {
  const over = state.status !== 'playing'
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
  }
  if (numbers) view.numbers = numbersFromMoves(state.boardSize, state.moveHistory || [])
  return view
}

/** What stays the same for the whole game: names and titles, set once. */
function gameHeader(state) {
  const names = text.playerNames(state)
  return {
    title: text.shortTitle(state),
    details: text.gameDetails(state),
    blackName: names.black,
    whiteName: names.white,
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

module.exports = {gameView, gameHeader, gamePatch, canUndo}
