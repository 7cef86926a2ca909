/**
 * One player beside the board: their stone, their name and a caption that
 * follows the game (落子 / 思考中… on their turn, 胜 / 负 / 和 at the end). The
 * game page shows one per colour; online play will add a clock and a presence
 * dot here, so a bar holds everything about one player and nothing else.
 */
function _caption({stone, turn, winner, over, thinking}) {
  if (over) {
    if (!winner) return '和'
    return winner === stone ? '胜' : '负'
  }
  if (turn !== stone) return ''
  return thinking ? '思考中…' : '落子'
}

Component({
  properties: {
    // The player's colour: 1 black, 2 white.
    stone: {type: Number, value: 1},
    // The name shown: 你, AI · 大师, 黑方…
    name: {type: String, value: ''},
    // The colour to move (the game's currentPlayer); the bar lights up on its own turn.
    turn: {type: Number, value: 0},
    // The winner's colour once the game is over, 0 for a draw.
    winner: {type: Number, value: 0},
    // Whether the game is over.
    over: {type: Boolean, value: false},
    // Whether this player (the AI) is thinking about its move now.
    thinking: {type: Boolean, value: false},
    // 'start' or 'end': which side of the row the bar sits on (it mirrors for 'end').
    side: {type: String, value: 'start'},
  },

  data: {
    caption: '',
    active: false,
  },

  observers: {
    'stone, turn, winner, over, thinking'(stone, turn, winner, over, thinking) {
      this.setData({
        caption: _caption({stone, turn, winner, over, thinking}),
        active: !over && turn === stone,
      })
    },
  },
})
