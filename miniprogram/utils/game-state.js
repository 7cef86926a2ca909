/**
 * The service's names for a game's colours and statuses, and what the pages
 * ask of them ("is it over?", "whose colour is the other?"), in one place:
 * the pages compare against these, never against a bare 1, 2 or status
 * string. tests/unit/contract.test.js checks STATUS against the served
 * description, so a status the service adds cannot go unnoticed here.
 */

/** A cell's content and a player's colour as the API numbers them (board, `player`, `winner`, `you`). */
const EMPTY = 0
const BLACK = 1
const WHITE = 2

/** A game's `status`. */
const STATUS = {
  WAITING: 'waiting',
  PLAYING: 'playing',
  BLACK_WON: 'black_won',
  WHITE_WON: 'white_won',
  DRAW: 'draw',
  /** A rated game called off because a player did not make their first move in time: no winner, unrated. */
  ABORTED: 'aborted',
}

/** The filters of the game list (`GET /games?status=`): games not over (waiting ones among them), and ended ones. */
const LIST_FILTER = {
  PLAYING: 'playing',
  FINISHED: 'finished',
}

/** The statuses of a game that has ended. */
const FINISHED = [STATUS.BLACK_WON, STATUS.WHITE_WON, STATUS.DRAW, STATUS.ABORTED]

/** Whether a game (a state or a list summary) has ended; one waiting for its second player has not begun. */
function isOver(game) {
  return !!game && FINISHED.includes(game.status)
}

/** Whether a rated game ended aborted (nobody's first move in time): no winner, no rating change. */
function isAborted(game) {
  return !!game && game.status === STATUS.ABORTED
}

/** Whether a game is being played (begun and not over). */
function isPlaying(game) {
  return !!game && game.status === STATUS.PLAYING
}

/** Whether an online game still waits for its second player. */
function isWaiting(game) {
  return !!game && game.status === STATUS.WAITING
}

/** The other colour: WHITE for BLACK and BLACK for WHITE. */
function opponentOf(colour) {
  return colour === BLACK ? WHITE : BLACK
}

/** A colour as the API's keys and the style classes name it: 'black' or 'white'. */
function colourKey(colour) {
  return colour === BLACK ? 'black' : 'white'
}

/** The winner of an ended game: its `winner`, or the colour its status names (EMPTY for a draw or a game not over). */
function winnerOf(game) {
  if (!isOver(game) || game.status === STATUS.DRAW || isAborted(game)) return EMPTY
  return game.winner || (game.status === STATUS.BLACK_WON ? BLACK : WHITE)
}

module.exports = {
  EMPTY,
  BLACK,
  WHITE,
  STATUS,
  LIST_FILTER,
  isOver,
  isPlaying,
  isWaiting,
  isAborted,
  opponentOf,
  colourKey,
  winnerOf,
}
