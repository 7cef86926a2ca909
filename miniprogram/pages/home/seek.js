/**
 * Home's 匹配 (a rated game with a stranger from the pool), mixed into
 * pages/home/home.js.
 *
 * - The pools come from GET /pools with how many wait in each, refreshed on
 *   show; one is chosen (the first by default).
 * - 开始匹配 opens the player's own channel (services/live.js
 *   createPlayerLive) and posts the seek; the card then shows the waiting
 *   state with the time waited and 取消 (DELETE /seeks, then the channel is
 *   closed: the server drops a seek with the player's last connection too).
 * - The channel reconnects with backoff when it drops; its `hello` says
 *   whether the seek outlived the outage, and a seek that did not is posted
 *   again (the player is still waiting, as far as the page is concerned).
 * - `paired` ends the waiting and opens the game page of the new game;
 *   `seekEnded` (cancelled elsewhere, or gone) ends it with a toast.
 */
const api = require('../../services/api')
const {createPlayerLive} = require('../../services/live')
const text = require('../../utils/text')
const {clockText} = require('../../utils/clock')
const {toastError} = require('../../utils/page-actions')

/** The page data 匹配 adds. */
const SEEK_DATA = {
  pools: [], // [{pool, label, waiting, waitingText}] in the server's order
  poolsError: '', // why the pools could not be loaded
  pool: '', // the chosen pool's key
  seeking: false, // waiting in the pool
  seekBusy: '', // the request in flight: '' none, 'start' or 'cancel'
  seekElapsed: '0:00', // how long the player has waited
  seekLinkDown: false, // the channel is lost and being re-opened
}

function _poolItem(p) {
  return {pool: p.pool, label: text.poolLabel(p), waiting: p.waiting || 0, waitingText: text.waitingText(p.waiting)}
}

const seekActions = {
  /** GET /pools: the pools with their waiting counts (quietly kept as they were when it fails). */
  _loadPools() {
    return api.listPools().then(res => {
      this._pools = res.pools || []
      const pools = this._pools.map(_poolItem)
      const chosen = pools.some(p => p.pool === this.data.pool) ? this.data.pool : (pools[0] ? pools[0].pool : '')
      this.setData({pools, pool: chosen, poolsError: ''})
    }).catch(err => {
      if (!this.data.pools.length) this.setData({poolsError: text.errorText(err)})
    })
  },

  onPoolTap(e) {
    const {pool} = e.currentTarget.dataset
    if (this.data.seeking || this.data.seekBusy || pool === this.data.pool) return
    this.setData({pool})
  },

  /** 开始匹配: the channel first (the seek lives with it), then the seek. */
  onSeek() {
    const pool = (this._pools || []).find(p => p.pool === this.data.pool)
    if (!pool || this.data.seeking || this.data.seekBusy) return Promise.resolve()
    this._seekPool = pool
    this._seekPosted = false
    this.setData({seekBusy: 'start'})
    this._openChannel()
    return this._postSeek().then(ok => {
      // Paired already (the news can overtake the answer) or cancelled meanwhile: nothing to wait for.
      if (!ok || !this._channel) return
      this._seekSince = Date.now()
      this.setData({seeking: true, seekBusy: '', seekElapsed: clockText(0)})
      this._tickSeek()
    })
  },

  /** POST /seeks for the chosen pool; on an error the channel is closed and a toast says why. */
  _postSeek() {
    return api.startSeek(this._seekPool).then(() => {
      this._seekPosted = true
      return true
    }).catch(err => {
      this._endWaiting()
      toastError(err)
      return false
    })
  },

  /** 取消: the seek removed, then the channel closed. */
  onCancelSeek() {
    if (!this.data.seeking || this.data.seekBusy) return Promise.resolve()
    this.setData({seekBusy: 'cancel'})
    return api.cancelSeek().catch(() => null).then(() => this._endWaiting())
  },

  _openChannel() {
    if (this._channel) this._channel.stop()
    this._channel = createPlayerLive({
      onHello: seek => this._onHello(seek),
      onPaired: msg => this._onPaired(msg),
      onSeekEnded: reason => this._onSeekEnded(reason),
      onStatus: status => {
        const down = status === 'down'
        if (down !== this.data.seekLinkDown) this.setData({seekLinkDown: down})
      },
    })
    this._channel.start()
  },

  /** Each connection's first news: a seek lost with an earlier connection is made again. */
  _onHello(seek) {
    if (!seek && this._seekPosted && this.data.seeking) this._postSeek()
  },

  _onPaired(msg) {
    if (!this._channel) return
    this._endWaiting()
    wx.navigateTo({url: `/pages/game/game?id=${encodeURIComponent(msg.gameId)}`})
  },

  _onSeekEnded(reason) {
    if (!this.data.seeking) return
    this._endWaiting()
    let news = '匹配已结束，请重新开始'
    if (reason === 'cancelled') news = '匹配已取消'
    else if (reason === 'tooManyGames') news = text.errorText({code: 'TOO_MANY_GAMES'})
    wx.showToast({title: news, icon: 'none'})
  },

  /** Stop waiting: the channel, the timer, and the waiting state. */
  _endWaiting() {
    if (this._channel) {
      this._channel.stop()
      this._channel = null
    }
    this._stopSeekTimer()
    this._seekPosted = false
    this.setData({seeking: false, seekBusy: '', seekLinkDown: false})
    // The counts changed with the player's own seek.
    this._loadPools()
  },

  /** The time waited, one setData a second. */
  _tickSeek() {
    this._stopSeekTimer()
    if (!this.data.seeking) return
    const waited = Date.now() - this._seekSince
    const shown = clockText(Math.floor(waited / 1000) * 1000)
    if (shown !== this.data.seekElapsed) this.setData({seekElapsed: shown})
    this._seekTimer = setTimeout(() => this._tickSeek(), 1000 - (waited % 1000) + 5)
  },

  _stopSeekTimer() {
    if (this._seekTimer) {
      clearTimeout(this._seekTimer)
      this._seekTimer = null
    }
  },

  /** The page is closed: nothing left running (the server drops the seek with the channel). */
  _seekUnload() {
    if (this._channel) this._channel.stop()
    this._channel = null
    this._stopSeekTimer()
  },

  onLeaderboard() {
    wx.navigateTo({url: '/pages/leaderboard/leaderboard'})
  },

  onPuzzles() {
    wx.navigateTo({url: '/pages/puzzles/puzzles'})
  },
}

module.exports = {seekActions, SEEK_DATA}
