/**
 * utils/game-state.js, the one answer to "is the game over?" and the colours'
 * names: a game waiting for its second player is not over (the replay page
 * once counted it as finished), a draw has no winner, and the other colour
 * of each colour is the other one. Its names are checked against the served
 * description in contract.test.js.
 */
const {EMPTY, BLACK, WHITE, STATUS, isOver, isPlaying, isWaiting, opponentOf, colourKey, winnerOf} = require('../../utils/game-state')
const {gameState} = require('../support/states')
const {gameView} = require('../../utils/game-view')
const text = require('../../utils/text')

describe('utils/game-state', () => {
  test.each([
    [STATUS.WAITING, false, false, true],
    [STATUS.PLAYING, false, true, false],
    [STATUS.BLACK_WON, true, false, false],
    [STATUS.WHITE_WON, true, false, false],
    [STATUS.DRAW, true, false, false],
  ])('a game %s: over %s, playing %s, waiting %s', (status, over, playing, waiting) => {
    const game = {status}
    expect([isOver(game), isPlaying(game), isWaiting(game)]).toEqual([over, playing, waiting])
  })

  test('no game is neither over, played nor waiting', () => {
    expect([isOver(null), isPlaying(undefined), isWaiting(null)]).toEqual([false, false, false])
  })

  test('the colours: distinct, each the other\'s opponent, named as the API\'s keys', () => {
    expect(new Set([EMPTY, BLACK, WHITE]).size).toBe(3)
    expect(opponentOf(BLACK)).toBe(WHITE)
    expect(opponentOf(WHITE)).toBe(BLACK)
    expect([colourKey(BLACK), colourKey(WHITE)]).toEqual(['black', 'white'])
  })

  test('the winner: the state\'s, or the one its status names; none for a draw or a game not over', () => {
    expect(winnerOf({status: STATUS.WHITE_WON, winner: WHITE})).toBe(WHITE)
    expect(winnerOf({status: STATUS.BLACK_WON})).toBe(BLACK)
    expect(winnerOf({status: STATUS.WHITE_WON})).toBe(WHITE)
    expect(winnerOf({status: STATUS.DRAW})).toBe(EMPTY)
    expect(winnerOf({status: STATUS.PLAYING})).toBe(EMPTY)
  })

  test('the game page, the lists\' texts and the result agree with it on every status', () => {
    for (const status of Object.values(STATUS)) {
      const state = gameState({status, winner: status === STATUS.WHITE_WON ? WHITE : status === STATUS.BLACK_WON ? BLACK : null})
      expect(gameView(state).over).toBe(isOver(state))
      expect(text.resultText(state) !== '').toBe(isOver(state))
      expect(text.resultView(state) !== null).toBe(isOver(state))
    }
  })
})
