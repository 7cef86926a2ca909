/**
 * Every piece of UI text that depends on data: names of rules and levels,
 * the status line, results, and the short toast for each server error code.
 * Chinese first, as the player sees it.
 */
const {timeControlText} = require('./clock')
const {EMPTY, BLACK, WHITE, STATUS, isOver, isPlaying, isWaiting, isAborted, opponentOf, colourKey, winnerOf} = require('./game-state')

const RULES = [
  {value: 'freestyle', label: '无禁手', note: '五连或更长即胜'},
  {value: 'standard', label: '标准', note: '恰好五连才胜'},
  {value: 'renju', label: '连珠', note: '黑棋有禁手'},
]

const LEVELS = [
  {value: 'easy', label: '入门'},
  {value: 'medium', label: '中级'},
  {value: 'hard', label: '高级'},
  {value: 'master', label: '大师'},
]

const MODES = [
  {value: 'ai', label: '人机对战'},
  {value: 'local', label: '双人同屏'},
  {value: 'online', label: '好友对战'},
]

/** The colour the player takes against the AI. */
const COLOURS = [
  {value: 'black', label: '执黑先行'},
  {value: 'white', label: '执白后行'},
]

/** The seat the player takes in a game against a friend (the API's `seat`). */
const SEATS = [
  {value: 'black', label: '执黑'},
  {value: 'white', label: '执白'},
  {value: 'random', label: '随机'},
]

/** The time controls offered for a game against a friend (the API's `timeControl`, null for none). */
const TIME_CONTROLS = [
  {value: 'none', label: '不限时', control: null},
  {value: '5+5', label: '5分+5秒', control: {initialMs: 5 * 60000, incrementMs: 5000}},
  {value: '10+10', label: '10分+10秒', control: {initialMs: 10 * 60000, incrementMs: 10000}},
  {value: '20', label: '每方20分', control: {initialMs: 20 * 60000, incrementMs: 0}},
]

const FORBIDDEN_KINDS = {
  double_three: '三三',
  double_four: '四四',
  overline: '长连',
}

const END_REASONS = {
  five: '五连',
  resign: '认输',
  timeout: '超时',
  agreement: '双方同意',
  board_full: '棋盘已满',
  no_five_possible: '双方均无法成五',
  aborted: '未在 30 秒内落下第一手',
}

function _label(list, value) {
  const item = list.find(x => x.value === value)
  return item ? item.label : String(value)
}

function ruleLabel(rule) {
  return _label(RULES, rule)
}

function levelLabel(level) {
  return _label(LEVELS, level)
}

function colourName(player) {
  return player === BLACK ? '黑方' : '白方'
}

/** A stone's colour in one character: 黑 or 白. */
function _stoneName(player) {
  return player === BLACK ? '黑' : '白'
}

/** "人机 · 中级 · 连珠 · 15路" and the like, for list items. */
function describeGame(g) {
  return `${shortTitle(g)} · ${gameDetails(g)}`
}

/** Whether `g` is a game against a friend on another phone. */
function isOnline(g) {
  return !!g && g.mode === 'online'
}

/**
 * "人机 · 大师", "双人", "好友对战" or "观战" (an online game the viewer has no
 * seat in): short enough for the navigation bar beside the capsule button.
 */
function shortTitle(g) {
  if (isOnline(g) && g.rated) return g.you ? '匹配对局' : '观战'
  if (isOnline(g)) return g.you ? '好友对战' : '观战'
  return g.mode === 'ai' && g.ai ? `人机 · ${levelLabel(g.ai.level)}` : '双人'
}

/** The time control of an online game in words ('10分钟+10秒', '不限时'); '' when the state does not say. */
function timeText(g) {
  if (g.timeControl !== undefined) return timeControlText(g.timeControl)
  return g.clock ? '' : timeControlText(null)
}

/** "连珠 · 15路", and the time control of an online game: the rest of the settings, for the header. */
function gameDetails(g) {
  const base = `${ruleLabel(g.rule)} · ${g.boardSize}路`
  const time = isOnline(g) ? timeText(g) : ''
  return time ? `${base} · ${time}` : base
}

