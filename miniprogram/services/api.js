/**
 * The game service's API: the one module that knows every endpoint.
 *
 * Pages call these functions and get promises of the server's JSON. The
 * session ({token, playerId}) is kept in storage, so closing and reopening the
 * app resumes the same player and therefore the same saved games.
 *
 * Sessions end (idle too long: 401 SESSION_EXPIRED) or vanish (the server's
 * database was replaced: 401 UNAUTHORIZED). Either way the request is repeated
 * once after a renewal: POST /sessions with the old token as `previousToken`,
 * which the server answers with the same player while it still can (every
 * game kept, nothing said), or with a new player, which the app says once.
 * Requests failing together with the same old token share one renewal.
 *
 * An online game's news comes over a WebSocket (openLive), and the player's
 * own news (a pairing from the pool) over another (openPlayerLive); both
 * connections are kept by services/live.js.
 */
const config = require('../config')
const {request} = require('./request')

const TOKEN_KEY = 'gomoku.session'
const PREFIX = '/api/v1'
/** Said once when a renewal brought a different player: the old games stay with the old one. */
const NEW_PLAYER_NOTICE = '登录已失效，已开始新的会话；之前的棋局在此服务器上已不可用'
/** The codes that mean "this token no longer opens a session". */
const SESSION_LOST = new Set(['SESSION_EXPIRED', 'UNAUTHORIZED'])

let _pendingSession = null
// The renewal under way, for the token it replaces: concurrent failures join it.
let _renewal = null

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

/**
 * POST /api/v1/sessions → {token, playerId}, stored. The code of wx.login is
 * sent when there is one, and `previousToken` when renewing.
 */
