/**
 * A wx.request transport over real HTTP (Node's http), behaving as the
 * WeChat runtime does: GET data becomes the query string, other data is
 * sent as JSON, `success` is called for every HTTP status with the body
 * parsed as JSON when it parses, and `fail` only when no response arrives.
 */
const http = require('http')

function _query(data) {
  if (!data || typeof data !== 'object') return ''
  const parts = Object.keys(data)
    .filter(k => data[k] !== undefined && data[k] !== null)
    .map(k => `${encodeURIComponent(k)}=${encodeURIComponent(data[k])}`)
  return parts.length ? `?${parts.join('&')}` : ''
}

function httpTransport(options) {
  const method = (options.method || 'GET').toUpperCase()
  let url = options.url
  let body = null
  if (method === 'GET') url += _query(options.data)
  else if (options.data !== undefined) body = typeof options.data === 'string' ? options.data : JSON.stringify(options.data)
  const headers = Object.assign({}, options.header || {})
  if (body !== null) headers['Content-Length'] = Buffer.byteLength(body)
  const req = http.request(url, {method, headers, timeout: options.timeout || 60000}, res => {
    const chunks = []
    res.on('data', c => chunks.push(c))
    res.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8')
      let data = raw
      if (options.dataType !== 'text') {
        try {
          data = raw ? JSON.parse(raw) : ''
        } catch (e) {
          data = raw
        }
      }
      const result = {statusCode: res.statusCode, data, header: res.headers, errMsg: 'request:ok'}
      if (options.success) options.success(result)
      if (options.complete) options.complete(result)
    })
  })
  req.on('timeout', () => req.destroy(new Error('timeout')))
  req.on('error', err => {
    const result = {errMsg: `request:fail ${err.code || err.message}`}
    if (options.fail) options.fail(result)
    if (options.complete) options.complete(result)
  })
  if (body !== null) req.write(body)
  req.end()
  return {abort: () => req.destroy()}
}

/**
 * httpTransport, able to lose answers the way a mobile network does: after
 * `dropNext(method, pathPattern)` the next matching request still reaches the
 * server and is carried out there, but the app is told the request failed
 * (wx.request's `fail`, as on a timeout), so it cannot know whether it landed.
 */
function lossyTransport() {
  const drops = []
  function transport(options) {
    const method = (options.method || 'GET').toUpperCase()
    const path = new URL(options.url).pathname
    const i = drops.findIndex(d => d.method === method && d.path.test(path))
    if (i < 0) return httpTransport(options)
    drops.splice(i, 1)
    return httpTransport(Object.assign({}, options, {
      success: () => {
        const result = {errMsg: 'request:fail timeout'}
        if (options.fail) options.fail(result)
        if (options.complete) options.complete(result)
      },
    }))
  }
  transport.dropNext = (method, path) => { drops.push({method, path}) }
  transport.pendingDrops = () => drops.length
  return transport
}

module.exports = {httpTransport, lossyTransport}