/**
 * How many moves are on the board, in the one wording used everywhere (lists,
 * the game's header, the replay's "已下 5 / 9 手"): "已下 N 手".
 */
function movesText(moveCount) {
  return `已下 ${moveCount} 手`
}

/** The seat's key in `players`: 'black' for BLACK, 'white' for WHITE. */
function seatKey(player) {
  return colourKey(player)
}

/** The display name in a seat of an online game ('' for an empty seat). */
function seatName(g, player) {
  const seat = g.players && g.players[seatKey(player)]
  return seat ? seat.name : ''
}

/** The names on the player bars: {black, white}. */
function playerNames(g) {
  if (isOnline(g)) return {black: seatName(g, BLACK) || '等待加入', white: seatName(g, WHITE) || '等待加入'}
  if (g.mode === 'ai' && g.ai) {
    const ai = `AI · ${levelLabel(g.ai.level)}`
    return g.ai.player === BLACK ? {black: ai, white: '你'} : {black: '你', white: ai}
  }
  return {black: '黑方', white: '白方'}
}

/** Who the result names for `player`: 你 / 对方 to a seated player, AI, or the colour. */
function _who(g, player) {
  if (isOnline(g) && g.you) return player === g.you ? '你' : '对方'
  if (g.mode === 'ai' && g.ai) return player === g.ai.player ? 'AI' : '你'
  return colourName(player)
}

/**
 * The result in words: "黑方胜 · 五连", "你赢了！ · 对方认输", "你输了 · 超时",
 * "和棋 · 双方同意", "你已认输".
 */
function resultText(g) {
  if (!isOver(g)) return ''
  if (isAborted(g)) return ABORTED_TEXT
  const reason = END_REASONS[g.endReason] || ''
  if (g.status === STATUS.DRAW) return reason ? `和棋 · ${reason}` : '和棋'
  const winner = winnerOf(g)
  const loser = opponentOf(winner)
  // The viewer's own resignation says what they did, not that they lost.
  if (g.endReason === 'resign' && viewerSide(g) === loser) return RESIGNED_TEXT
  let who = `${colourName(winner)}胜`
  if (g.mode === 'ai' && g.ai) who = winner === g.ai.player ? 'AI 获胜' : '你赢了！'
  if (isOnline(g) && g.you) who = winner === g.you ? '你赢了！' : '你输了'
  if (g.endReason === 'resign' || g.endReason === 'timeout') {
    // "你输了 · 你超时" reads oddly: the viewer's own loss needs no name.
    const loserName = isOnline(g) && g.you === loser ? '' : _who(g, loser)
    return `${who} · ${loserName}${reason}`
  }
  return reason ? `${who} · ${reason}` : who
}

/** The status line: whose turn, the AI thinking, waiting for the friend, or the result. */
function statusText(g, thinking) {
  if (!g) return '加载中…'
  if (isWaiting(g)) return '等待好友加入…'
  if (!isPlaying(g)) return resultText(g)
  if (g.opening && g.opening.phase !== 'done') return `${openingName(g.opening.rule)} 开局中`
  if (g.mode === 'ai' && g.ai) {
    if (thinking || g.currentPlayer === g.ai.player) return 'AI 思考中…'
    return `轮到你了（${_stoneName(g.currentPlayer)}）`
  }
  if (isOnline(g) && g.you) {
    if (g.currentPlayer !== g.you) return '等待对方落子…'
    // A rated game is aborted when a player's first move does not come in time (the server's 30 s).
    const first = g.rated && !(g.moveHistory || []).some(m => m.player === g.you)
    return `轮到你了（${_stoneName(g.you)}）${first ? ' · 请在 30 秒内落子' : ''}`
  }
  if (isOnline(g)) return `观战中 · ${colourName(g.currentPlayer)}落子`
  return `${colourName(g.currentPlayer)}落子`
}

