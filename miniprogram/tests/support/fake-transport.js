/**
 * A scripted wx.request transport for unit tests: each request is answered
 * asynchronously by the first route whose method and path match, or by a
 * network failure when the test says the server is down.
 */
function fakeTransport() {
  const routes = []
  const state = {down: false, calls: []}

  function transport(options) {
    const method = (options.method || 'GET').toUpperCase()
    const url = new URL(options.url)
    state.calls.push({method, path: url.pathname, data: options.data, header: options.header || {}})
    setTimeout(() => {
      if (state.down) {
        options.fail({errMsg: 'request:fail connect ECONNREFUSED'})
        return
      }
      const route = routes.find(r => r.method === method && (r.path instanceof RegExp ? r.path.test(url.pathname) : r.path === url.pathname))
      if (!route) {
        options.success({statusCode: 404, data: {error: {code: 'NOT_ROUTED', message: `${method} ${url.pathname}`}}, header: {}})
        return
      }
      const [statusCode, data] = route.reply(options, url)
      options.success({statusCode, data, header: {}})
    }, 0)
  }

  transport.on = (method, path, reply) => {
    routes.unshift({method, path, reply})
    return transport
  }
  transport.state = state
  /** The requests sent so far with this method and a path ending in `suffix`. */
  transport.calls = (method, suffix) => state.calls.filter(c => c.method === method && c.path.endsWith(suffix))
  return transport
}

/**
 * The usual set-up of a page's unit test: a scripted transport that already
 * answers POST /sessions, installed as the global wx. Returns {transport, wx}.
 */
function installScripted() {
  const {install} = require('./wx')
  const transport = fakeTransport()
  transport.on('POST', '/api/v1/sessions', () => [201, {token: 't', playerId: 'p'}])
  return {transport, wx: install(transport)}
}

module.exports = {fakeTransport, installScripted}
