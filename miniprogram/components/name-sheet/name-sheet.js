/**
 * A bottom sheet asking for the display name the other player sees, with
 * WeChat's nickname input (`<input type="nickname">`: the keyboard offers
 * the WeChat nickname in one tap). WeChat checks a nickname after the input
 * loses focus and empties it if it fails the check (`nicknamereview`), so the
 * name is taken from the form's submit, as WeChat advises, and checked here
 * against the service's rule (1–16 characters after trimming, no control
 * characters) before it is sent. Opened from an invite, it first says who
 * invited (`inviter`). Emits `save` with {name} and `close`; the page saves it.
 */
const {nameProblem, inviterQuote} = require('../../utils/text')

Component({
  properties: {
    // Whether the sheet is open.
    show: {type: Boolean, value: false},
    // The name it opens with (the current one).
    name: {type: String, value: ''},
    // Why it asks, shown under the title.
    note: {type: String, value: '好友对局中，对方会看到你的昵称'},
    // Whether the name is being saved (the button then waits).
    busy: {type: Boolean, value: false},
    // The name of who invited the viewer ('' when not opened from an invite).
    inviter: {type: String, value: ''},
  },

  data: {
    value: '',
    problem: '',
    invite: '', // "「小王」邀你下一盘五子棋", for the line above the title
  },

  observers: {
    inviter(inviter) {
      this.setData({invite: inviter ? `${inviterQuote(inviter)}邀你下一盘五子棋` : ''})
    },
    'show, name'(show, name) {
      if (show) this.setData({value: name, problem: ''})
    },
  },

  methods: {
    onInput(e) {
      this.setData({value: e.detail.value, problem: ''})
    },

    /** WeChat's check of a nickname: a refused one has been emptied. */
    onReview(e) {
      if (e.detail && e.detail.pass === false && !e.detail.timeout) {
        this.setData({value: '', problem: '这个昵称不能使用，换一个吧'})
      }
    },

    onSubmit(e) {
      if (this.data.busy) return
      const form = e && e.detail && e.detail.value
      const name = form && typeof form.name === 'string' ? form.name : this.data.value
      const problem = nameProblem(name)
      if (problem) {
        this.setData({problem})
        return
      }
      this.triggerEvent('save', {name: name.trim()})
    },

    onClose() {
      if (this.data.busy) return
      this.triggerEvent('close', {})
    },

    // Taps inside the sheet must not reach the mask behind it.
    onSheetTap() {},
  },
})
