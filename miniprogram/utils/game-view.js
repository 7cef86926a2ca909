/**
 * From the server's game state to the game page's data, and from one state
 * to the next as the smallest setData payload: unchanged fields are left
 * out, the board goes cell by cell ('board[7][8]': 1) once the page has one
 * of the same size, and points the board only looks up go as cell indices
 * (the last move is 112, a winning line "108 109 110 111 112"). An online
 * game adds the viewer's seat, presence and offers, a rated one the ratings
 * and ids on the player bars; a game with an opening rule adds the opening's
 * step while it lasts.
 */
const {diffBoard, sameSize, pointsKey, pointIndex, numbersFromMoves} = require('./board')
const {EMPTY, WHITE, isOver, isPlaying, isWaiting, opponentOf} = require('./game-state')
const text = require('./text')

/**
 * Whether the server would take back a move now: not in a resigned game, and
 * in an AI game only when one of the player's own moves is on the board. An
 * online game has no plain undo (a takeback is asked of the opponent).
 */
function canUndo(state) {
  if (state.mode === 'online' || state.endReason === 'resign') return false
  const moves = state.moveHistory || []
  if (state.mode === 'ai' && state.ai) return moves.some(m => m.player !== state.ai.player)
  return moves.length > 0
}

/** The colour that made an offer (the state's `{by, expiresInMs}`, or null), EMPTY for none. */
function offerBy(offer) {
  return (offer && offer.by) || EMPTY
}

/**
 * What an online game adds: the viewer's seat (0 for a spectator) and who
 * sits above the board, both players' presence, and the offers as the
 * viewer sees them: `offerIn` is the opponent's pending offer the viewer
 * must answer ('takeback', 'draw', after the end 'rematch', or ''),
 * `takebackOut`/`drawOut`/`rematchOut` the viewer's own, still unanswered.
 * After the end a player may ask for a rematch until one was made
 * (`rematchGameId`, the new game).
 */
function _onlineView(state) {
  const you = state.you || EMPTY
  const players = state.players || {}
  const offers = state.offers || {}
  const by = kind => offerBy(offers[kind])
  const playing = isPlaying(state)
  const opponent = you ? opponentOf(you) : EMPTY
  // The colour shown above the board: the opponent's (white for a spectator).
  const top = opponent || WHITE
  const rematchOpen = !!you && isOver(state) && !state.rematchGameId
  let offerIn = ''
  if (playing && opponent && by('takeback') === opponent) offerIn = 'takeback'
  else if (playing && opponent && by('draw') === opponent) offerIn = 'draw'
  else if (rematchOpen && by('rematch') === opponent) offerIn = 'rematch'
  const mine = (state.moveHistory || []).some(m => m.player === you)
  return {
    online: true,
    you,
    top,
    bottom: opponentOf(top),
    waiting: isWaiting(state),
    blackOnline: !!(players.black && players.black.online),
    whiteOnline: !!(players.white && players.white.online),
    offerIn,
    takebackOut: playing && !!you && by('takeback') === you,
    drawOut: playing && !!you && by('draw') === you,
    rematchOut: rematchOpen && by('rematch') === you,
    canTakeback: playing && !!you && mine && !by('takeback'),
    canDraw: playing && !!you && !by('draw'),
    rematchGameId: state.rematchGameId || '',
    // A rated game: each player's rating before it, and their id for the player card.
    blackRating: text.ratingText(players.black && players.black.rating),
    whiteRating: text.ratingText(players.white && players.white.rating),
    blackId: (state.rated && players.black && players.black.playerId) || '',
    whiteId: (state.rated && players.white && players.white.playerId) || '',
    rematchText: _rematchText(state, offerIn, rematchOpen && by('rematch') === you),
  }
}

/** The opening phases in which the viewer taps the board: a stone, a fifth-move offer, the pick. */
const BOARD_PHASES = ['place', 'offer', 'pick']

/**
 * The opening's step as the page shows it while it lasts (`openingOn`): the
 * banner's words, whether it is the viewer's to act (`openingMine`) and by
 * a tap on the board (`openingTap`), the zone to tint, the choices to offer,
 * how many fifth moves to offer, and the offered points to pick from.
 */
function openingView(state) {
  const o = state.opening
  if (!o || o.phase === 'done') {
    return {openingOn: false, openingText: '', openingMine: false, openingTap: false, openingPhase: '', openingZone: 0, openingChoices: [], openingCount: 0, openingOffers: []}
  }
  const mine = !!o.yourTurn && isPlaying(state)
  return {
    openingOn: true,
    openingText: text.openingText(state),
    openingMine: mine,
    openingTap: mine && BOARD_PHASES.includes(o.phase),
    openingPhase: o.phase,
    openingZone: o.phase === 'place' && o.zone ? o.zone.side : 0,
    openingChoices: mine && o.phase === 'choose' ? (o.options || []).map(value => ({value, label: text.OPENING_CHOICES[value] || value})) : [],
    openingCount: o.phase === 'offer' ? o.count : 0,
    openingOffers: o.phase === 'pick' ? (o.offers || []).map(p => ({row: p.row, col: p.col})) : [],
  }
}

