/**
 * From the server's game state to the game page's data, and from one state
 * to the next as the smallest setData payload: unchanged fields are left
 * out and the board goes cell by cell ('board[7][8]': 1), never whole once
 * the page has one of the same size.
 */
const {diffBoard, sameSize} = require('./board')
const text = require('./text')

/** Every field the game page shows, from a full game state. */
function gameView(state) {
  return {
    gameId: state.id,
    title: text.describeGame(state),
    board: state.board,
    lastMove: state.lastMove || null,
    winLine: state.winLine || [],
    forbidden: state.forbiddenMoves || [],
    moveCount: state.moveCount,
    currentPlayer: state.currentPlayer,
    isAi: state.mode === 'ai' && !!state.ai,
    over: state.status !== 'playing',
    statusText: text.statusText(state, false),
  }
}

function _same(a, b) {
  return a === b || JSON.stringify(a) === JSON.stringify(b)
}

/**
 * The setData payload that turns `data` (what the page shows now) into the
 * view of `state`.
 */
function gamePatch(data, state) {
  const next = gameView(state)
  const patch = {}
  Object.keys(next).forEach(key => {
    if (key === 'board') return
    if (!_same(data[key], next[key])) patch[key] = next[key]
  })
  if (sameSize(data.board, next.board)) Object.assign(patch, diffBoard(data.board, next.board))
  else patch.board = next.board
  return patch
}

module.exports = {gameView, gamePatch}
