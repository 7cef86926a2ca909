/**
 * One player beside the board: their stone, their name and a caption that
 * follows the game (落子 / 思考中… on their turn, 胜 / 负 / 和 at the end),
 * and in a game against a friend a presence dot on the stone (green while
 * their phone is connected), 我 on the viewer's own bar, and their clock (red
 * under 10 s). The game page shows one per colour, so a bar holds everything
 * about one player and nothing else; the page counts the clock down and
 * hands over only its text. In a rated game the bar shows the player's
 * rating with its rank ("1523 · 3段"), and a bar that names a player (their
 * id) is tappable: it emits `nametap` with {playerId} for the page to open
 * the player card.
 */
const colours = require('../../behaviors/colours')
const {EMPTY, BLACK} = require('../../utils/game-state')
function _caption({stone, turn, winner, over, thinking}) {
  if (over) {
    if (!winner) return '和'
    return winner === stone ? '胜' : '负'
  }
  if (turn !== stone) return ''
  return thinking ? '思考中…' : '落子'
}

Component({
  behaviors: [colours],
  properties: {
    // The player's colour: BLACK or WHITE (utils/game-state.js).
    stone: {type: Number, value: BLACK},
    // The name shown: 你, AI · 大师, 黑方, a friend's display name…
    name: {type: String, value: ''},
    // The colour to move (the game's currentPlayer); the bar lights up on its own turn.
    turn: {type: Number, value: EMPTY},
    // The winner's colour once the game is over, EMPTY for a draw.
    winner: {type: Number, value: EMPTY},
    // Whether the game is over.
    over: {type: Boolean, value: false},
    // Whether this player (the AI) is thinking about its move now.
    thinking: {type: Boolean, value: false},
    // 'start' or 'end': which side of the row the bar sits on (it mirrors for 'end').
    side: {type: String, value: 'start'},
    // Whether this is the viewer's own seat in a game against a friend (shows 我).
    me: {type: Boolean, value: false},
    // Presence in a game against a friend: 'online', 'offline', or '' where it does not apply.
    presence: {type: String, value: ''},
    // The clock's text ('9:59'), '' in an untimed game.
    clock: {type: String, value: ''},
    // Whether the clock is under 10 s (shown in red).
    low: {type: Boolean, value: false},
    // Whether this clock is running now (it is then highlighted).
    ticking: {type: Boolean, value: false},
    // The rating shown after the name ('1523 · 3段', utils/text.js ratingText), '' for none.
    rating: {type: String, value: ''},
    // The player's id: when given, a tap on the bar emits `nametap` (the player card); '' for none.
    playerId: {type: String, value: ''},
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

  methods: {
    onTap() {
      if (this.data.playerId) this.triggerEvent('nametap', {playerId: this.data.playerId})
    },
  },
})