/**
 * The short toast for each error code: the service's (tests/unit/contract.test.js
 * checks them against its description both ways) and NETWORK_ERROR, the
 * request wrapper's own.
 */
const ERRORS = {
  NETWORK_ERROR: '无法连接服务器，请检查网络',
  CELL_OCCUPIED: '这里已经有棋子了',
  GAME_OVER: '对局已结束',
  PLY_MISMATCH: '棋局已在别处更新',
  SESSION_EXPIRED: '登录已过期，请重试',
  NOTHING_TO_UNDO: '没有可以悔的棋',
  OUT_OF_BOUNDS: '超出棋盘',
  GAME_NOT_FOUND: '对局不存在或已删除',
  INVALID_SETTINGS: '对局设置无效',
  INVALID_RECORD: '棋谱无效',
  INVALID_QUERY: '请求格式错误',
  INVALID_JSON: '请求格式错误',
  PAYLOAD_TOO_LARGE: '棋谱太大',
  UNSUPPORTED_MEDIA_TYPE: '请求格式错误',
  UNAUTHORIZED: '登录已失效，请重试',
  RATE_LIMITED: '操作太频繁，请稍后再试',
  BUSY: '服务器繁忙，请稍后再试',
  AI_BUSY: 'AI 正忙，请稍后再试',
  TOO_MANY_GAMES: '未完成的对局太多，请先结束或删除一些',
  GAME_FULL: '对局已满，只能观战',
  NOT_YOUR_TURN: '还没轮到你',
  NOT_A_PLAYER: '观战时不能下棋',
  WAITING_FOR_OPPONENT: '对方还没有加入',
  TAKEBACK_REQUIRED: '好友对局悔棋需要对方同意',
  SHARED_GAME: '双方的对局不能删除',
  INVALID_NAME: '昵称需为 1–16 个字',
  ONLINE_ONLY: '只有好友对局可以这样做',
  HINTS_DISABLED: '好友对局不提供提示',
  GAME_CHANGED: '棋局已在别处更新',
  TOO_MANY_CONNECTIONS: '打开的对局太多，请关闭一些再试',
  ANALYSIS_NOT_FOUND: '这局还没有分析',
  ANALYSIS_RUNNING: '你的另一局还在分析中，请稍后再试',
  GAME_NOT_OVER: '好友对局结束后才能分析',
  NO_OFFER: '对方已撤回或已过期',
  OFFER_PENDING: '对方的提议还在等你回应',
  UPGRADE_REQUIRED: '实时连接失败，请重试',
  ALREADY_SEEKING: '你已在另一个匹配池中等待',
  UNKNOWN_POOL: '没有这个匹配池',
  NOT_SEEKING: '当前没有在匹配',
  PLAYER_NOT_FOUND: '找不到这位棋手',
  OPENING_IN_PROGRESS: '开局还没有完成',
  OPENING_OVER: '开局已经结束',
  NO_OPENING: '这局没有开局规则',
  WRONG_STEP: '现在不是这一步',
  OUTSIDE_ZONE: '请下在中心区域内',
  NOT_AN_OPTION: '不能这样选择',
  OFFER_COUNT: '候选点的数目不对',
  DUPLICATE_OFFER: '候选点有重复',
  SYMMETRIC_OFFERS: '候选点不能互相对称',
  NOT_OFFERED: '请选择对方提出的候选点',
  PUZZLE_NOT_FOUND: '残局不存在',
  PUZZLE_OVER: '这一题已经结束，可以再试一次',
}

/** After a lost connection, once the page shows the server's position again. */
const RESTORED_TEXT = '网络中断，已恢复到服务器的局面'
/** A move whose answer never came: it may or may not be on the server. */
const UNSENT_TEXT = '网络中断，这一手未确认'

/** The longest display name the service takes, in characters. */
const NAME_MAX_CHARS = 16

/**
 * Why `name` cannot be a display name, in the player's words ('' when it
 * can): the service's rule is 1–16 characters after trimming, no control
 * characters.
 */
