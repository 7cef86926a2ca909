/**
 * The game page's opening steps (a game with an opening rule: swap2,
 * Taraguchi-10), mixed into pages/game/game.js while the state's `opening`
 * is not done. The server decides every step; the page shows what to do
 * (utils/game-view.js openingView: the banner, the zone tinted on the
 * board, the choices) and sends the viewer's step to POST
 * /games/{id}/opening, whose answer (with the AI's own steps against the
 * AI) or a live push from the opponent brings the next one.
 *
 * - place: a tap places the stone (shown faded until the server answers);
 *   a tap outside the zone is refused here with the server's own words.
 * - choose: a button per option (执黑 / 执白 / 再放两子 / 提出第五手候选点).
 * - offer: taps toggle points (ringed and numbered on the board, a counter
 *   in the banner); 提交 sends them once there are as many as asked for.
 * - pick: the opponent's offered points are ringed; a tap on one picks it.
 */
const api = require('../../services/api')
const text = require('../../utils/text')

/** The page data the opening adds (openingView sets the rest). */
const OPENING_DATA = {
  openingOn: false,
  openingText: '',
  openingMine: false,
  openingTap: false,
  openingPhase: '',
  openingZone: 0,
  openingChoices: [],
  openingCount: 0,
  openingOffers: [],
  offerPicked: [], // the fifth-move offer being made: [{row, col}] in the order tapped
}

/** Whether (row, col) lies in the central side×side square (as components/board/board.wxs draws it). */
function inZone(size, side, row, col) {
  const mid = Math.floor(size / 2)
  const half = Math.floor(side / 2)
  return Math.abs(row - mid) <= half && Math.abs(col - mid) <= half
}

const openingActions = {
  /** A tap on the board while the opening lasts. */
  _openingTap(row, col) {
    const d = this.data
    if (!d.openingTap || d.pending) return Promise.resolve()
    const taken = d.board[row][col]
    if (d.openingPhase === 'place') {
      if (taken) return this._openingRefused('CELL_OCCUPIED')
      if (d.openingZone && !inZone(d.board.length, d.openingZone, row, col)) return this._openingRefused('OUTSIDE_ZONE')
      const o = this._state.opening
      this.setData({pendingStone: {row, col, player: o.stone}})
      return this._openingStep({step: 'place', row, col, ply: d.moveCount})
    }
    if (d.openingPhase === 'offer') {
      if (taken) return this._openingRefused('CELL_OCCUPIED')
      const picked = d.offerPicked.filter(p => !(p.row === row && p.col === col))
      if (picked.length === d.offerPicked.length) {
        if (picked.length >= d.openingCount) {
          wx.showToast({title: `最多 ${d.openingCount} 个，点已选的点可取消`, icon: 'none'})
          return Promise.resolve()
        }
        picked.push({row, col})
      }
      this.setData({offerPicked: picked})
      return Promise.resolve()
    }
    if (d.openingPhase === 'pick') {
      if (!d.openingOffers.some(p => p.row === row && p.col === col)) return this._openingRefused('NOT_OFFERED')
      return this._openingStep({step: 'pick', row, col})
    }
    return Promise.resolve()
  },

  /** A choice button of the choose step. */
  onOpeningChoice(e) {
    const {value} = e.currentTarget.dataset
    if (!this.data.openingMine || this.data.pending || !value) return Promise.resolve()
    return this._openingStep({step: 'choose', choice: value})
  },

  /** 提交 of the offer step, once as many points as asked for are chosen. */
  onOfferSubmit() {
    const d = this.data
    if (!d.openingMine || d.pending || d.offerPicked.length !== d.openingCount) return Promise.resolve()
    return this._openingStep({step: 'offer', points: d.offerPicked})
  },

  /** 清空 of the offer step. */
  onOfferClear() {
    if (this.data.offerPicked.length) this.setData({offerPicked: []})
  },

  _openingRefused(code) {
    wx.showToast({title: text.errorText({code}), icon: 'none'})
    return Promise.resolve()
  },

  /** Send one step; the answer is shown like any state (an error: a toast and the server's state). */
  _openingStep(step) {
    this.setData({pending: 'opening'})
    return api.openingStep(this._id, step).then(state => {
      this._show(state)
      if (this.data.offerPicked.length && this.data.openingPhase !== 'offer') this.setData({offerPicked: []})
    }).catch(err => {
      this.setData({pendingStone: null})
      return this._recover(err)
    })
  },
}

module.exports = {openingActions, OPENING_DATA, inZone}
