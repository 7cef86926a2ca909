/**
 * The game page's play against a friend on another phone (mode 'online'),
 * mixed into pages/game/game.js, which owns the board, moves and requests.
 *
 * - Invite: while the friend has not joined, the page is the waiting screen
 *   (components/invite-card): 邀请好友 sends a card (utils/share-card.js)
 *   whose path opens this page with the game id and `join=1`; 复制邀请
 *   copies a sentence with the game's code; 取消 deletes the game.
 * - Opening a card: the page asks for a display name the first time, then
 *   takes the free seat; a full game is watched (board read-only), a
 *   finished one shows its result.
 * - Live: while the page is shown, one socket (services/live.js) brings
 *   every change as a whole state; `_show` drops one not newer than what is
 *   on screen. Lost, it is re-opened with backoff and the banner
 *   "连接中断，正在重连…" shows; the page fetches the state over REST
 *   meanwhile, and at once when shown again or back online. Hidden or
 *   closed, the socket and every timer are stopped.
 * - Clocks: the running one counts down from the state's `clock` with one
 *   timer and one setData a second at most (only the changed text); at 0:00
 *   the page waits for the server, which ends the game, and asks for the
 *   state once if no news came.
 * - Offers: 请求悔棋 and 求和 ask first, then send an offer (shown as
 *   已请求… with 撤回 and the time it still stands); the opponent's offer
 *   opens components/offer-dialog at the top with 同意 / 拒绝 and the same
 *   countdown (from the state's `expiresInMs`, counted from its arrival);
 *   the answer to one's own offer, or its lapse, is said in a toast. An
 *   answer to an offer that is gone meanwhile (409 NO_OFFER) closes the
 *   dialog with a toast.
 * - The end: a player's socket stays open after the game ends, for the
 *   rematch: 再来一局 offers one (a pending one of the opponent's is
 *   accepted instead); once one is accepted the state names the new game
 *   (`rematchGameId`) and both pages move to it.
 * - Leaving a game in play asks first (离开对局？时钟仍在走), offering 认输
 *   as the honest alternative: the in-page 离开, and the back button through
 *   wx.enableAlertBeforeUnload where the phone has it.
 */
const api = require('../../services/api')
const {createLive} = require('../../services/live')
const text = require('../../utils/text')
const {clockView, nextChangeIn, clockText} = require('../../utils/clock')
const {offerBy, offerNews} = require('../../utils/game-view')
const {EMPTY, BLACK, WHITE, isOver, isPlaying, isWaiting} = require('../../utils/game-state')
const {ask, toastError} = require('../../utils/page-actions')
const {shareCard, inviteText, inviterOf} = require('../../utils/share-card')

/** After the running clock shows 0:00, how long to wait for the server's flag fall before asking for the state. */
const FLAG_GRACE_MS = 1500
/** After an offer's countdown shows 0:00, how long to wait for the server's news before asking for the state. */
const OFFER_GRACE_MS = 1500

/** The page data an online game adds (see utils/game-view.js for the fields a state sets). */
const ONLINE_DATA = {
  online: false,
  you: EMPTY, // the viewer's colour, EMPTY for a spectator
  top: WHITE, // the colour whose bar is above the board
  bottom: BLACK, // and the one below it
  waiting: false, // the friend has not joined yet
  blackOnline: false,
  whiteOnline: false,
  spectators: 0,
  offerIn: '', // the opponent's offer to answer: 'takeback', 'draw', 'rematch' or ''
  takebackOut: false,
  drawOut: false,
  rematchOut: false,
  canTakeback: false,
  canDraw: false,
  rematchGameId: '', // the game an accepted rematch made
  blackRating: '', // a rated game's ratings on the bars ('1523 · 3段')
  whiteRating: '',
  blackId: '', // and the players' ids, for the player card
  whiteId: '',
  offerInLeft: '', // how long the opponent's offer still stands ('0:42')
  offerOutLeft: '', // how long one's own still stands
  blackClock: '',
  whiteClock: '',
  blackLow: false,
  whiteLow: false,
  clockRunning: EMPTY, // the colour whose clock runs, EMPTY for none
  timeText: '',
  linkDown: false, // the live connection is lost and being re-opened
  nameSheet: false,
  nameBusy: false,
  myName: '',
}

