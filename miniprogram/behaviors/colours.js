/**
 * The colours as template data (EMPTY, BLACK, WHITE from utils/game-state.js),
 * for the pages and components whose WXML tells stones apart:
 * `board[r][c] === BLACK`, never a bare 1 or 2.
 */
const {EMPTY, BLACK, WHITE} = require('../utils/game-state')

module.exports = Behavior({
  data: {EMPTY, BLACK, WHITE},
})
