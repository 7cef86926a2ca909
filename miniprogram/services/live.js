/**
 * The live connections: one WebSocket to an online game's `/live` stream
 * (services/api.js openLive) while its page is shown, and the player's own
 * channel `/api/v1/live` (openPlayerLive) while home waits in the pool —
 * both with reconnection when they drop.
 *
 * The socket only brings news: every `state` message is the whole game with
 * its `version`, so a page that missed messages, or reconnected, is right
 * again with the next one (the server sends the current state first on every
 * connection). Writes stay REST requests, whether the socket is up or not.
 *
 * After a close or an error it reconnects with backoff — 1, 2, 4 … 30 s —
 * and says so (`onStatus('down')`) so the page can show its banner and fetch
 * the state over REST meanwhile; `reconnectNow()` (the page shown again, the
 * network back) skips the wait. A connection counts as working once its
 * first message arrives, which resets the backoff. `stop()` closes the
 * socket and clears the timer: nothing is left running.
 */
const api = require('./api')

/** The backoff: 1 s after the first failure, doubling, at most 30 s. */
const FIRST_DELAY_MS = 1000
const MAX_DELAY_MS = 30000

function backoffMs(failures) {
  return Math.min(MAX_DELAY_MS, FIRST_DELAY_MS * 2 ** Math.max(0, failures - 1))
}

/**
 * One socket kept open with reconnection: `open()` makes a promise of a
 * SocketTask, `onMessage(msg)` gets each parsed message, `onStatus` says
 * 'live' (the first message of a connection) and 'down' (once per outage).
 */
function _channel(open, onMessage, onStatus) {
  let running = false
  let task = null // the socket task in use, or null
  let timer = null // the pending reconnection, or null
  let failures = 0 // connections lost or refused since the last one that worked
  let live = false // whether the current socket has delivered a message

  function _clearTimer() {
    if (timer !== null) {
      clearTimeout(timer)
      timer = null
    }
  }

  function _close() {
    const old = task
    task = null
    live = false
    // Its events are ignored from here on: `task` no longer names it.
    if (old) old.close({code: 1000, reason: 'page hidden', fail: () => {}})
  }

  function _down(which) {
    if (which !== task) return // an old socket's late event
    task = null
    live = false
    if (!running) return
    failures += 1
    // Said once per outage: the retries that follow change nothing on screen.
    if (failures === 1) onStatus('down')
    _clearTimer()
    timer = setTimeout(() => {
      timer = null
      _connect()
    }, backoffMs(failures))
  }

  function _message(which, res) {
    if (which !== task) return
    let msg
    try {
      msg = JSON.parse(res.data)
    } catch (e) {
      return // not ours: ignored, as the server ignores what it does not expect
    }
    if (!live) {
      live = true
      failures = 0
      onStatus('live')
    }
    onMessage(msg)
  }

  function _connect() {
    _clearTimer()
    const placeholder = {close: () => {}}
    // Until the session is known and the socket made, a stop() or a newer connect must win.
    task = placeholder
    open().then(socket => {
      if (task !== placeholder) {
        socket.close({code: 1000, reason: 'superseded', fail: () => {}})
        return
      }
      task = socket
      socket.onMessage(res => _message(socket, res))
      socket.onError(() => _down(socket))
      socket.onClose(() => _down(socket))
    }, () => _down(placeholder))
  }

  return {
    /** Connect (the page is shown); a connection already there or under way is kept. */
    start() {
      running = true
      if (!task && timer === null) _connect()
    },

    /** Close the socket and cancel any reconnection (the page is hidden or closed). */
    stop() {
      running = false
      _clearTimer()
      _close()
      failures = 0
    },

    /**
     * Make a fresh connection at once, without waiting for the backoff: the
     * network is back or changed, and an old socket may be dead without
     * knowing it yet.
     */
    reconnectNow() {
      if (!running) return
      _clearTimer()
      _close()
      _connect()
    },

    /** Whether a socket is up and has delivered a message. */
    get live() {
      return live
    },
  }
}

/**
 * @param {string} gameId
 * @param {object} handlers
 * @param {function} handlers.onState    (game) for each `state` message
 * @param {function} handlers.onPresence ({black, white, spectators}) for each `presence` message
 * @param {function} handlers.onStatus   ('live' | 'down') when the connection comes up or is lost
 */
function createLive(gameId, {onState, onPresence, onStatus}) {
  return _channel(() => api.openLive(gameId), msg => {
    if (msg.type === 'state' && msg.game) onState(msg.game)
    else if (msg.type === 'presence') onPresence(msg)
  }, onStatus)
}

/**
 * The player's own channel, kept open while home waits in the pool (the
 * server drops a seek with the player's last connection, so a reconnection
 * matters: the `hello` after it says whether the seek is still there).
 * @param {object} handlers
 * @param {function} handlers.onHello     (seek | null) on each connection
 * @param {function} handlers.onPaired    ({gameId, pool, you}) when the pool paired the player
 * @param {function} handlers.onSeekEnded (reason) when the seek went otherwise
 * @param {function} handlers.onStatus    ('live' | 'down')
 */
function createPlayerLive({onHello, onPaired, onSeekEnded, onStatus}) {
  return _channel(() => api.openPlayerLive(), msg => {
    if (msg.type === 'hello') onHello(msg.seek || null)
    else if (msg.type === 'paired' && msg.gameId) onPaired(msg)
    else if (msg.type === 'seekEnded') onSeekEnded(msg.reason)
  }, onStatus)
}

module.exports = {createLive, createPlayerLive, backoffMs, FIRST_DELAY_MS, MAX_DELAY_MS}
