/**
 * The single wx.request wrapper.
 *
 * wx.request calls `success` for every HTTP status and `fail` only when no
 * response came back, so this wrapper turns both a status >= 400 and a
 * network failure into a rejected promise carrying a `RequestError` with the
 * server's error code (or NETWORK_ERROR). Everything else in the app talks to
 * the service through `services/api.js`, which is built on this.
 */
const config = require('../config')

/** Error code used when no HTTP response arrived (server down, no network, timeout). */
const NETWORK_ERROR = 'NETWORK_ERROR'

/** The methods wx.request can send (it has no PATCH): anything else is a mistake in the app. */
const METHODS = new Set(['GET', 'POST', 'PUT', 'DELETE'])

class RequestError extends Error {
  /**
   * @param {string} code   the server's error code, e.g. CELL_OCCUPIED
   * @param {number} status HTTP status, 0 when no response arrived
   * @param {string} message the server's message (English, for logs)
   * @param {object} details every other field of the error body (kind, moveIndex…)
   */
  constructor(code, status, message, details) {
    super(message || code)
    this.name = 'RequestError'
    this.code = code
    this.status = status
    this.details = details || {}
  }
}

function _errorFromResponse(res) {
  const body = res.data && typeof res.data === 'object' ? res.data : {}
  const err = body.error && typeof body.error === 'object' ? body.error : {}
  const {code, message, ...details} = err
  return new RequestError(code || `HTTP_${res.statusCode}`, res.statusCode, message || '', details)
}

/**
 * Send one request to the service.
 * @param {object} options
 * @param {string} options.method  GET, POST, PUT or DELETE
 * @param {string} options.path    path under the base URL, e.g. /api/v1/games
 * @param {object} [options.data]  JSON body (POST) or query (GET)
 * @param {string} [options.token] bearer token
 * @returns {Promise<any>} the parsed body (null for 204)
 */
function request({method = 'GET', path, data, token}) {
  if (!METHODS.has(method)) return Promise.reject(new Error(`wx.request cannot send ${method}`))
  const header = {}
  if (token) header.Authorization = `Bearer ${token}`
  const hasBody = method !== 'GET' && data !== undefined
  if (hasBody) header['Content-Type'] = 'application/json'
  return new Promise((resolve, reject) => {
    wx.request({
      url: config.baseUrl + path,
      method,
      data: method === 'GET' ? data : hasBody ? data : undefined,
      header,
      dataType: 'json',
      timeout: config.timeout,
      success(res) {
        if (res.statusCode >= 400) reject(_errorFromResponse(res))
        else resolve(res.statusCode === 204 ? null : res.data)
      },
      fail(res) {
        reject(new RequestError(NETWORK_ERROR, 0, (res && res.errMsg) || 'request:fail', {}))
      },
    })
  })
}

module.exports = {request, RequestError, NETWORK_ERROR}
