/**
 * The waiting screen of a game against a friend, before the friend has
 * joined: the game's settings, a big 邀请好友 button that sends the invite
 * card into a chat (`<button open-type="share">`: the page's
 * onShareAppMessage makes the card), 复制邀请 for where cards cannot be
 * tapped (the developer tool), and 取消, which the page turns into deleting
 * the game. Emits `copy` and `cancel`; does no networking.
 */
const colours = require('../../behaviors/colours')
const {BLACK} = require('../../utils/game-state')
Component({
  behaviors: [colours],
  properties: {
    // The rule's name ('无禁手').
    rule: {type: String, value: ''},
    // The board's size (15 for 15×15).
    size: {type: Number, value: 15},
    // The viewer's colour: BLACK or WHITE (utils/game-state.js).
    seat: {type: Number, value: BLACK},
    // The time control in words ('10分钟+10秒', '不限时').
    time: {type: String, value: ''},
    // Whether 取消 is under way (the buttons then wait).
    busy: {type: Boolean, value: false},
  },

  methods: {
    onCopy() {
      this.triggerEvent('copy', {})
    },
    onCancel() {
      if (this.data.busy) return
      this.triggerEvent('cancel', {})
    },
  },
})