function nameProblem(name) {
  const trimmed = String(name || '').trim()
  if (!trimmed) return '请输入昵称'
  if (Array.from(trimmed).length > NAME_MAX_CHARS) return `昵称最多 ${NAME_MAX_CHARS} 个字`
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f-\u009f]/.test(trimmed)) return '昵称不能含有控制字符'
  return ''
}

/** An invite card whose game is gone (cancelled by its creator, or never there). */
const INVITE_GONE_TEXT = '这局棋已被取消或不存在'

/** A short toast for an error from services/request.js (or anything thrown). */
function errorText(err) {
  if (!err) return '出错了'
  if (err.code === 'FORBIDDEN_MOVE') {
    const kind = FORBIDDEN_KINDS[err.details && err.details.kind]
    return kind ? `禁手：${kind}` : '禁手'
  }
  if (err.code === 'INVALID_RECORD' && err.details && Number.isInteger(err.details.moveIndex)) {
    return `棋谱无效（第 ${err.details.moveIndex + 1} 手）`
  }
  if (ERRORS[err.code]) return ERRORS[err.code]
  if (err.status >= 500) return '服务器出错了，请稍后再试'
  return '出错了，请重试'
}

/** What a forbidden point is, in words: "h8 是禁手（三三）". */
function forbiddenText(name, kind) {
  const k = FORBIDDEN_KINDS[kind]
  return k ? `${name} 是黑棋的禁手（${k}）` : `${name} 是黑棋的禁手`
}

/** The engine's hint reasons in words a player reads; unknown ones are shown as they come. */
function hintReasonText(reason) {
  if (!reason) return ''
  const vcf = /^VCF in (\d+)$/.exec(reason)
  if (vcf) return `连续冲四，${vcf[1]} 步取胜`
  const vct = /^VCT in (\d+)$/.exec(reason)
  if (vct) return `连续进攻，${vct[1]} 步取胜`
  const known = {
    'opening: centre': '开局先占天元',
    'wins: five': '这里成五取胜',
    'blocks a four': '挡住对方的冲四',
    'blocks an open four': '挡住对方的活四',
    'makes an open four': '走成活四',
    'blocks an open three': '挡住对方的活三',
    'wins by search': '搜索找到必胜',
    'best by search': '搜索得出的最佳点',
    'a casual move': '随手一步',
    'no defence left': '已无法防守，尽力而为',
  }
  return known[reason] || reason
}

/**
 * The marks of a post-game analysis, in the order the legend lists them: the
 * symbol shown on a move, its name, and what it means.
 */
const MARKS = [
  {mark: 'winning_threat_missed', symbol: '漏', name: '错失胜机', note: '本可成五或连续冲四取胜'},
  {mark: 'blunder', symbol: '??', name: '败着', note: '胜率大幅下降'},
  {mark: 'mistake', symbol: '?', name: '失误', note: '胜率明显下降'},
  {mark: 'inaccuracy', symbol: '?!', name: '缓手', note: '胜率略有下降'},
  {mark: 'only_move', symbol: '!', name: '唯一解', note: '唯一不输的一手'},
]

function _mark(mark) {
  return MARKS.find(m => m.mark === mark) || {mark, symbol: '·', name: String(mark), note: ''}
}

/** A mark's name in words ('败着'); unknown marks are shown as they come. */
function markName(mark) {
  return _mark(mark).name
}

/** A mark's symbol on the move list ('??'). */
function markSymbol(mark) {
  return _mark(mark).symbol
}

/** A probability (0–1) as a whole percentage: "62%". */
function percentText(p) {
  return `${Math.round(p * 100)}%`
}

/**
 * What the analysis says of one move, for the line under the graph:
 * "第 9 手 黑 d12 · 错失胜机：本可成五或连续冲四取胜。黑方胜率 71%，下在 l8 为 100%".
 * `move` is {number, player, coord, eval, bestEval, bestCoord, mark}.
 */
