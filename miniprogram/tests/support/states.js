/**
 * Game states shaped as the server sends them (GET /games/{id}), for unit
 * tests that answer requests with a scripted transport.
 */
const {emptyBoard} = require('../../utils/board')

/**
 * A game in play: 15×15 freestyle, local, no moves, with `overrides`. Moves
 * given as `moves: [[row, col], …]` (black first) fill the board, the history,
 * the count, the last move and the side to move.
 */
function gameState(overrides = {}) {
  const {moves, ...rest} = overrides
  const n = rest.boardSize || 15
  const state = {
    id: 'g1', mode: 'local', rule: 'freestyle', boardSize: n, board: emptyBoard(n),
    moveHistory: [], moveCount: 0, currentPlayer: 1, status: 'playing', winner: null,
    endReason: null, winLine: null, lastMove: null, forbiddenMoves: [], ai: null,
    createdAt: '2026-11-30T04:00:00Z', updatedAt: '2026-11-30T04:00:00Z',
  }
  if (moves) {
    moves.forEach(([row, col], i) => {
      const player = (i % 2) + 1
      state.board[row][col] = player
      state.moveHistory.push({row, col, player})
    })
    state.moveCount = moves.length
    state.lastMove = state.moveHistory[moves.length - 1] || null
    state.currentPlayer = (moves.length % 2) + 1
  }
  return Object.assign(state, rest)
}

/**
 * A game against a friend, as the server renders it for the viewer `you`
 * (1 or 2; null for a spectator): both seats taken by 小明 (black) and 小红
 * (white), both connected, no offers, untimed, version 1; `overrides` as
 * for gameState (a `status: 'waiting'` game has no white player).
 */
function onlineState(overrides = {}) {
  const state = gameState(Object.assign({mode: 'online'}, overrides))
  const defaults = {
    you: 1,
    players: {
      black: {playerId: 'p1', name: '小明', online: true},
      white: state.status === 'waiting' ? null : {playerId: 'p2', name: '小红', online: true},
    },
    offers: {takeback: null, draw: null, rematch: null},
    rematchGameId: null,
    clock: null,
    timeControl: null,
    version: 1,
  }
  Object.keys(defaults).forEach(k => {
    if (!(k in overrides)) state[k] = defaults[k]
  })
  return state
}

/** A pending offer by `by` (1 or 2) as a state carries it, standing `expiresInMs` more (60 s by default). */
function offer(by, expiresInMs = 60000) {
  return {by, expiresInMs}
}

module.exports = {gameState, onlineState, offer}
