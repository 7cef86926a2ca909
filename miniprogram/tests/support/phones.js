/**
 * Several phones in one Jest process, for the end-to-end tests of play
 * against a friend: each phone is its own `wx` (tests/support/wx.js) — its
 * own storage and so its own session token, its own requests over real HTTP,
 * its own real WebSockets, toasts and modals — and the pages it opens.
 *
 * The app's code calls the global `wx`. Here that global forwards to the wx
 * of the phone whose work is running, which an AsyncLocalStorage carries
 * through every promise, timer and socket event that work starts: a page
 * opened with `phone.open()`, a tap made with `phone.run()`, and whatever
 * those set off later (a socket message, a reconnection timer, a clock tick)
 * all reach their own phone. A call with no phone behind it throws, so a
 * leak between phones fails the test instead of passing unnoticed.
 */
const {AsyncLocalStorage} = require('async_hooks')
const {createWx} = require('./wx')
const {httpTransport} = require('./http')
const {wsSocket} = require('./socket')
const {openPage} = require('./harness')

const current = new AsyncLocalStorage()

/** Make the global `wx` the running phone's (once per test file). */
function installPhones() {
  global.wx = new Proxy({}, {
    get(target, key) {
      const phone = current.getStore()
      if (!phone) throw new Error(`wx.${String(key)} called outside any phone`)
      return phone.wx[key]
    },
  })
}

/**
 * A phone named `name` (for messages) with its own wx, whose requests go
 * over real HTTP and whose sockets are real WebSockets.
 */
function createPhone(name, {transport = httpTransport} = {}) {
  const phone = {
    name,
    wx: createWx(transport, {socket: wsSocket}),
    /** Run `fn` (and everything it starts) as this phone. */
    run(fn) {
      return current.run(phone, fn)
    },
    /** Open a page on this phone (onLoad and onShow, as the framework does). */
    open(pageId, query) {
      return phone.run(() => openPage(pageId, query))
    },
    get rec() {
      return phone.wx.rec
    },
  }
  return phone
}

module.exports = {installPhones, createPhone}
