/**
 * The game service's API: the one module that knows every endpoint.
 *
 * Pages call these functions and get promises of the server's JSON. The
 * session token is kept in storage, so closing and reopening the app resumes
 * the same player and therefore the same saved games. When the server no
 * longer knows the token (401, e.g. a fresh database) a new session is made
 * once and the call retried.
 */
const {request} = require('./request')

const TOKEN_KEY = 'gomoku.session'
const PREFIX = '/api/v1'

let _pendingSession = null

function _storedSession() {
  try {
    const s = wx.getStorageSync(TOKEN_KEY)
    return s && s.token ? s : null
  } catch (e) {
    return null
  }
}

function _loginCode() {
  return new Promise(resolve => {
    if (typeof wx.login !== 'function') {
      resolve(null)
      return
    }
    wx.login({
      success: res => resolve(res && res.code ? res.code : null),
      fail: () => resolve(null),
    })
  })
}

/** POST /api/v1/sessions → {token, playerId}; the code of wx.login is sent when there is one. */
function createSession() {
  return _loginCode()
    .then(code => request({method: 'POST', path: `${PREFIX}/sessions`, data: code ? {code} : {}}))
    .then(session => {
      wx.setStorageSync(TOKEN_KEY, {token: session.token, playerId: session.playerId})
      return session
    })
}

/** The stored session, or a new one (concurrent callers share one request). */
function ensureSession() {
  const stored = _storedSession()
  if (stored) return Promise.resolve(stored)
  if (!_pendingSession) {
    _pendingSession = createSession().then(
      s => { _pendingSession = null; return s },
      e => { _pendingSession = null; throw e },
    )
  }
  return _pendingSession
}

function _authed(method, path, data, retried) {
  return ensureSession().then(session => request({method, path: PREFIX + path, data, token: session.token}))
    .catch(err => {
      if (err.code === 'UNAUTHORIZED' && !retried) {
        wx.removeStorageSync(TOKEN_KEY)
        return _authed(method, path, data, true)
      }
      throw err
    })
}

function _id(id) {
  return encodeURIComponent(id)
}

/** POST /games {mode, rule, boardSize, ai?} → 201 game state. */
function createGame(settings) {
  return _authed('POST', '/games', settings)
}

/** GET /games?status&limit&cursor → {games: [summary], nextCursor}. */
function listGames({status, limit = 20, cursor} = {}) {
  const query = {limit}
  if (status) query.status = status
  if (cursor) query.cursor = cursor
  return _authed('GET', '/games', query)
}

/** GET /games/{id} → game state. */
function getGame(id) {
  return _authed('GET', `/games/${_id(id)}`)
}

/** DELETE /games/{id} → null (204). */
function deleteGame(id) {
  return _authed('DELETE', `/games/${_id(id)}`)
}

/** POST /games/{id}/moves {row, col, ply} → game state (with the AI's reply in AI mode). */
function playMove(id, row, col, ply) {
  return _authed('POST', `/games/${_id(id)}/moves`, {row, col, ply})
}

/** POST /games/{id}/undo → game state. */
function undo(id) {
  return _authed('POST', `/games/${_id(id)}/undo`)
}

/** POST /games/{id}/resign → game state. */
function resign(id) {
  return _authed('POST', `/games/${_id(id)}/resign`)
}

/** GET /games/{id}/hint → {row, col, reason} for the player to move. */
function hint(id) {
  return _authed('GET', `/games/${_id(id)}/hint`)
}

/** GET /games/{id}/replay → {boardSize, rule, moveCount, moves, status, winner, winLine}. */
function replay(id) {
  return _authed('GET', `/games/${_id(id)}/replay`)
}

/** GET /games/{id}/replay?step=N → the frame after N moves. */
function replayFrame(id, step) {
  return _authed('GET', `/games/${_id(id)}/replay`, {step})
}

/** GET /games/{id}/export → the game record (version gomoku-1.0). */
function exportGame(id) {
  return _authed('GET', `/games/${_id(id)}/export`)
}

/** POST /games/import with a game record → 201 state of a new local game. */
function importGame(record) {
  return _authed('POST', '/games/import', record)
}

module.exports = {
  TOKEN_KEY,
  createSession,
  ensureSession,
  createGame,
  listGames,
  getGame,
  deleteGame,
  playMove,
  undo,
  resign,
  hint,
  replay,
  replayFrame,
  exportGame,
  importGame,
}
