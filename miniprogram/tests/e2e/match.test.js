/**
 * @jest-environment-options {"customExportConditions": ["node", "node-addons"]}
 */
/**
 * End to end, the pages of issue 26 against the real gomoku-server, with
 * phones in one process (tests/support/phones.js: each its own storage and
 * player, real HTTP, real WebSockets):
 *
 * - 匹配: A and B both seek in one pool from home; both homes move to the
 *   same new game, which both open as a rated game with their ratings on the
 *   bars; black plays and white sees the stone arrive over the socket; the
 *   player card opens; black resigns after a move each and both result cards
 *   show the rating change; 排行榜 opens.
 * - The opening: A starts a game against the AI under swap2 from home and
 *   places the first stone through the page; the banner moves on.
 * - 残局: the daily puzzle opens, a move is played through the page and the
 *   server answers; the solution is shown once the attempt ended.
 *
 * Each part runs once the server has it (tests/support/probe-online.js) and
 * is skipped, with a line saying why, before that.
 */
const fs = require('fs')
const config = require('../../config')
const api = require('../../services/api')
const {loadPage, textsOf} = require('../support/harness')
const {installPhones, createPhone} = require('../support/phones')
const {tempDatabase, startServer, requireBinary, serverHas26} = require('../support/server')
const {until, tapPoint, tapButton, buttonTexts} = require('../support/e2e')

requireBinary()
const HAS = serverHas26()
const skipped = (part, why) => console.log(`gomoku-server has no ${why} yet: the ${part} e2e test is skipped`)
if (!HAS.pools) skipped('匹配', 'pools (GET /api/v1/pools is not 200)')
if (!HAS.opening) skipped('opening', 'opening rules (POST /games with "opening": "swap2" gives no `opening`)')
if (!HAS.puzzles) skipped('残局', 'puzzles (GET /api/v1/puzzles/daily is not 200)')
const when = has => (has ? test : test.skip)

const homeId = loadPage('home')
const gameId = loadPage('game')
const leaderboardId = loadPage('leaderboard')
const puzzlesId = loadPage('puzzles')

installPhones()
const A = createPhone('A')
const B = createPhone('B')

let db
let server
const opened = [] // every page opened, unloaded at the end (sockets and timers)

async function open(phone, id, query) {
  const page = await phone.open(id, query)
  opened.push({phone, page})
  return page
}

/** The game id of the last game page `phone` navigated to. */
function navigatedGame(phone) {
  const nav = phone.rec.navigations.filter(n => n.url.startsWith('/pages/game/game?id=')).pop()
  return nav ? decodeURIComponent(nav.url.split('id=')[1]) : ''
}

beforeAll(async () => {
  if (!HAS.pools && !HAS.opening && !HAS.puzzles) return
  db = tempDatabase()
  server = await startServer(db.file)
  config.baseUrl = server.baseUrl
  for (const phone of [A, B]) {
    phone.rec.storage.set('gomoku.settings', JSON.stringify({confirm: 'off', muted: true, nameAsked: true, rulesSeen: true}))
    await phone.run(() => api.ensureSession())
  }
})

afterAll(async () => {
  for (const {phone, page} of opened) phone.run(() => page.instance.onUnload && page.instance.onUnload())
  for (const phone of [A, B]) for (const task of phone.rec.sockets) task.close({})
  if (server) await server.stop()
  if (db) fs.rmSync(db.dir, {recursive: true, force: true})
})