function analysisNote(move) {
  const head = `第 ${move.number} 手 ${_stoneName(move.player)} ${move.coord}`
  const mark = move.mark ? ` · ${markName(move.mark)}：${_mark(move.mark).note}。` : ' · '
  const odds = `黑方胜率 ${percentText(move.eval)}`
  const better = move.bestCoord !== move.coord && move.mark !== 'only_move'
    ? `，下在 ${move.bestCoord} 为 ${percentText(move.bestEval)}` : ''
  return `${head}${mark}${odds}${better}`
}

/** "11-30 14:05" from an RFC 3339 time, in the phone's time zone. */
function shortTime(rfc3339) {
  const d = new Date(rfc3339)
  if (Number.isNaN(d.getTime())) return ''
  const pad = n => (n < 10 ? `0${n}` : `${n}`)
  return `${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}`
}

// --- Home's first visit, the invite and the share card (helper F2's block).

/** What each rule means, in a sentence, for the rules card (the names are RULES'). */
const RULE_DETAILS = {
  freestyle: '先连成五子者胜，六子以上的长连也算赢。',
  standard: '恰好连成五子才胜，长连不算。',
  renju: '黑棋先行占优，所以黑有禁手：三三、四四、长连都不能下，白棋不受限制。',
}

/** The rules card's lines: [{value, label, detail}] in RULES' order. */
function ruleCards() {
  return RULES.map(r => ({value: r.value, label: r.label, detail: RULE_DETAILS[r.value] || r.note}))
}

/** 快速开始 on home and on the rules card, in words (the settings are home's QUICK_START). */
const QUICK_START_LABEL = '人机 · 入门 · 15路'

/** A time control as a card says it: '10+10', '5+5', '20分', '' for none. */
function shortTimeText(tc) {
  if (!tc) return ''
  const initial = tc.initialMs % 60000 === 0 ? `${tc.initialMs / 60000}` : `${Math.round(tc.initialMs / 1000)}秒`
  if (!tc.incrementMs) return `${initial}${tc.initialMs % 60000 === 0 ? '分' : ''}`
  return `${initial}+${Math.round(tc.incrementMs / 1000)}`
}

/** The game's settings on an invite: '无禁手 · 10+10', '连珠 · 13路' (the size when not 15). */
function inviteSettings(g) {
  const parts = [ruleLabel(g.rule)]
  if (g.boardSize && g.boardSize !== 15) parts.push(`${g.boardSize}路`)
  const time = shortTimeText(g.timeControl)
  if (time) parts.push(time)
  return parts.join(' · ')
}

/** The inviter as an invite names them: 「小王」, or '' when the name is not known. */
function inviterQuote(name) {
  return name ? `「${name}」` : ''
}

/** The share card's title: "「小王」邀你下一盘五子棋 · 无禁手 · 10+10". */
function shareTitle(g, inviter) {
  const who = inviter ? `${inviterQuote(inviter)}邀你` : '来'
  return `${who}下一盘五子棋 · ${inviteSettings(g)}`
}

/**
 * The sentence 复制邀请 puts on the clipboard, to paste in a chat where the card
 * cannot be sent: "「小王」邀你下一盘五子棋（无禁手 · 10+10）：打开小程序「五子棋」，首页点
 * 「从剪贴板导入」，对局码 1a2b3c". Home's clipboard import recognises the code.
 */
function inviteSentence(g, inviter) {
  const who = inviter ? `${inviterQuote(inviter)}邀你` : '邀你'
  return `${who}下一盘五子棋（${inviteSettings(g)}）：复制这段话，打开小程序「五子棋」，在首页点「从剪贴板导入」即可加入。对局码 ${g.id}`
}

/** The game id in a pasted invite sentence ('' when the text is not one). */
function inviteCodeIn(textIn) {
  const m = /对局码\s*([A-Za-z0-9_-]{4,64})/.exec(String(textIn || ''))
  return m ? m[1] : ''
}

// --- The end of a game and the rematch (the game page: components/result-dialog, the offers)

/** The viewer's own resignation, in the status line and the result dialog. */
const RESIGNED_TEXT = '你已认输'

