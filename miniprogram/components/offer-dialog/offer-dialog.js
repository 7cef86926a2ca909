/**
 * The opponent's offer, asked in a modal: a takeback (悔棋) or a draw (和棋),
 * with 同意 and 拒绝. It is open exactly while `kind` names an offer, so an
 * offer withdrawn or cleared by a move closes it by itself — which
 * wx.showModal, which cannot be closed from code, could not do. Emits
 * `accept` and `decline`; does no networking.
 */
const TEXTS = {
  takeback: {title: '对方请求悔棋', ask: '想悔一手棋，同意吗？', label: '悔棋请求'},
  // The opponent is to move: taking back their move takes back the reply after it too.
  takeback2: {title: '对方请求悔棋', ask: '想悔棋，退回双方各一手，同意吗？', label: '悔棋请求'},
  draw: {title: '对方提出和棋', ask: '提议这局和棋，同意吗？', label: '和棋提议'},
}

Component({
  properties: {
    // The offer to answer: 'takeback', 'draw', or '' for none (the dialog is closed).
    kind: {type: String, value: ''},
    // The opponent's display name.
    name: {type: String, value: ''},
    // How many moves an accepted takeback removes: 1 (theirs), or 2 (theirs and the reply after it).
    moves: {type: Number, value: 1},
    // Whether the answer is on its way (the buttons then wait).
    busy: {type: Boolean, value: false},
  },

  data: {
    title: '',
    ask: '',
    label: '',
  },

  observers: {
    'kind, moves'(kind, moves) {
      const t = TEXTS[kind === 'takeback' && moves === 2 ? 'takeback2' : kind] || {title: '', ask: '', label: ''}
      this.setData({title: t.title, ask: t.ask, label: t.label})
    },
  },

  methods: {
    onAccept() {
      if (this.data.busy) return
      this.triggerEvent('accept', {kind: this.data.kind})
    },
    onDecline() {
      if (this.data.busy) return
      this.triggerEvent('decline', {kind: this.data.kind})
    },
    // Taps on the dialog must not reach the mask behind it; the mask itself does nothing (an answer is needed).
    onStop() {},
  },
})
