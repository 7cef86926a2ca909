/**
 * A scripted SocketTask for unit tests, made by wx.connectSocket in the test
 * `wx` (tests/support/wx.js): it records the url and header it was opened
 * with and whether the page closed it, and the test plays the server —
 * `open()`, `receive(message)` (an object, sent as JSON text), `drop()` (an
 * error and a close, as a lost connection or a refused upgrade shows in
 * WeChat). Events are delivered at once, synchronously.
 */
function fakeSocket(options) {
  const handlers = {open: [], message: [], error: [], close: []}
  const emit = (kind, res) => handlers[kind].slice().forEach(cb => cb(res))
  const task = {
    url: options.url,
    header: options.header || {},
    closed: false,
    sent: [],
    onOpen: cb => { handlers.open.push(cb) },
    onMessage: cb => { handlers.message.push(cb) },
    onError: cb => { handlers.error.push(cb) },
    onClose: cb => { handlers.close.push(cb) },
    send: ({data}) => { task.sent.push(data) },
    close: ({code = 1000, reason = ''} = {}) => {
      if (task.closed) return
      task.closed = true
      emit('close', {code, reason})
    },
    // The test's side: the server.
    open() {
      emit('open', {header: {}})
    },
    receive(message) {
      emit('message', {data: JSON.stringify(message)})
    },
    drop() {
      if (task.closed) return
      task.closed = true
      emit('error', {errMsg: 'connectSocket:fail'})
      emit('close', {code: 1006, reason: ''})
    },
  }
  return task
}

module.exports = {fakeSocket}
