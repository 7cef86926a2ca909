/**
 * Home: set up and start a new game, continue an unfinished one (long-press
 * one to delete it), open the finished ones (replay, export, delete), and
 * import a record from a chat file or the clipboard, which opens in replay.
 * Both lists come from the server, newest first, 20 at a time (更多 loads the
 * next 20), and are refreshed on show.
 *
 * 好友对战 (a game against a friend on another phone) takes a colour (执黑,
 * 执白 or 随机) and a time control, asks once for the display name the
 * friend sees (editable here later), and opens the new game on its waiting
 * screen, from where the invite is sent. In the continue list such a game
 * says whose turn it is and whether the opponent is connected; a game shared
 * with a friend cannot be deleted (it belongs to both).
 *
 * A first visit opens the rules card (components/rules-card), remembered as
 * seen on this phone; 规则 opens it again. 快速开始 (on the card and above the
 * form) starts a game against the AI at its easiest on 15×15 freestyle. An
 * invite sentence pasted from a chat (复制邀请 on the other phone) is found by
 * 从剪贴板导入 and opens that game, taking the free seat.
 *
 * 匹配 (pages/home/seek.js) waits in a pool for a rated game with a
 * stranger; 排行榜 and 残局 open their pages. An opening rule (swap2 for
 * freestyle and standard, Taraguchi-10 for renju) may be chosen for a game
 * against the AI or a friend, and against the AI who starts it.
 */
const api = require('../../services/api')
const text = require('../../utils/text')
const {BLACK, WHITE, LIST_FILTER, isOver, isPlaying, isWaiting, opponentOf} = require('../../utils/game-state')
const {exportGame} = require('../../utils/export-record')
const {recordFromChatFile, clipboardText, recordFromClipboardText} = require('../../utils/import-record')
const {nameActions, toastError: _toast, ask} = require('../../utils/page-actions')
const {loadSettings, saveSettings} = require('../../utils/settings')
const {invitePath} = require('../../utils/share-card')
const {seekActions, SEEK_DATA} = require('./seek')

const MIN_SIZE = 9
const MAX_SIZE = 19
const PAGE_SIZE = 20

/** 快速开始: against the AI at its easiest, freestyle 15×15, the player black (text.QUICK_START_LABEL). */
const QUICK_START = {mode: 'ai', rule: 'freestyle', boardSize: 15, ai: {level: 'easy', player: WHITE}}

/**
 * The viewer's opponent in a game against a friend: {name, online}, null
 * while the seat is empty, undefined when the listing does not say.
 */
function _opponent(g) {
  if (!g.you || !g.players) return undefined
  return g.players[text.seatKey(opponentOf(g.you))]
}

/**
 * A game against a friend in the lists: named by the opponent, with whether
 * they are connected (for a game in play) and, on the right, whose turn it is.
 */
function _onlineItem(g, over) {
  const opponent = _opponent(g)
  const settings = `${text.ruleLabel(g.rule)} · ${g.boardSize}路`
  let title = '好友对战'
  let detail = `${settings} · ${text.movesText(g.moveCount)}`
  if (isWaiting(g)) {
    title = '好友对战 · 等待好友加入'
    detail = settings
  } else if (opponent) {
    title = `好友对战 · ${opponent.name}`
    if (!over) detail = `${settings} · ${opponent.online ? '对方在线' : '对方离线'}`
  }
  if (over) detail = `${text.resultText(g)} · ${text.movesText(g.moveCount)}`
  return {
    title,
    detail,
    yourTurn: isPlaying(g) && !!g.you && g.currentPlayer === g.you,
    // A game both have sat down to belongs to both: the server refuses to delete it (SHARED_GAME).
    deletable: isWaiting(g),
  }
}

function _item(summary) {
  const over = isOver(summary)
  const item = {
    id: summary.id,
    title: text.describeGame(summary),
    detail: over
      ? `${text.resultText(summary)} · ${text.movesText(summary.moveCount)}`
      : `${text.movesText(summary.moveCount)} · ${text.statusText(summary, false)}`,
    time: text.shortTime(summary.updatedAt),
    yourTurn: false,
    deletable: true,
  }
  return text.isOnline(summary) ? Object.assign(item, _onlineItem(summary, over)) : item
}