describe('匹配: two pages paired through the pool', () => {
  when(HAS.pools)('both seek in one pool, both open the same rated game, and a move on one shows on the other', async () => {
    const homeA = await open(A, homeId)
    const homeB = await open(B, homeId)
    const pool = homeA.data.pools[1].pool
    for (const [phone, home] of [[A, homeA], [B, homeB]]) {
      await phone.run(() => home.instance.onPoolTap({currentTarget: {dataset: {pool}}}))
    }
    await A.run(() => tapButton(homeA, '开始匹配'))
    await until(() => homeA.data.seeking, 'A to wait in the pool')
    expect(buttonTexts(homeA)).toContain('取消')
    // B sees A waiting there.
    await B.run(() => homeB.instance._loadPools())
    expect(homeB.data.pools.find(p => p.pool === pool).waitingText).toBe('1 人等待')
    await B.run(() => tapButton(homeB, '开始匹配'))
    await until(() => navigatedGame(A) && navigatedGame(B), 'both homes to open the new game')
    expect(navigatedGame(A)).toBe(navigatedGame(B))
    expect(homeA.data.seeking).toBe(false)
    expect(homeB.data.seeking).toBe(false)

    const id = navigatedGame(A)
    const gameA = await open(A, gameId, {id})
    const gameB = await open(B, gameId, {id})
    for (const page of [gameA, gameB]) {
      expect(page.data.title).toBe('匹配对局')
      expect(page.data.blackRating).toMatch(/^1500\? · /)
      expect(page.data.whiteRating).toMatch(/^1500\? · /)
    }
    expect(gameA.data.you + gameB.data.you).toBe(3)
    await until(() => gameA.instance._live && gameA.instance._live.live && gameB.instance._live && gameB.instance._live.live, 'both live sockets')
    const [black, blackPage, whitePage] = gameA.data.you === 1 ? [A, gameA, gameB] : [B, gameB, gameA]
    await black.run(() => tapPoint(blackPage, 7, 7))
    await until(() => whitePage.data.board[7][7] === 1, 'white to see black\'s stone over the socket')
    expect(whitePage.data.statusText).toBe('轮到你了（白） · 请在 30 秒内落子')
    const white = black === A ? B : A
    await white.run(() => tapPoint(whitePage, 6, 8))
    await until(() => blackPage.data.board[6][8] === 2, 'black to see white\'s stone')

    // The opponent's card from the bar, then the leaderboard with its player card.
    await black.run(() => blackPage.instance.onPlayerTap({detail: {playerId: blackPage.data.you === 1 ? blackPage.data.whiteId : blackPage.data.blackId}}))
    await until(() => blackPage.data.cardShown, 'the player card')
    expect(blackPage.data.card.ratings.map(r => r.family)).toEqual(['五子棋', '连珠'])
    await black.run(() => blackPage.instance.onCardClose())

    // Black resigns after a move each: both result cards show the rating change once the server applied it.
    await black.run(() => tapButton(blackPage, '认输'))
    await until(() => blackPage.data.resultShown && whitePage.data.resultShown, 'the result on both pages')
    await until(() => blackPage.data.result.change && whitePage.data.result.change, 'the rating changes on both pages')
    expect(blackPage.data.result.changeDir).toBe('down')
    expect(whitePage.data.result.changeDir).toBe('up')
    expect(whitePage.data.result.change).toMatch(/^等级分 \d+（\+\d+）$/)

    const board = await open(A, leaderboardId)
    expect(board.data.loadError).toBe('')
    expect(textsOf(board, 'leaderboard', 'leaderboard__tab')).toEqual(['五子棋', '连珠'])
  })
})

describe('the opening through the page', () => {
  when(HAS.opening)('a game against the AI under swap2 from home: the first stone placed as the banner asks', async () => {
    const home = await open(A, homeId)
    await A.run(async () => {
      home.instance.onModeChange({detail: {value: 'ai'}})
      home.instance.onLevelChange({detail: {value: 'easy'}})
      home.instance.onOpeningChange({detail: {value: 'swap2'}})
    })
    const before = A.rec.navigations.length
    await A.run(() => tapButton(home, '开始对局'))
    await until(() => A.rec.navigations.length > before, 'the new game to open')
    const page = await open(A, gameId, {id: navigatedGame(A)})
    expect(page.data.openingOn).toBe(true)
    expect(textsOf(page, 'game', 'game__opening-text')).toEqual(['请放置第 1 颗黑子'])
    await A.run(() => tapPoint(page, 7, 7))
    await until(() => page.data.board[7][7] === 1 && !page.data.pending, 'the stone placed')
    expect(textsOf(page, 'game', 'game__opening-text')).toEqual(['请放置第 2 颗白子'])
  })
})

describe('残局 through the page', () => {
  when(HAS.puzzles)('the daily puzzle: a move through the page, the server\'s answer, the solution after the end', async () => {
    const page = await open(B, puzzlesId)
    expect(page.data.loadError).toBe('')
    expect(page.data.heading).toMatch(/^[黑白]先胜 · \d+ 手内$/)
    // A corner far from the fight: it lets the win go, and the attempt ends.
    const n = page.data.board.length
    const corner = [[0, 0], [0, n - 1], [n - 1, 0], [n - 1, n - 1]].find(([r, c]) => !page.data.board[r][c])
    await B.run(() => tapPoint(page, corner[0], corner[1]))
    await until(() => !page.data.pending, 'the server\'s answer')
    expect(page.data.board[corner[0]][corner[1]]).toBe(page.data.attacker)
    expect(page.data.status).toBe('failed')
    expect(buttonTexts(page)).toEqual(['再试一次', '查看解答', '下一题'])
    await B.run(() => tapButton(page, '查看解答'))
    expect(page.data.solutionStep).toBe(1)
    await B.run(() => tapButton(page, '返回'))
    await B.run(() => tapButton(page, '再试一次'))
    await until(() => !page.data.pending && page.data.status === 'playing', 'a fresh attempt')
  })
})