/**
 * The colour the viewer plays (BLACK or WHITE), or EMPTY when they have no
 * side: a spectator, or a game of two on one phone.
 */
function viewerSide(g) {
  if (isOnline(g)) return g.you || EMPTY
  if (g.mode === 'ai' && g.ai) return opponentOf(g.ai.player)
  return EMPTY
}

/** The medal of the result dialog for each outcome. */
const RESULT_MARKS = {win: '胜', loss: '负', draw: '和', black: '黑', white: '白'}

/**
 * The game-over moment as the result dialog shows it, null while the game
 * goes on: `outcome` from the viewer's side ('win', 'loss', 'draw'; for a
 * viewer with no side the winner's colour, 'black' or 'white'), `mark` the
 * medal's character (胜 负 和, or 黑 白), `title` ("你赢了", "你已认输",
 * "白方胜") and `how` it ended ("对方认输", "黑方五连", "棋盘已满").
 */
function resultView(g) {
  if (!isOver(g)) return null
  if (isAborted(g)) return {outcome: 'aborted', mark: '—', title: ABORTED_TEXT, how: '有一方 30 秒内没有落下第一手'}
  const winner = winnerOf(g)
  const side = viewerSide(g)
  let outcome = 'draw'
  if (winner && side) outcome = winner === side ? 'win' : 'loss'
  else if (winner) outcome = colourKey(winner)
  const titles = {win: '你赢了', loss: '你输了', draw: '和棋', black: '黑方胜', white: '白方胜'}
  const title = outcome === 'loss' && g.endReason === 'resign' ? RESIGNED_TEXT : titles[outcome]
  const view = {outcome, mark: RESULT_MARKS[outcome], title, how: _how(g, winner)}
  // A rated game that ended with a result: the viewer's new rating and the change.
  const change = side ? ratingChangeOf(g, side) : null
  if (change) Object.assign(view, {change: `等级分 ${change.after}（${change.shown}）`, changeDir: deltaDir(change.delta)})
  return view
}

/** How a game ended, naming who did it: "对方认输", "你超时", "黑方五连", "双方同意和棋". */
function _how(g, winner) {
  const name = player => _who(g, player)
  switch (g.endReason) {
    case 'five': return `${name(winner)}五连`
    // The title says the viewer resigned already ("你已认输").
    case 'resign': return viewerSide(g) === opponentOf(winner) ? '认输' : `${name(opponentOf(winner))}认输`
    case 'timeout': return `${name(opponentOf(winner))}超时`
    case 'agreement': return '双方同意和棋'
    default: return END_REASONS[g.endReason] || ''
  }
}

/**
 * A toast when the opponent ended the game off the board in the viewer's
 * favour ('' for anything else): their resignation or their flag fall.
 */
function opponentEndedText(g) {
  if (!isOnline(g) || !g.you || g.winner !== g.you) return ''
  if (g.endReason === 'resign') return '对方已认输'
  if (g.endReason === 'timeout') return '对方超时'
  return ''
}

/** The offers of an online game by kind (the API's `offers` keys): what the dialog and the notices call them. */
const OFFER_NAMES = {takeback: '悔棋请求', draw: '和棋提议', rematch: '再来一局的邀请'}

/** Leaving a game in play: the question, and the sheet's choices (stay is the sheet's own 取消). */
const LEAVE_TEXT = '离开对局？时钟仍在走'
const LEAVE_CHOICES = ['暂时离开', '认输']

// --- The pool, ratings, openings and puzzles (issue 26). The ranks' names come from the server
// (`rank.name` in every rating): the table of bands lives there only.

/** A rated game that ended before both had moved: nobody's rating changed. */
const ABORTED_TEXT = '对局已取消（未计分）'

/** The rating families as the leaderboard's tabs name them, with a rule of each (the query). */
const FAMILIES = [
  {value: 'gomoku', label: '五子棋', rule: 'freestyle'},
  {value: 'renju', label: '连珠', rule: 'renju'},
]