function createSession(previousToken) {
  return _loginCode()
    .then(code => {
      const body = {}
      if (code) body.code = code
      if (previousToken) body.previousToken = previousToken
      return request({method: 'POST', path: `${PREFIX}/sessions`, data: body})
    })
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

/** Say once that the games of the old session are out of reach; the app goes on. */
function _sayNewPlayer() {
  wx.showModal({title: '提示', content: NEW_PLAYER_NOTICE, showCancel: false, confirmText: '知道了'})
}

/**
 * Replace the session whose token `old` was refused. Resolves with the session
 * to use from now on; only the caller that started the renewal reports a new player.
 */
function _renew(old) {
  const stored = _storedSession()
  // Someone renewed already: use theirs.
  if (stored && stored.token !== old.token) return Promise.resolve(stored)
  if (_renewal && _renewal.token === old.token) return _renewal.promise
  const promise = createSession(old.token).then(session => {
    if (old.playerId && session.playerId !== old.playerId) _sayNewPlayer()
    return session
  })
  _renewal = {token: old.token, promise}
  const done = () => { if (_renewal && _renewal.promise === promise) _renewal = null }
  promise.then(done, done)
  return promise
}

function _authed(method, path, data) {
  return ensureSession().then(session =>
    request({method, path: PREFIX + path, data, token: session.token}).catch(err => {
      if (!SESSION_LOST.has(err.code)) throw err
      return _renew(session).then(renewed => request({method, path: PREFIX + path, data, token: renewed.token}))
    }))
}

function _id(id) {
  return encodeURIComponent(id)
}

/**
 * POST /games {mode, rule, boardSize, ai?} → 201 game state; an online game
 * ({mode: 'online', seat, timeControl?}) starts `waiting` for the friend.
 */
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

/**
 * POST /games/{id}/analysis → the post-game analysis {status, progress,
 * moveCount, moves: [{ply, eval, best, bestEval, mark}], outdated}: started
 * (202, status running) or already done (200). Only the game's own players
 * may start it, an online game once it is over.
 */
function startAnalysis(id) {
  return _authed('POST', `/games/${_id(id)}/analysis`)
}

/** GET /games/{id}/analysis → the analysis as far as it has got; 404 ANALYSIS_NOT_FOUND before any. */
function getAnalysis(id) {
  return _authed('GET', `/games/${_id(id)}/analysis`)
}

/** GET /games/{id}/export → the game record (version gomoku-1.0). */
function exportGame(id) {
  return _authed('GET', `/games/${_id(id)}/export`)
}

/** POST /games/import with a game record → 201 state of a new local game. */
function importGame(record) {
  return _authed('POST', '/games/import', record)
}

/** GET /me → {playerId, name}: the name the other player sees. */
function getMe() {
  return _authed('GET', '/me')
}

/**
 * The player's display name (1–16 characters) → {playerId, name}. PUT, not
 * the contract's PATCH: wx.request has no PATCH method (it offers OPTIONS,
 * GET, HEAD, POST, PUT, DELETE, TRACE and CONNECT), and {name} is the whole
 * of what may be written.
 */
function setName(name) {
  return _authed('PUT', '/me', {name})
}

/** POST /games/{id}/join → the state with the caller seated (harmless when seated already). */
function joinGame(id) {
  return _authed('POST', `/games/${_id(id)}/join`)
}

/**
 * The answers to an offer, the body's `action` of takeback, draw and rematch:
 * offer, accept or decline the opponent's, withdraw one's own. Accept,
 * decline and withdraw with nothing pending (withdrawn, answered or expired
 * meanwhile) are 409 NO_OFFER; an offer while the opponent's of that kind
 * waits is 409 OFFER_PENDING.
 */
const OFFER_ACTIONS = ['offer', 'accept', 'decline', 'withdraw']

function _offer(id, kind, action) {
  if (!OFFER_ACTIONS.includes(action)) return Promise.reject(new Error(`unknown offer action ${action}`))
  return _authed('POST', `/games/${_id(id)}/${kind}`, {action})
}

/** POST /games/{id}/takeback {action} → state. */
function takeback(id, action) {
  return _offer(id, 'takeback', action)
}

/** POST /games/{id}/draw {action} → state. */
function draw(id, action) {
  return _offer(id, 'draw', action)
}

/**
 * POST /games/{id}/rematch {action} → state of the finished game; once an
 * offer is accepted its `rematchGameId` names the new game (colours swapped,
 * both seated). During play: 409 GAME_NOT_OVER.
 */
function rematch(id, action) {
  return _offer(id, 'rematch', action)
}

/** POST /games/{id}/opening with one opening step ({step: 'place', row, col} …) → the new state. */
function openingStep(id, step) {
  return _authed('POST', `/games/${_id(id)}/opening`, step)
}

// --- The pool, ratings and puzzles (issue 26)

/** GET /pools → {pools: [{pool, rule, boardSize, timeControl, waiting}]}, in the server's fixed order. */
function listPools() {
  return _authed('GET', '/pools')
}

/**
 * POST /seeks {rule, boardSize, timeControl} → {seek}: wait in that pool
 * (201, or 200 with the seek already there). Another pool's seek is 409
 * ALREADY_SEEKING. The seek lives as long as the player's live channel.
 */
function startSeek(pool) {
  return _authed('POST', '/seeks', {rule: pool.rule, boardSize: pool.boardSize, timeControl: pool.timeControl})
}

/** DELETE /seeks → null (204, also when there was none). */
function cancelSeek() {
  return _authed('DELETE', '/seeks')
}

/** GET /leaderboard?rule= → {family, players: [{place, playerId, name, rating}]}. */
function leaderboard(rule) {
  return _authed('GET', '/leaderboard', {rule})
}

/** GET /players/{id} → the player card: {playerId, name, ratings, puzzle, recent}. */
function getPlayer(playerId) {
  return _authed('GET', `/players/${_id(playerId)}`)
}

/** GET /puzzles/daily → the day's puzzle (a PuzzleView with the player's attempt). */
function dailyPuzzle() {
  return _authed('GET', '/puzzles/daily')
}

/** GET /puzzles/next → a puzzle near the player's puzzle rating. */
function nextPuzzle(rule) {
  return _authed('GET', '/puzzles/next', rule ? {rule} : undefined)
}

/** GET /puzzles/{id} → the puzzle with the player's attempt. */
function getPuzzle(id) {
  return _authed('GET', `/puzzles/${_id(id)}`)
}

/** POST /puzzles/{id}/moves {row, col} → the puzzle after the attacker's move and the server's defence. */
function puzzleMove(id, row, col) {
  return _authed('POST', `/puzzles/${_id(id)}/moves`, {row, col})
}

/** POST /puzzles/{id}/retry → a fresh attempt (unrated after the first). */
function retryPuzzle(id) {
  return _authed('POST', `/puzzles/${_id(id)}/retry`)
}

/** The WebSocket URL of a game's live stream: the base URL with ws(s) for http(s). */
function liveUrl(id) {
  return `${config.baseUrl.replace(/^http/, 'ws')}${PREFIX}/games/${_id(id)}/live`
}

/**
 * Open GET /games/{id}/live as a WebSocket with the session's bearer token
 * (wx.connectSocket sends the header on the upgrade) → a promise of the
 * SocketTask, whose messages are `{type: 'state', game}` and
 * `{type: 'presence', black, white, spectators}`. A refused upgrade (401,
 * 404) only shows as the task's error and close: the caller falls back to a
 * REST request, which renews the session when that was the cause.
 */
function openLive(id) {
  return ensureSession().then(session => wx.connectSocket({
    url: liveUrl(id),
    header: {Authorization: `Bearer ${session.token}`},
    tcpNoDelay: true,
    fail: () => {}, // reported through the task's onError/onClose as well
  }))
}

/** The WebSocket URL of the player's own channel (pairings from the pool). */
function playerLiveUrl() {
  return `${config.baseUrl.replace(/^http/, 'ws')}${PREFIX}/live`
}

/**
 * Open GET /live, the player's own news, as a WebSocket with the session's
 * bearer token → a promise of the SocketTask, whose messages are `{type:
 * 'hello', seek}`, `{type: 'paired', gameId, pool, you}` and `{type:
 * 'seekEnded', reason}`. While it is open a seek stays in its pool.
 */
function openPlayerLive() {
  return ensureSession().then(session => wx.connectSocket({
    url: playerLiveUrl(),
    header: {Authorization: `Bearer ${session.token}`},
    tcpNoDelay: true,
    fail: () => {},
  }))
}

module.exports = {
  TOKEN_KEY,
  NEW_PLAYER_NOTICE,
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
  startAnalysis,
  getAnalysis,
  exportGame,
  importGame,
  getMe,
  setName,
  joinGame,
  takeback,
  draw,
  rematch,
  OFFER_ACTIONS,
  liveUrl,
  openLive,
  openingStep,
  listPools,
  startSeek,
  cancelSeek,
  leaderboard,
  getPlayer,
  dailyPuzzle,
  nextPuzzle,
  getPuzzle,
  puzzleMove,
  retryPuzzle,
  playerLiveUrl,
  openPlayerLive,
}