/** The clock as it should be shown: stopped once the game is over or while it waits for the friend. */
function _shownClock(state) {
  if (!state || !state.clock) return null
  if (!isPlaying(state)) return Object.assign({}, state.clock, {running: null})
  return state.clock
}

const onlineActions = {
  /**
   * Opened from an invite card: the game, with the viewer seated if a seat
   * was free. The name is asked for before joining, so the friend sees it at
   * once. A game that filled up or ended meanwhile is shown as it is.
   */
  _openInvite() {
    return api.getGame(this._id).then(state => {
      if (!text.isOnline(state) || !isWaiting(state) || state.you) return state
      return this._askNameOnce(inviterOf(state))
        .then(() => api.joinGame(this._id))
        .catch(err => {
          if (err.code === 'GAME_FULL' || err.code === 'GAME_OVER') return api.getGame(this._id)
          throw err
        })
    })
  },

  /** What a new state of an online game adds to the page's patch: the clocks' text, the time control. */
  _onlinePatch(prev, state) {
    const patch = this._clockPatch()
    if (!prev) patch.timeText = text.timeText(state) || '计时'
    return patch
  },

  /** After a new state is on screen: sounds, news of offers, a move that landed, the clock, the socket. */
  _onlineChanged(prev, state, byMe, elapsed) {
    if (state.rematchGameId && (prev || this._rematchAsked)) {
      // The rematch was made (by either player's 同意): both pages move to it.
      this._moveToRematch(state.rematchGameId)
      return
    }
    if (prev) {
      const stone = state.moveCount > prev.moveCount && state.lastMove
      if (stone && stone.player !== state.you) this._feedback.aiStone()
      if (isWaiting(prev) && isPlaying(state) && state.you) {
        wx.showToast({title: '好友已加入，对局开始', icon: 'none'})
      }
      const news = byMe ? '' : offerNews(prev, state, elapsed)
      if (news) wx.showToast({title: news, icon: 'none'})
      const patch = {}
      // The opponent's rematch offer supersedes the result card: its 同意 is the answer.
      if (this.data.offerIn && this.data.resultShown) patch.resultShown = false
      // A move whose answer was lost: the state says whether it landed (or the game went on without it).
      const unsent = this.data.unsent
      if (unsent && state.moveCount > unsent.ply) Object.assign(patch, {unsent: null, pendingStone: null})
      if (this.data.ghost && state.moveCount !== prev.moveCount) Object.assign(patch, {ghost: null, ghostText: ''})
      if (Object.keys(patch).length) this.setData(patch)
    }
    this._flagAsked = false
    this._offerAsked = false
    this._guardLeave(state)
    if (this._wantsLive(state)) this._goLive()
    else this._pauseLive() // nothing will change any more: no socket, no clock
  },

  /**
   * Whether the page needs the live socket: an online game in play, or one
   * over that its player may still get a rematch offer for.
   */
  _wantsLive(state) {
    if (!state || !text.isOnline(state) || !this._visible || this._movedOn) return false
    return !isOver(state) || (!!state.you && !state.rematchGameId)
  },

  /** Open the live socket (or keep the one there) while an online game in play is shown. */
  _goLive() {
    const state = this._state
    if (!this._wantsLive(state)) return
    if (!this._live) {
      this._live = createLive(this._id, {
        onState: game => this._onLiveState(game),
        onPresence: presence => this._onPresence(presence),
        onStatus: status => this._onLinkStatus(status),
      })
    }
    this._live.start()
    this._runClock()
    this._runOffers()
  },

  /** Close the socket and stop every timer (hidden, closed, or over). */
  _pauseLive() {
    this._stopClock()
    this._stopOffers()
    if (this._live) this._live.stop()
    if (this.data.linkDown) this.setData({linkDown: false})
  },

  _onLiveState(game) {
    const patch = this._statePatch(game)
    if (patch) this._apply(patch)
  },

  _onPresence(presence) {
    const patch = this._changed({blackOnline: !!presence.black, whiteOnline: !!presence.white, spectators: presence.spectators || 0})
    if (Object.keys(patch).length) this.setData(patch)
  },

  /** The fields of `next` that differ from what the page shows (a setData sends only those). */
  _changed(next) {
    const patch = {}
    Object.keys(next).forEach(k => {
      if (this.data[k] !== next[k]) patch[k] = next[k]
    })
    return patch
  },

  _onLinkStatus(status) {
    if (status === 'live') {
      if (this.data.linkDown) this.setData({linkDown: false})
      return
    }
    this.setData({linkDown: true})
    // The socket may have been refused for an expired session: a REST request renews it.
    this._resync()
  },

  /**
   * Fetch the state quietly (the banner already says the connection is
   * down). A game that is gone (its creator cancelled it) ends the page's
   * life: it says so, with 返回首页.
   */
  _resync() {
    return api.getGame(this._id).then(state => {
      const patch = this._statePatch(state)
      if (patch) this._apply(patch)
    }).catch(err => {
      if (err.code !== 'GAME_NOT_FOUND') return
      this._pauseLive()
      this.setData({loadError: text.INVITE_GONE_TEXT, canRetryLoad: false})
    })
  },

  _watchNetwork() {
    if (typeof wx.onNetworkStatusChange !== 'function') return
    this._onNetwork = res => {
      if (res.isConnected) this._reconnect()
    }
    wx.onNetworkStatusChange(this._onNetwork)
  },

  _unwatchNetwork() {
    if (this._onNetwork && typeof wx.offNetworkStatusChange === 'function') wx.offNetworkStatusChange(this._onNetwork)
    this._onNetwork = null
  },

  /** The network is back (or changed): a fresh socket at once, and the state over REST meanwhile. */
  _reconnect() {
    if (!this._live || !this._wantsLive(this._state)) return
    this._live.reconnectNow()
    this._resync()
  },

  // --- clocks

  /** The clocks' text and colour that differ from what is shown. */
  _clockPatch() {
    return this._changed(clockView(_shownClock(this._state), Date.now()))
  },

  /** Arm the one clock timer for when the running clock's text next changes. */
  _runClock() {
    this._stopClock()
    const clock = _shownClock(this._state)
    if (!clock || !clock.running || !this._visible) return
    const wait = nextChangeIn(clock, Date.now())
    if (wait !== null) {
      this._clockTimer = setTimeout(() => {
        this._clockTimer = null
        const patch = this._clockPatch()
        if (Object.keys(patch).length) this.setData(patch)
        this._runClock()
      }, wait)
      return
    }
    // 0:00: the server ends the game and pushes it; ask once in case that push is lost.
    if (this._flagAsked) return
    this._flagAsked = true
    this._clockTimer = setTimeout(() => {
      this._clockTimer = null
      this._resync()
    }, FLAG_GRACE_MS)
  },

  _stopClock() {
    if (this._clockTimer) {
      clearTimeout(this._clockTimer)
      this._clockTimer = null
    }
  },

  // --- invite and waiting screen

  /** The share menu for a game a friend can open; hidden for games only this phone can see. */
  _offerShare(state) {
    if (text.isOnline(state) && !isOver(state)) {
      if (typeof wx.showShareMenu === 'function') wx.showShareMenu({menus: ['shareAppMessage']})
    } else if (typeof wx.hideShareMenu === 'function') {
      wx.hideShareMenu()
    }
  },

  /** The invite card (邀请好友 and the menu's 转发): opens this game with the seat-taking flag. */
  onShareAppMessage() {
    return shareCard(this._state)
  },

  /** 复制邀请: a sentence to paste in a chat, with the game's code (home's clipboard import opens it). */
  onCopyInvite() {
    wx.setClipboardData({data: inviteText(this._state)})
  },

  /** 取消 on the waiting screen: delete the game, after a confirmation, and go home. */
  onCancelGame() {
    if (this.data.pending) return Promise.resolve()
    return ask('取消对局？', '好友将无法再用这张邀请加入。', '取消对局').then(confirmed => {
      if (!confirmed) return null
      this.setData({pending: 'cancel'})
      return api.deleteGame(this._id).then(() => {
        this._pauseLive()
        this.setData({pending: ''})
        wx.reLaunch({url: '/pages/home/home'})
      }).catch(err => this._recover(err))
    })
  },

  // --- offers

  onTakeback() {
    const d = this.data
    if (!d.canTakeback || d.pending || d.unsent) return Promise.resolve()
    return ask('请求悔棋', '向对方请求悔棋？对方同意后退回。', '请求悔棋')
      .then(confirmed => (confirmed ? this._act('offer', () => api.takeback(this._id, 'offer')) : null))
  },

  onOfferDraw() {
    const d = this.data
    if (!d.canDraw || d.pending || d.unsent) return Promise.resolve()
    return ask('求和', '向对方提出和棋？', '求和')
      .then(confirmed => (confirmed ? this._act('offer', () => api.draw(this._id, 'offer')) : null))
  },

  /** The kind of the viewer's own pending offer, '' for none. */
  _ownOffer() {
    const d = this.data
    return d.takebackOut ? 'takeback' : d.drawOut ? 'draw' : d.rematchOut ? 'rematch' : ''
  },

  /** 撤回: take back one's own pending offer. */
  onWithdrawOffer() {
    const kind = this._ownOffer()
    if (!kind) return Promise.resolve()
    return this._offerAct('withdraw', kind, 'withdraw')
  },

  onOfferAccept() {
    return this._answerOffer('accept')
  },

  onOfferDecline() {
    return this._answerOffer('decline')
  },

  _answerOffer(action) {
    const kind = this.data.offerIn
    if (!kind) return Promise.resolve()
    if (kind === 'rematch' && action === 'accept') this._rematchAsked = true
    return this._offerAct('answer', kind, action)
  },

  /**
   * Send an offer's `action` as request `what`. An offer gone meanwhile
   * (withdrawn, answered or lapsed: 409 NO_OFFER) is no failure to recover
   * from: the dialog closes at once, a toast says why when the viewer was
   * answering, and the state is fetched again.
   */
  _offerAct(what, kind, action) {
    if (this.data.pending || this.data.unsent) return Promise.resolve()
    this.setData({pending: what})
    return api[kind](this._id, action).then(state => this._show(state)).catch(err => {
      if (err.code !== 'NO_OFFER') return this._recover(err)
      this.setData({offerIn: '', offerInLeft: ''})
      if (what === 'answer') toastError(err)
      return this._sync()
    })
  },

  // --- the end: the rematch, leaving

  /**
   * 再来一局 after the end of an online game: accept the opponent's pending
   * offer, or offer one (the opponent sees it now, or when they come back);
   * once a rematch was made, go to it.
   */
  _rematch() {
    const d = this.data
    if (d.rematchGameId) return Promise.resolve(this._moveToRematch(d.rematchGameId))
    if (d.offerIn === 'rematch') return this._answerOffer('accept')
    if (d.rematchOut || !d.you) return Promise.resolve()
    this._rematchAsked = true
    return this._offerAct('offer', 'rematch', 'offer')
  },

  /** Open the rematch's game in place of this one (once: a push and an answer may both name it). */
  _moveToRematch(id) {
    if (this._movedOn) return
    this._movedOn = true
    this._pauseLive()
    wx.redirectTo({url: `/pages/game/game?id=${encodeURIComponent(id)}`})
  },

  /**
   * Ask before the back button leaves a game in play the viewer sits in
   * (where the phone has wx.enableAlertBeforeUnload); no question otherwise.
   */
  _guardLeave(state) {
    const guard = !!state.you && isPlaying(state) && !this._movedOn
    if (guard === !!this._leaveGuarded) return
    this._leaveGuarded = guard
    if (guard && typeof wx.enableAlertBeforeUnload === 'function') {
      wx.enableAlertBeforeUnload({message: `${text.LEAVE_TEXT}，对方会等你回来`, fail: () => {}})
    } else if (!guard && typeof wx.disableAlertBeforeUnload === 'function') {
      wx.disableAlertBeforeUnload({fail: () => {}})
    }
  },

  /**
   * 离开: out of a game in play only after a question — 暂时离开 (the clock
   * runs on; the game waits in the continue list) or 认输, the honest
   * alternative; anywhere else at once.
   */
  onLeave() {
    const d = this.data
    if (!(d.online && d.you && !d.over && !d.waiting)) return Promise.resolve(this._leave())
    return new Promise(resolve => {
      wx.showActionSheet({
        alertText: text.LEAVE_TEXT,
        itemList: text.LEAVE_CHOICES,
        itemColor: '#3b2a14',
        success: res => resolve(res.tapIndex),
        fail: () => resolve(-1),
      })
    }).then(choice => {
      if (choice === 0) return this._leave()
      if (choice === 1) return this._act('resign', () => api.resign(this._id))
      return null
    })
  },

  /** Back to the page before (home), or home when this page is the first. */
  _leave() {
    this._guardLeave({status: 'left'})
    wx.navigateBack({fail: () => wx.reLaunch({url: '/pages/home/home'})})
  },

  // --- offer countdowns

  /**
   * The time left of the opponent's and one's own pending offer, as shown,
   * for those that differ from the page; counted from the arrival of the
   * state that carried `expiresInMs`.
   */
  _offerLeftPatch(now) {
    return this._changed({
      offerInLeft: this._offerLeft(this.data.offerIn, now),
      offerOutLeft: this._offerLeft(this._ownOffer(), now),
    })
  },

  _offerLeftMs(kind, now) {
    const offer = kind && this._state && this._state.offers && this._state.offers[kind]
    if (!offerBy(offer) || typeof offer.expiresInMs !== 'number') return null
    return offer.expiresInMs - (now - this._stateAt)
  },

  _offerLeft(kind, now) {
    const left = this._offerLeftMs(kind, now)
    return left === null ? '' : clockText(left)
  },

  /** Arm the one countdown timer for when a pending offer's time left next changes. */
  _runOffers() {
    this._stopOffers()
    if (!this._visible || !this._state) return
    const now = Date.now()
    const patch = this._offerLeftPatch(now)
    if (Object.keys(patch).length) this.setData(patch)
    const lefts = [this.data.offerIn, this._ownOffer()].map(kind => this._offerLeftMs(kind, now)).filter(l => l !== null)
    if (!lefts.length) return
    const left = Math.min(...lefts)
    if (left > 0) {
      // Just past the next whole second, as the clocks do.
      this._offerTimer = setTimeout(() => {
        this._offerTimer = null
        this._runOffers()
      }, left - (Math.ceil(left / 1000) - 1) * 1000 + 5)
      return
    }
    // 0:00: the server drops a lapsed offer; ask once in case no news comes.
    if (this._offerAsked) return
    this._offerAsked = true
    this._offerTimer = setTimeout(() => {
      this._offerTimer = null
      this._resync()
    }, OFFER_GRACE_MS)
  },

  _stopOffers() {
    if (this._offerTimer) {
      clearTimeout(this._offerTimer)
      this._offerTimer = null
    }
  },
}

module.exports = {onlineActions, ONLINE_DATA, FLAG_GRACE_MS, OFFER_GRACE_MS}
