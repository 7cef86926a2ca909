/**
 * 排行榜 against a scripted transport: a tab per family fetched by its rule,
 * rows with place, name, the server's rank name, rating and games, the
 * viewer's own row highlighted, a tap on a row opening the player card, and
 * a failed load with 重试.
 */
const {loadPage, openPage, textsOf, byClass} = require('../support/harness')
const {installScripted} = require('../support/fake-transport')
const {until} = require('../support/e2e')

const leaderboardId = loadPage('leaderboard')

let transport

const entry = (place, playerId, name, shown, rank, games) => ({
  place, playerId, name,
  rating: {family: 'gomoku', rating: Number(shown), rd: 50, provisional: false, shown, rank: {name: rank, tier: 'dan'}, games, wins: 0, losses: 0, draws: 0},
})

beforeEach(() => {
  ;({transport} = installScripted()) // the session's player is 'p'
  transport.on('GET', '/api/v1/leaderboard', options => [200, options.data.rule === 'renju'
    ? {family: 'renju', players: [entry(1, 'q9', '连珠王', '1801', '6段', 40)]}
    : {family: 'gomoku', players: [entry(1, 'q1', '阿强', '1750', '5段', 31), entry(2, 'p', '我自己', '1620', '4段', 22)]}])
  transport.on('GET', '/api/v1/players/q1', () => [200, {playerId: 'q1', name: '阿强', ratings: [], puzzle: null, recent: []}])
})

describe('排行榜', () => {
  test('the gomoku tab first: its rows, the viewer\'s own highlighted', async () => {
    const page = await openPage(leaderboardId)
    expect(transport.calls('GET', '/leaderboard').map(c => c.data)).toEqual([{rule: 'freestyle'}])
    expect(textsOf(page, 'leaderboard', 'leaderboard__tab')).toEqual(['五子棋', '连珠'])
    expect(textsOf(page, 'leaderboard', 'leaderboard__name')).toEqual(['棋手', '阿强', '我我自己'])
    expect(textsOf(page, 'leaderboard', 'leaderboard__rank')).toEqual(['段位', '5段', '4段'])
    expect(textsOf(page, 'leaderboard', 'leaderboard__rating')).toEqual(['等级分', '1750', '1620'])
    expect(textsOf(page, 'leaderboard', 'leaderboard__games')).toEqual(['局数', '31', '22'])
    const mine = byClass(page, 'leaderboard', 'leaderboard__row--mine')
    expect(mine).toHaveLength(1)
    expect(mine[0].textContent).toContain('我自己')
    expect(textsOf(page, 'leaderboard', 'leaderboard__note')).toEqual([])
  })

  test('the renju tab fetches its own board; the viewer not on it is told how to get there', async () => {
    const page = await openPage(leaderboardId)
    page.querySelectorAll('.leaderboard__tab')[1].dispatchEvent('tap')
    await until(() => page.data.family === 'renju' && page.data.loaded && !page.data.loading, 'the renju board')
    expect(transport.calls('GET', '/leaderboard').map(c => c.data)).toEqual([{rule: 'freestyle'}, {rule: 'renju'}])
    expect(textsOf(page, 'leaderboard', 'leaderboard__name')).toEqual(['棋手', '连珠王'])
    expect(textsOf(page, 'leaderboard', 'leaderboard__note')).toHaveLength(1)
  })

  test('a tap on a row opens the player card', async () => {
    const page = await openPage(leaderboardId)
    page.querySelectorAll('.leaderboard__row')[0].dispatchEvent('tap')
    await until(() => page.data.cardShown, 'the card')
    expect(textsOf(page.querySelector('#card'), 'player-card', 'player-card__name')).toEqual(['阿强'])
  })

  test('a failed load says why, with 重试', async () => {
    transport.state.down = true
    const page = await openPage(leaderboardId)
    expect(page.data.loadError).toBe('无法连接服务器，请检查网络')
    transport.state.down = false
    await page.instance.onRetryLoad()
    expect(page.data.loadError).toBe('')
    expect(page.data.rows).toHaveLength(2)
  })
})
