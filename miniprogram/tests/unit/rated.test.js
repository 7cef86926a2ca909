/**
 * A rated game on the game page (from the pool), against a scripted
 * transport and socket: each bar shows the player's rating and rank as the
 * server names it, a tap on a bar opens the player card (ratings per
 * family, record, puzzle rating, recent games), the result dialog shows the
 * rating change in its colour, and an aborted game says it was not rated.
 */
const {loadPage, openPage, textsOf, byClass, simulate, load} = require('../support/harness')
const {installScripted} = require('../support/fake-transport')
const {onlineState} = require('../support/states')
const {flush, until} = require('../support/e2e')
const settings = require('../../utils/settings')

const cardId = load('components/player-card/player-card', 'player-card')
const gameId = loadPage('game')

let transport
let wx

const rating = (shown, name, extra = {}) => Object.assign({
  family: 'gomoku', rating: parseInt(shown, 10), rd: 60, provisional: shown.endsWith('?'), shown,
  rank: {name, tier: 'dan'}, games: 12, wins: 7, losses: 4, draws: 1,
}, extra)

const PLAYER = {
  playerId: 'p2', name: '小红',
  ratings: [rating('1612', '4段'), rating('1500?', '新手', {family: 'renju', games: 0, wins: 0, losses: 0, draws: 0})],
  puzzle: {rating: 1450, rd: 80, provisional: false, shown: '1450', solved: 5, failed: 2},
  recent: [
    {gameId: 'r0', family: 'gomoku', rule: 'freestyle', opponent: {playerId: 'p1', name: '小明'}, colour: 2, score: 'win', delta: 9, shown: '+9', at: '2026-12-04T10:00:00Z'},
    {gameId: 'r9', family: 'gomoku', rule: 'freestyle', opponent: {playerId: 'p7', name: '阿强'}, colour: 1, score: 'loss', delta: -11, shown: '−11', at: '2026-12-03T10:00:00Z'},
  ],
}

/** A rated game as the viewer (black) sees it. */
function ratedState(overrides = {}) {
  const state = onlineState(Object.assign({rated: true, pool: 'freestyle/3+2', ratingChanges: null}, overrides))
  state.players.black.rating = rating('1523', '3段')
  state.players.white.rating = rating('1612', '4段')
  return state
}

beforeEach(() => {
  ;({transport, wx} = installScripted())
  settings.saveSettings({confirm: 'off', nameAsked: true})
  transport.on('GET', '/api/v1/players/p2', () => [200, PLAYER])
  transport.on('GET', '/api/v1/players/nobody', () => [404, {error: {code: 'PLAYER_NOT_FOUND', message: 'no such player'}}])
})

async function openRated(state) {
  transport.on('GET', '/api/v1/games/g1', () => [200, state])
  const page = await openPage(gameId, {id: 'g1'})
  for (let i = 0; i < 50 && !wx.rec.sockets.length; i++) await flush()
  const socket = wx.rec.sockets[0]
  socket.open()
  socket.receive({type: 'state', game: state})
  return {page, socket}
}