Page(Object.assign({}, nameActions, seekActions, {
  data: Object.assign({
    modes: text.MODES,
    levels: text.LEVELS,
    colours: text.COLOURS,
    seats: text.SEATS,
    timeControls: text.TIME_CONTROLS,
    rules: text.RULES,
    mode: 'ai',
    level: 'medium',
    colour: 'black',
    seat: 'random',
    timeControl: 'none',
    rule: 'freestyle',
    boardSize: 15,
    minSize: MIN_SIZE,
    maxSize: MAX_SIZE,
    ruleNote: text.RULES[0].note,
    starting: false,
    playing: [],
    canDeletePlaying: false, // whether any game in the continue list can be deleted (says 长按可删除)
    playingCursor: null,
    finished: [],
    finishedCursor: null,
    loaded: false,
    loadError: '',
    refreshing: false,
    importing: false,
    nameSheet: false,
    nameBusy: false,
    myName: '',
    rulesCard: false,
    quickLabel: text.QUICK_START_LABEL,
    opening: 'none', // the opening rule: 'none', 'swap2' or 'taraguchi10' (for the rule's family)
    openings: text.openingOptions('freestyle'),
    openingSeat: 'first', // against the AI: who starts the opening
    openingSeats: text.OPENING_SEATS,
  }, SEEK_DATA),

  onLoad() {
    if (!loadSettings().rulesSeen) this.setData({rulesCard: true})
  },

  onShow() {
    if (this.data.mode === 'online') this._loadName()
    return Promise.all([this._refresh(), this._loadPools()])
  },

  onUnload() {
    this._seekUnload()
  },

  /** The display name, shown in the 好友对战 settings (quietly absent without the server). */
  _loadName() {
    return api.getMe().then(me => {
      if (me.name !== this.data.myName) this.setData({myName: me.name})
    }).catch(() => null)
  },

  /** 修改 beside the name: the name sheet. */
  onEditName() {
    return this._editName().catch(_toast)
  },

  onPullDownRefresh() {
    return this._refresh().then(() => wx.stopPullDownRefresh())
  },

  _refresh() {
    this.setData({refreshing: true})
    return Promise.all([
      api.listGames({status: LIST_FILTER.PLAYING, limit: PAGE_SIZE}),
      api.listGames({status: LIST_FILTER.FINISHED, limit: PAGE_SIZE}),
    ]).then(([playing, finished]) => {
      const items = playing.games.map(_item)
      this.setData({
        playing: items,
        canDeletePlaying: items.some(g => g.deletable),
        playingCursor: playing.nextCursor || null,
        finished: finished.games.map(_item),
        finishedCursor: finished.nextCursor || null,
        loaded: true,
        loadError: '',
        refreshing: false,
      })
    }).catch(err => {
      // The lists say it, with 重试; starting a new game still works.
      this.setData({loaded: true, loadError: text.errorText(err), refreshing: false})
    })
  },

  onRetryLists() {
    if (this.data.refreshing) return Promise.resolve()
    return this._refresh()
  },

  _loadMore(status) {
    const key = status === LIST_FILTER.PLAYING ? 'playing' : 'finished'
    const cursor = this.data[`${key}Cursor`]
    if (!cursor) return Promise.resolve()
    return api.listGames({status, limit: PAGE_SIZE, cursor}).then(page => {
      this.setData({
        [key]: this.data[key].concat(page.games.map(_item)),
        [`${key}Cursor`]: page.nextCursor || null,
      })
    }).catch(_toast)
  },

  onModeChange(e) {
    this.setData({mode: e.detail.value})
    if (e.detail.value === 'online' && !this.data.myName) this._loadName()
  },

  onSeatChange(e) {
    this.setData({seat: e.detail.value})
  },

  onTimeChange(e) {
    this.setData({timeControl: e.detail.value})
  },

  onLevelChange(e) {
    this.setData({level: e.detail.value})
  },

  onColourChange(e) {
    this.setData({colour: e.detail.value})
  },

  onRuleChange(e) {
    const rule = text.RULES.find(r => r.value === e.detail.value)
    const openings = text.openingOptions(rule.value)
    // An opening rule of the other family does not carry over: back to none.
    const opening = openings.some(o => o.value === this.data.opening) ? this.data.opening : 'none'
    this.setData({rule: rule.value, ruleNote: rule.note, openings, opening})
  },

  onOpeningChange(e) {
    this.setData({opening: e.detail.value})
  },

  onOpeningSeatChange(e) {
    this.setData({openingSeat: e.detail.value})
  },

  onSizeDown() {
    if (this.data.boardSize > MIN_SIZE) this.setData({boardSize: this.data.boardSize - 1})
  },

  onSizeUp() {
    if (this.data.boardSize < MAX_SIZE) this.setData({boardSize: this.data.boardSize + 1})
  },

  onStart() {
    const {mode, level, colour, seat, rule, boardSize} = this.data
    const settings = {mode, rule, boardSize}
    // The API names the AI's colour; the picker names the player's.
    if (mode === 'ai') settings.ai = {level, player: colour === 'black' ? WHITE : BLACK}
    if (mode === 'online') {
      settings.seat = seat
      const time = text.TIME_CONTROLS.find(t => t.value === this.data.timeControl)
      if (time && time.control) settings.timeControl = time.control
    }
    if (mode !== 'local' && this.data.opening !== 'none') {
      settings.opening = this.data.opening
      if (mode === 'ai') settings.openingSeat = this.data.openingSeat
    }
    return this._create(settings)
  },

  /** 快速开始 (above the form or on the rules card): 人机 · 入门 · 15路, the player black. */
  onQuickStart() {
    if (this.data.rulesCard) this.onRulesClose()
    return this._create(QUICK_START)
  },

  /** Create the game and open it. */
  _create(settings) {
    if (this.data.starting) return Promise.resolve()
    this.setData({starting: true})
    // The friend will see a name: ask for one before the first such game.
    const asked = settings.mode === 'online' ? this._askNameOnce() : Promise.resolve()
    return asked.then(() => api.createGame(settings)).then(game => {
      this.setData({starting: false})
      wx.navigateTo({url: `/pages/game/game?id=${game.id}`})
    }).catch(err => {
      this.setData({starting: false})
      _toast(err)
    })
  },

  /** 规则: the rules card again. */
  onShowRules() {
    this.setData({rulesCard: true})
  },

  onRulesClose() {
    saveSettings({rulesSeen: true})
    this.setData({rulesCard: false})
  },

  onResume(e) {
    wx.navigateTo({url: `/pages/game/game?id=${e.currentTarget.dataset.id}`})
  },

  onReplay(e) {
    wx.navigateTo({url: `/pages/replay/replay?id=${e.currentTarget.dataset.id}`})
  },

  onExport(e) {
    return exportGame(e.currentTarget.dataset.id).catch(_toast)
  },

  onDelete(e) {
    return this._confirmDelete(e.currentTarget.dataset.id)
  },

  /** Long-press on an unfinished game: 删除, after a confirmation (not for a game shared with a friend). */
  onPlayingLongPress(e) {
    const {id} = e.currentTarget.dataset
    const item = this.data.playing.find(g => g.id === id)
    if (item && !item.deletable) {
      wx.showToast({title: text.errorText({code: 'SHARED_GAME'}), icon: 'none'})
      return Promise.resolve()
    }
    return new Promise(resolve => {
      wx.showActionSheet({
        itemList: ['删除'],
        itemColor: '#b71c1c',
        success: res => resolve(res.tapIndex === 0),
        fail: () => resolve(false),
      })
    }).then(chosen => (chosen ? this._confirmDelete(id) : null))
  },

  _confirmDelete(id) {
    return ask('删除对局', '删除后无法恢复，确定吗？', '删除').then(confirmed => {
      if (!confirmed) return null
      return api.deleteGame(id).then(() => this._refresh(), _toast)
    })
  },

  onMorePlaying() {
    return this._loadMore(LIST_FILTER.PLAYING)
  },

  onMoreFinished() {
    return this._loadMore(LIST_FILTER.FINISHED)
  },

  onImportFile() {
    return this._import(recordFromChatFile)
  },

  /** 从剪贴板导入: an invite pasted from a chat opens its game; otherwise the record there is imported. */
  onImportClipboard() {
    if (this.data.importing) return Promise.resolve()
    return clipboardText().then(clip => {
      const code = text.inviteCodeIn(clip)
      if (code) {
        wx.navigateTo({url: invitePath(code)})
        return null
      }
      return this._import(() => Promise.resolve(recordFromClipboardText(clip)))
    })
  },

  /** Import the record `read` finds; the new game opens in replay, from where it can be continued. */
  _import(read) {
    if (this.data.importing) return Promise.resolve()
    this.setData({importing: true})
    return read().then(record => {
      if (!record) return null
      return api.importGame(record).then(game => {
        wx.showToast({title: '棋谱已导入', icon: 'success'})
        wx.navigateTo({url: `/pages/replay/replay?id=${game.id}`})
        return game
      })
    }).catch(_toast).then(game => {
      this.setData({importing: false})
      return game
    })
  },
}))