/** A pool's name: "无禁手 · 3+2" (rule and time control, minutes + seconds). */
function poolLabel(pool) {
  const tc = pool.timeControl || {}
  const size = pool.boardSize && pool.boardSize !== 15 ? ` · ${pool.boardSize}路` : ''
  return `${ruleLabel(pool.rule)}${size} · ${Math.round(tc.initialMs / 60000)}+${Math.round(tc.incrementMs / 1000)}`
}

/** How many wait in a pool: "3 人等待", "无人等待". */
function waitingText(n) {
  return n ? `${n} 人等待` : '无人等待'
}

/** A rating as shown beside a name: "1523 · 3段" ("1500? · 新手" while provisional); '' for none. */
function ratingText(rating) {
  if (!rating) return ''
  return rating.rank && rating.rank.name ? `${rating.shown} · ${rating.rank.name}` : String(rating.shown)
}

/** 'up', 'down' or 'even': the colour of a rating change. */
function deltaDir(delta) {
  if (delta > 0) return 'up'
  if (delta < 0) return 'down'
  return 'even'
}

/** The viewer's rating change in a rated game that ended ({before, after, delta, shown}), or null. */
function ratingChangeOf(g, side) {
  const changes = g.ratingChanges
  return (changes && side && changes[colourKey(side)]) || null
}

/** "胜 12 · 负 4 · 和 1". */
function recordText(r) {
  return `胜 ${r.wins || 0} · 负 ${r.losses || 0} · 和 ${r.draws || 0}`
}

const SCORES = {win: '胜', loss: '负', draw: '和'}

/**
 * The player card's view of GET /players/{id}: the name, a line per family
 * ("五子棋 · 1523 · 3段", the record), the puzzle rating, and the recent
 * games ("胜 小红 +12").
 */
function playerCardView(p) {
  const family = value => (FAMILIES.find(f => f.value === value) || {label: value}).label
  return {
    playerId: p.playerId,
    name: p.name,
    ratings: (p.ratings || []).map(r => ({
      family: family(r.family),
      rating: ratingText(r),
      record: `${r.games || 0} 局 · ${recordText(r)}`,
    })),
    puzzle: p.puzzle ? `残局 ${p.puzzle.shown} · 解出 ${p.puzzle.solved || 0} · 失败 ${p.puzzle.failed || 0}` : '',
    recent: (p.recent || []).map(g => ({
      gameId: g.gameId,
      score: SCORES[g.score] || '',
      outcome: g.score,
      opponent: (g.opponent && g.opponent.name) || '',
      family: family(g.family),
      delta: g.shown || '',
      dir: deltaDir(g.delta),
      time: shortTime(g.at),
    })),
  }
}

/** The opening rules offered for a rule: none, swap2 (gomoku), Taraguchi-10 (renju). */
function openingOptions(rule) {
  const none = {value: 'none', label: '无'}
  return rule === 'renju' ? [none, {value: 'taraguchi10', label: 'Taraguchi-10'}] : [none, {value: 'swap2', label: 'swap2'}]
}

/** Who starts the opening against the AI (the API's `openingSeat`). */
const OPENING_SEATS = [
  {value: 'first', label: '我先开局'},
  {value: 'second', label: 'AI 先开局'},
]

/** The choices of the opening's choose step, in words. */
const OPENING_CHOICES = {black: '执黑', white: '执白', place_two: '再放两子', offer_ten: '提出第五手候选点'}

/** What the seat to act does now in the opening ("放置第 2 颗白子（中心 5×5 内）", "选择"…). */
function _openingTask(o) {
  switch (o.phase) {
    case 'place': {
      const n = (o.steps || []).filter(s => s.kind === 'place').length + 1
      let zone = o.zone ? `（中心 ${o.zone.side}×${o.zone.side} 内）` : ''
      if (o.zone && o.zone.side === 1) zone = '（天元）'
      return `放置第 ${n} 颗${_stoneName(o.stone)}子${zone}`
    }
    case 'choose': return `选择：${(o.options || []).map(c => OPENING_CHOICES[c] || c).join(' / ')}`
    case 'offer': return `提出 ${o.count} 个第五手候选点`
    case 'pick': return '从对方的候选点中选择一个'
    default: return ''
  }
}

