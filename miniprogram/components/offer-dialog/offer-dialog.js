/**
 * The opponent's offer: a takeback (悔棋), a draw (和棋) or, after the end, a
 * rematch (再来一局), with 同意 and 拒绝 and how long the offer still stands.
 * It is open exactly while `kind` names an offer, so an offer withdrawn,
 * lapsed or cleared by a move closes it by itself — which wx.showModal,
 * which cannot be closed from code, could not do. It sits at the top of the
 * screen, over the opponent's bar, so the viewer's own bar and running
 * clock under the board stay in sight. Emits `accept` and `decline`; does no
 * networking.
 */
const TEXTS = {
  takeback: {title: '对方请求悔棋', ask: '想悔一手棋，同意吗？', label: '悔棋请求'},
  // The opponent is to move: taking back their move takes back the reply after it too.
  takeback2: {title: '对方请求悔棋', ask: '想悔棋，退回双方各一手，同意吗？', label: '悔棋请求'},
  draw: {title: '对方提出和棋', ask: '提议这局和棋，同意吗？', label: '和棋提议'},
  rematch: {title: '对方想再来一局', ask: '邀你再来一局，交换先后手。', label: '再来一局的邀请'},
}

Component({
  properties: {
    // The offer to answer: 'takeback', 'draw', 'rematch', or '' for none (the dialog is closed).
    kind: {type: String, value: ''},
    // The opponent's display name.
    name: {type: String, value: ''},
    // How many moves an accepted takeback removes: 1 (theirs), or 2 (theirs and the reply after it).
    moves: {type: Number, value: 1},
    // How long the offer still stands ('0:42'), counted down by the page; '' when not known.
    left: {type: String, value: ''},
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
  },
})
