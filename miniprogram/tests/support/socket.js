/**
 * wx.connectSocket over a real WebSocket (npm `ws`), for the end-to-end
 * tests: a SocketTask with WeChat's shape — onOpen, onMessage ({data} as
 * text), onError ({errMsg}), onClose ({code, reason}), send, close — that
 * sends the options' `header` (the bearer token) on the upgrade. A refused
 * upgrade (401, 404, 429) or a dead server shows as an error and then a
 * close with 1006, as WeChat reports it.
 */
const WebSocket = require('ws')

function wsSocket(options) {
  const handlers = {open: [], message: [], error: [], close: []}
  const emit = (kind, res) => handlers[kind].slice().forEach(cb => cb(res))
  const ws = new WebSocket(options.url, options.protocols || [], {headers: options.header || {}})
  let closed = false
  ws.on('open', () => emit('open', {header: {}}))
  ws.on('message', (data, isBinary) => emit('message', {data: isBinary ? data : data.toString('utf8')}))
  ws.on('error', err => emit('error', {errMsg: `connectSocket:fail ${err.message}`}))
  ws.on('close', (code, reason) => {
    closed = true
    emit('close', {code, reason: reason.toString('utf8')})
  })
  const task = {
    url: options.url,
    header: options.header || {},
    ws,
    onOpen: cb => { handlers.open.push(cb) },
    onMessage: cb => { handlers.message.push(cb) },
    onError: cb => { handlers.error.push(cb) },
    onClose: cb => { handlers.close.push(cb) },
    send: ({data, success, fail}) => ws.send(data, err => (err ? fail && fail({errMsg: err.message}) : success && success({}))),
    close: ({code = 1000, reason = ''} = {}) => {
      if (closed) return
      if (ws.readyState === WebSocket.CONNECTING) ws.terminate()
      else ws.close(code, reason)
    },
    /** Whether the socket is open now (tests wait for it). */
    get isOpen() {
      return ws.readyState === WebSocket.OPEN
    },
  }
  return task
}

module.exports = {wsSocket}