/** The rematch button after an online game, by where the rematch stands. */
function _rematchText(state, offerIn, asked) {
  if (state.rematchGameId) return '进入新对局'
  if (offerIn === 'rematch') return '接受邀请'
  return asked ? '已邀请…' : '再来一局'
}

/** Every field the game page shows, from a full game state; `numbers` only when they are shown. */
function gameView(state, {numbers = false} = {}) {
  const over = isOver(state)
  const names = text.playerNames(state)
  const view = {
    gameId: state.id,
    board: state.board,
    last: pointIndex(state.boardSize, state.lastMove),
    winLine: pointsKey(state.boardSize, state.winLine),
    forbidden: state.forbiddenMoves || [],
    moveCount: state.moveCount,
    currentPlayer: state.currentPlayer,
    winner: state.winner || EMPTY,
    aiPlayer: state.mode === 'ai' && state.ai ? state.ai.player : EMPTY,
    over,
    canUndo: canUndo(state),
    statusText: text.statusText(state, false),
    rematchText: '再来一局', // against a friend, where the rematch stands (_onlineView)
    blackName: names.black,
    whiteName: names.white,
  }
  if (text.isOnline(state)) Object.assign(view, _onlineView(state))
  Object.assign(view, openingView(state))
  if (numbers) view.numbers = numbersFromMoves(state.boardSize, state.moveHistory || [])
  return view
}

/** What stays the same for the whole game: its title and settings, set once. */
function gameHeader(state) {
  return {
    title: text.shortTitle(state),
    details: text.gameDetails(state),
    ruleName: text.ruleLabel(state.rule),
  }
}

function _same(a, b) {
  return a === b || JSON.stringify(a) === JSON.stringify(b)
}

/**
 * The setData payload that turns `data` (what the page shows now) into the
 * view of `state`.
 */
function gamePatch(data, state, options = {}) {
  const next = gameView(state, options)
  const patch = {}
  Object.keys(next).forEach(key => {
    if (key === 'board' || key === 'numbers') return
    if (!_same(data[key], next[key])) patch[key] = next[key]
  })
  if (sameSize(data.board, next.board)) Object.assign(patch, diffBoard(data.board, next.board))
  else patch.board = next.board
  if (next.numbers) {
    if (sameSize(data.numbers, next.numbers)) Object.assign(patch, diffBoard(data.numbers, next.numbers, 'numbers'))
    else patch.numbers = next.numbers
  }
  return patch
}

/** An offer this close to its expiry when it went away is taken to have lapsed, not been answered. */
const LAPSE_SLACK_MS = 1000

/**
 * What the viewer of an online game is told when an offer went away between
 * two states ('' for nothing): the answer to their own offer, the opponent
 * withdrawing theirs, or either lapsing (`elapsedMs`, the time since `prev`
 * arrived, says whether its `expiresInMs` ran out meanwhile). An offer
 * cleared by a move, or by the end of the game, is no news: the board says
 * it; nor is a rematch offer cleared by the rematch it made.
 */
function offerNews(prev, state, elapsedMs = 0) {
  const you = state.you
  if (!you || !prev.offers || !state.offers) return ''
  const was = kind => offerBy(prev.offers[kind])
  const gone = kind => was(kind) && !offerBy(state.offers[kind])
  const lapsed = kind => {
    const left = prev.offers[kind].expiresInMs
    return typeof left === 'number' && left <= elapsedMs + LAPSE_SLACK_MS
  }
  const told = (kind, answer) => (lapsed(kind) ? `${text.OFFER_NAMES[kind]}已过期` : answer)
  if (gone('rematch') && isOver(state) && !state.rematchGameId) {
    return was('rematch') === you ? told('rematch', '对方拒绝了再来一局') : told('rematch', '对方撤回了再来一局的邀请')
  }
  const quiet = state.moveCount === prev.moveCount && isPlaying(state)
  if (gone('takeback') && was('takeback') === you) {
    if (state.moveCount < prev.moveCount) return '对方同意了悔棋'
    if (quiet) return told('takeback', '对方拒绝了悔棋')
  }
  if (!quiet) return ''
  if (gone('draw') && was('draw') === you) return told('draw', '对方拒绝了和棋')
  if (gone('takeback') && was('takeback') === opponentOf(you)) return told('takeback', '对方撤回了悔棋请求')
  if (gone('draw') && was('draw') === opponentOf(you)) return told('draw', '对方撤回了和棋提议')
  return ''
}

module.exports = {gameView, gameHeader, gamePatch, canUndo, offerBy, offerNews, openingView}