describe('a rated game', () => {
  test('the bars show each player\'s rating with its rank, the title says 匹配对局', async () => {
    const {page} = await openRated(ratedState())
    expect(wx.rec.titles).toEqual(['匹配对局'])
    expect(textsOf(page, 'player-bar', 'player-bar__rating')).toEqual(['1612 · 4段', '1523 · 3段'])
    expect(page.data.whiteId).toBe('p2')
    // Black to make the first move: the server aborts the game if it does not come in time.
    expect(page.data.statusText).toBe('轮到你了（黑） · 请在 30 秒内落子')
    page.instance.onUnload()
  })

  test('a tap on the opponent\'s bar opens the player card', async () => {
    const {page} = await openRated(ratedState())
    page.querySelector('#top-bar').querySelectorAll('.player-bar')[0].dispatchEvent('tap')
    await until(() => page.data.cardShown, 'the card')
    expect(transport.calls('GET', '/players/p2')).toHaveLength(1)
    const card = page.querySelector('#card')
    expect(textsOf(card, 'player-card', 'player-card__name')).toEqual(['小红'])
    expect(textsOf(card, 'player-card', 'player-card__value')).toEqual(['1612 · 4段', '1500? · 新手'])
    expect(textsOf(card, 'player-card', 'player-card__record')).toEqual(['12 局 · 胜 7 · 负 4 · 和 1', '0 局 · 胜 0 · 负 0 · 和 0'])
    expect(textsOf(card, 'player-card', 'player-card__puzzle')).toEqual(['残局 1450 · 解出 5 · 失败 2'])
    expect(textsOf(card, 'player-card', 'player-card__score')).toEqual(['胜', '负'])
    expect(textsOf(card, 'player-card', 'player-card__delta')).toEqual(['+9', '−11'])
    expect(byClass(card, 'player-card', 'player-card__delta--down')).toHaveLength(1)
    card.querySelectorAll('.player-card__close')[0].dispatchEvent('tap')
    await flush()
    expect(page.data.cardShown).toBe(false)
    page.instance.onUnload()
  })

  test('the end shows the rating change, green when it went up', async () => {
    const {page, socket} = await openRated(ratedState())
    const over = ratedState({
      status: 'black_won', winner: 1, endReason: 'resign', currentPlayer: null, version: 2,
      ratingChanges: {black: {before: 1523, after: 1535, delta: 12, shown: '+12'}, white: {before: 1612, after: 1600, delta: -12, shown: '−12'}},
    })
    socket.receive({type: 'state', game: over})
    await flush()
    const dialog = page.querySelector('#result')
    expect(textsOf(dialog, 'result-dialog', 'result-dialog__title')).toEqual(['你赢了'])
    expect(textsOf(dialog, 'result-dialog', 'result-dialog__change')).toEqual(['等级分 1535（+12）'])
    expect(byClass(dialog, 'result-dialog', 'result-dialog__change--up')).toHaveLength(1)
    page.instance.onUnload()
  })

  test('the change that comes in a state after the end is added to the open result card', async () => {
    const {page, socket} = await openRated(ratedState())
    const ended = {status: 'white_won', winner: 2, endReason: 'resign', currentPlayer: null}
    socket.receive({type: 'state', game: ratedState(Object.assign({version: 2}, ended))})
    await flush()
    const dialog = page.querySelector('#result')
    expect(textsOf(dialog, 'result-dialog', 'result-dialog__title')).toEqual(['你已认输'])
    expect(textsOf(dialog, 'result-dialog', 'result-dialog__change')).toEqual([])
    socket.receive({type: 'state', game: ratedState(Object.assign({
      version: 3, ratingChanges: {black: {before: 1523, after: 1511, delta: -12, shown: '−12'}, white: {before: 1612, after: 1624, delta: 12, shown: '+12'}},
    }, ended))})
    await flush()
    expect(textsOf(dialog, 'result-dialog', 'result-dialog__change')).toEqual(['等级分 1511（−12）'])
    expect(byClass(dialog, 'result-dialog', 'result-dialog__change--down')).toHaveLength(1)
    page.instance.onUnload()
  })

  test('an aborted game says it was cancelled and not rated', async () => {
    const {page, socket} = await openRated(ratedState())
    socket.receive({type: 'state', game: ratedState({status: 'aborted', endReason: 'aborted', winner: null, currentPlayer: null, version: 2})})
    await flush()
    const dialog = page.querySelector('#result')
    expect(textsOf(dialog, 'result-dialog', 'result-dialog__title')).toEqual(['对局已取消（未计分）'])
    expect(textsOf(dialog, 'result-dialog', 'result-dialog__change')).toEqual([])
    expect(page.data.statusText).toBe('对局已取消（未计分）')
    page.instance.onUnload()
  })

  test('an unknown player: a toast, no card', async () => {
    const {page} = await openRated(ratedState())
    await page.instance.onPlayerTap({detail: {playerId: 'nobody'}})
    expect(page.data.cardShown).toBe(false)
    expect(wx.rec.toasts).toContain('找不到这位棋手')
    page.instance.onUnload()
  })
})

describe('player-card', () => {
  test('says when there are no rated games yet', () => {
    const comp = simulate.render(cardId, {show: true, player: {name: '新人', ratings: [], puzzle: '', recent: []}})
    comp.attach(document.createElement('parent-wrapper'))
    expect(textsOf(comp, 'player-card', 'player-card__empty')).toEqual(['还没有计分的对局'])
  })
})