/**
 * The opening banner: what the viewer does now ("请放置第 1 颗黑子（中心 5×5
 * 内）"), or what the other side does ("等待对方选择…"; against the AI
 * "AI 开局中…"); '' once the opening is done.
 */
function openingText(g) {
  const o = g.opening
  if (!o || o.phase === 'done') return ''
  const task = _openingTask(o)
  if (o.yourTurn) return `请${task}`
  if (g.mode === 'ai') return 'AI 开局中…'
  // The other side's task in short: its zone and its options are theirs to read.
  const short = o.phase === 'choose' ? '选择' : task.replace(/（.*$/, '')
  return o.yourSeat ? `等待对方${short}…` : `开局中：${short}`
}

/** The opening rule's name for the header: 'swap2', 'Taraguchi-10'. */
function openingName(rule) {
  const all = openingOptions('freestyle').concat(openingOptions('renju'))
  return (all.find(o => o.value === rule) || {label: rule}).label
}

/** A puzzle's kind in words. */
const PUZZLE_KINDS = {vcf: '连续冲四', vct: '连续攻击'}

/** A puzzle's heading: "黑先胜 · 5 手内". */
function puzzleHeading(p) {
  return `${_stoneName(p.attacker)}先胜 · ${p.winIn} 手内`
}

/** The line under a puzzle: its kind, difficulty and the rule ("连续冲四 · 难度 ★★☆☆☆ · 无禁手"). */
function puzzleDetails(p) {
  const stars = '★★★★★'.slice(0, p.difficulty || 0) + '☆☆☆☆☆'.slice(0, 5 - (p.difficulty || 0))
  return `${PUZZLE_KINDS[p.kind] || p.kind} · 难度 ${stars} · ${ruleLabel(p.rule)}`
}

/** Where an attempt stands, in words. */
function puzzleStatusText(p) {
  const a = p.attempt || {}
  const change = a.ratingChange ? `残局等级分 ${a.ratingChange.after}（${a.ratingChange.shown}）` : ''
  if (a.status === 'solved') return `解题成功！${change}`
  if (a.status === 'failed') return change ? `解题失败，${change}` : '解题失败'
  return `轮到你了（${_stoneName(p.attacker)}），还剩 ${a.movesLeft} 手`
}

module.exports = {
  RULES,
  LEVELS,
  MODES,
  COLOURS,
  SEATS,
  TIME_CONTROLS,
  FORBIDDEN_KINDS,
  END_REASONS,
  RESTORED_TEXT,
  UNSENT_TEXT,
  ERRORS,
  NAME_MAX_CHARS,
  ruleLabel,
  levelLabel,
  colourName,
  describeGame,
  isOnline,
  seatKey,
  seatName,
  shortTitle,
  gameDetails,
  timeText,
  movesText,
  playerNames,
  forbiddenText,
  resultText,
  statusText,
  errorText,
  nameProblem,
  INVITE_GONE_TEXT,
  hintReasonText,
  shortTime,
  MARKS,
  markName,
  markSymbol,
  percentText,
  analysisNote,
  ruleCards,
  QUICK_START_LABEL,
  shortTimeText,
  inviteSettings,
  shareTitle,
  inviteSentence,
  inviteCodeIn,
  inviterQuote,
  RESIGNED_TEXT,
  viewerSide,
  resultView,
  opponentEndedText,
  OFFER_NAMES,
  LEAVE_TEXT,
  LEAVE_CHOICES,
  ABORTED_TEXT,
  FAMILIES,
  poolLabel,
  waitingText,
  ratingText,
  deltaDir,
  ratingChangeOf,
  recordText,
  playerCardView,
  openingOptions,
  OPENING_SEATS,
  OPENING_CHOICES,
  openingText,
  openingName,
  PUZZLE_KINDS,
  puzzleHeading,
  puzzleDetails,
  puzzleStatusText,
}
