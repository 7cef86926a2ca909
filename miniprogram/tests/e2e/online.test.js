/**
 * @jest-environment-options {"customExportConditions": ["node", "node-addons"]}
 */
/**
 * End to end, play against a friend: three phones in one process
 * (tests/support/phones.js), each with its own storage and so its own
 * player, its requests over real HTTP and its live socket a real WebSocket,
 * all against the real gomoku-server. A creates a game and shares the card;
 * B opens it and joins; they alternate moves, each seeing the other's stone
 * come through the socket without a request; a takeback is accepted, a draw
 * declined; C opens the card and watches; the opponent leaving shows, on the
 * board and in the continue list; the server is killed and restarted
 * mid-game and both pages reconnect and play on; B resigns, both players see
 * the result dialog, and the game replays and is listed as finished; B
 * offers a rematch, A accepts, and both pages move to the new game with the
 * colours swapped; and a 2-second clock falls with both pages showing it.
 *
 * The tests run in order and share one server. They run once the server
 * plays online games (issue 12) with the offers of issue 24 (`{action}`
 * bodies, the rematch), and are skipped, with a line saying so, before that.
 *
 * (The environment option above makes Jest load `ws` for Node, not its
 * browser stub.)
 */
const fs = require('fs')
const config = require('../../config')
const api = require('../../services/api')
const {loadPage} = require('../support/harness')
const {installPhones, createPhone} = require('../support/phones')
const {tempDatabase, startServer, requireBinary, serverPlaysOnline, serverHasRematch} = require('../support/server')
const {until, flush, sleep, tapPoint, tapButton, buttonTexts} = require('../support/e2e')

requireBinary()
const ONLINE = serverPlaysOnline() && serverHasRematch()
if (!ONLINE) console.log('gomoku-server does not play online games with offers as {"action": …} and the rematch yet (POST /games {"mode": "online"} is not 201, or /games/{id}/rematch is no route): the online e2e tests are skipped')
const online = ONLINE ? test : test.skip

const homeId = loadPage('home')
const gameId = loadPage('game')
const replayId = loadPage('replay')

installPhones()
const A = createPhone('A')
const B = createPhone('B')
const C = createPhone('C')

let db
let server

/** A tap on a page of `phone`, and the page's own settling after it. */
async function tapOn(phone, page, label) {
  await phone.run(() => tapButton(page, label))
}

async function playOn(phone, page, row, col) {
  await phone.run(() => tapPoint(page, row, col))
  await until(() => page.data.board[row][col] !== 0 && !page.data.pending, `${phone.name}'s move at ${row},${col}`)
}

/** The query of an invite card's path (/pages/game/game?id=…&join=1). */
function cardQuery(path) {
  const [page, search] = path.split('?')
  expect(page).toBe('/pages/game/game')
  const query = {}
  search.split('&').forEach(pair => {
    const [k, v] = pair.split('=')
    query[k] = decodeURIComponent(v)
  })
  return query
}

/** Wait until the page's live socket has delivered a message (the connection works). */
function liveOn(page, what) {
  return until(() => page.instance._live && page.instance._live.live, `${what}'s live connection`)
}

beforeAll(async () => {
  if (!ONLINE) return
  db = tempDatabase()
  server = await startServer(db.file)
  config.baseUrl = server.baseUrl
  // One session each, one after the other (the app shares a first-session request within one phone only).
  for (const phone of [A, B, C]) {
    phone.rec.storage.set('gomoku.settings', JSON.stringify({confirm: 'off', muted: false}))
    await phone.run(() => api.ensureSession())
  }
})

afterAll(async () => {
  for (const phone of [A, B, C]) {
    for (const task of phone.rec.sockets) task.close({})
  }
  if (server) await server.stop()
  if (db) fs.rmSync(db.dir, {recursive: true, force: true})
})

const game = {} // what the tests share: the pages and the card

describe('a game against a friend, from the invite to the result', () => {
  online('the phones are apart: three players, three tokens', () => {
    const tokens = [A, B, C].map(p => p.wx.getStorageSync(api.TOKEN_KEY))
    expect(new Set(tokens.map(t => t.token)).size).toBe(3)
    expect(new Set(tokens.map(t => t.playerId)).size).toBe(3)
  })

  online('A creates it from home (asked for a name first) and lands on the waiting screen with the invite', async () => {
    const home = await A.open(homeId)
    await A.run(async () => {
      home.instance.onModeChange({detail: {value: 'online'}})
      home.instance.onSeatChange({detail: {value: 'black'}})
    })
    expect(buttonTexts(home)).toContain('创建并邀请好友')
    await tapOn(A, home, '创建并邀请好友')
    await until(() => home.data.nameSheet, 'the name sheet')
    await A.run(() => home.querySelector('#name').instance.onSubmit({detail: {value: {name: '阿明'}}}))
    await until(() => A.rec.navigations.length > 0, 'the new game to open')
    const url = A.rec.navigations[0].url
    expect(url).toMatch(/^\/pages\/game\/game\?id=/)
    game.a = await A.open(gameId, {id: decodeURIComponent(url.split('id=')[1])})
    expect(game.a.data.waiting).toBe(true)
    expect(game.a.data.you).toBe(1)
    expect(buttonTexts(game.a)).toEqual(['复制邀请', '取消'])
    await liveOn(game.a, 'A')
    const card = A.run(() => game.a.instance.onShareAppMessage({from: 'button'}))
    expect(card.title).toBe('「阿明」邀你下一盘五子棋 · 无禁手')
    game.card = cardQuery(card.path)
    expect(game.card).toEqual({id: game.a.data.gameId, join: '1'})
  })

  online('B opens the card, names itself and joins; A\'s waiting screen turns into the board through the socket', async () => {
    const aRequests = A.rec.requests.length
    const {launchPage} = require('../support/harness')
    const opened = B.run(() => launchPage(gameId, game.card))
    await until(() => opened.page.data.nameSheet, 'B\'s name sheet')
    expect(opened.page.querySelector('#name').data.invite).toBe('「阿明」邀你下一盘五子棋')
    await B.run(() => opened.page.querySelector('#name').instance.onSubmit({detail: {value: {name: '小红'}}}))
    game.b = await opened.ready
    expect(game.b.data.you).toBe(2)
    expect(game.b.data.statusText).toBe('等待对方落子…')
    await until(() => !game.a.data.waiting, 'A to see B join')
    expect(A.rec.requests.length).toBe(aRequests)
    expect(A.rec.toasts).toContain('好友已加入，对局开始')
    for (const page of [game.a, game.b]) {
      expect(page.data.blackName).toBe('阿明')
      expect(page.data.whiteName).toBe('小红')
    }
    await liveOn(game.b, 'B')
    await until(() => game.a.data.whiteOnline && game.b.data.blackOnline, 'both to see each other online')
  })

  online('they alternate moves, and each sees the other\'s stone through the socket without a request', async () => {
    const moves = [[A, game.a, 7, 7], [B, game.b, 6, 6], [A, game.a, 7, 8], [B, game.b, 6, 7], [A, game.a, 7, 9]]
    for (const [phone, page, row, col] of moves) {
      const other = phone === A ? B : A
      const otherPage = page === game.a ? game.b : game.a
      const requests = other.rec.requests.length
      await playOn(phone, page, row, col)
      await until(() => otherPage.data.board[row][col] === page.data.board[row][col], `${other.name} to see the stone`)
      expect(other.rec.requests.length).toBe(requests)
      expect(otherPage.data.statusText).toBe(`轮到你了（${other === A ? '黑' : '白'}）`)
      expect(page.data.statusText).toBe('等待对方落子…')
    }
    expect(game.b.data.board).toEqual(game.a.data.board)
    expect(game.a.data.moveCount).toBe(5)
    // The one not to move cannot: the board is disabled and a tap sends nothing.
    const requests = A.rec.requests.length
    await A.run(() => tapPoint(game.a, 0, 0))
    await sleep(50)
    expect(A.rec.requests.length).toBe(requests)
  })

  online('a takeback: A asks, B\'s page shows the offer, B accepts, both boards lose A\'s stone', async () => {
    await tapOn(A, game.a, '请求悔棋')
    await until(() => game.b.data.offerIn === 'takeback', 'B to see the offer')
    // B's socket can bring the offer before A's own request has answered.
    await until(() => buttonTexts(game.a).includes('已请求…'), 'A\'s page to show the request')
    expect(buttonTexts(game.b)).toEqual(expect.arrayContaining(['拒绝', '同意']))
    await tapOn(B, game.b, '同意')
    await until(() => game.a.data.moveCount === 4 && game.b.data.moveCount === 4, 'the takeback on both phones')
    for (const page of [game.a, game.b]) expect(page.data.board[7][9]).toBe(0)
    await until(() => A.rec.toasts.includes('对方同意了悔棋'), 'A to be told')
    expect(game.a.data.statusText).toBe('轮到你了（黑）')
    expect(game.b.data.offerIn).toBe('')
  })

  online('a draw: B offers, A declines, B is told and the game goes on', async () => {
    await playOn(A, game.a, 8, 8)
    await until(() => game.b.data.moveCount === 5, 'B to see A\'s move')
    B.rec.modalAnswer = true
    await tapOn(B, game.b, '求和')
    await until(() => game.a.data.offerIn === 'draw', 'A to see the draw offer')
    await tapOn(A, game.a, '拒绝')
    await until(() => B.rec.toasts.includes('对方拒绝了和棋'), 'B to be told')
    expect(game.b.data.drawOut).toBe(false)
    expect(game.a.data.over).toBe(false)
  })

  online('C opens the same card and watches: read-only, both names, the stones as they land', async () => {
    game.c = await C.open(gameId, game.card)
    expect(game.c.data.you).toBe(0)
    expect(C.rec.titles).toEqual(['观战'])
    expect(game.c.data.blackName).toBe('阿明')
    expect(game.c.data.whiteName).toBe('小红')
    expect(game.c.data.board).toEqual(game.a.data.board)
    expect(buttonTexts(game.c)).toEqual(['导出', '复盘', '设置'])
    await liveOn(game.c, 'C')
    await until(() => game.a.data.spectators === 1, 'A to count the spectator')
    const requests = C.rec.requests.length
    await playOn(B, game.b, 5, 5)
    await until(() => game.c.data.board[5][5] === 2, 'C to see B\'s stone')
    expect(C.rec.requests.length).toBe(requests)
    await C.run(() => tapPoint(game.c, 0, 0))
    await sleep(50)
    expect(C.rec.requests.length).toBe(requests)
  })

  online('B leaving shows on A\'s page as offline, with the banner, and in A\'s continue list; B back, it goes', async () => {
    const listed = async () => {
      const home = await A.open(homeId)
      return home.data.playing.find(g => g.id === game.card.id)
    }
    expect(await listed()).toEqual(expect.objectContaining({title: '好友对战 · 小红', detail: '无禁手 · 15路 · 对方在线', yourTurn: true}))
    B.run(() => game.b.instance.onHide())
    await until(() => !game.a.data.whiteOnline, 'A to see B offline')
    expect(game.a.querySelectorAll('.game__banner').map(b => b.dom.textContent.trim())).toEqual(['对方已离线，回来后可以接着下'])
    expect((await listed()).detail).toBe('无禁手 · 15路 · 对方离线')
    await B.run(() => game.b.instance.onShow())
    await until(() => game.a.data.whiteOnline, 'A to see B back')
    expect(game.a.querySelectorAll('.game__banner')).toHaveLength(0)
  })

  online('the server is killed mid-game and restarted: both pages say so, reconnect, and play on', async () => {
    await server.kill()
    await until(() => game.a.data.linkDown && game.b.data.linkDown, 'both pages to notice', 10000)
    expect(game.a.querySelectorAll('.game__banner').map(b => b.dom.textContent.trim())).toEqual(['连接中断，正在重连…'])
    server = await startServer(db.file, {addr: server.addr})
    await until(() => !game.a.data.linkDown && !game.b.data.linkDown, 'both pages to reconnect', 45000)
    await liveOn(game.a, 'A')
    await liveOn(game.b, 'B')
    // A is to move (after B's 5,5); the game goes on where it was.
    expect(game.a.data.moveCount).toBe(6)
    const requests = B.rec.requests.length
    await playOn(A, game.a, 9, 9)
    await until(() => game.b.data.board[9][9] === 1, 'B to see A\'s move after the restart')
    expect(B.rec.requests.length).toBe(requests)
  }, 90000)

  online('B resigns: every page shows the result and its dialog; the spectator\'s socket closes, the players\' stay for a rematch', async () => {
    B.rec.modalAnswer = true
    await tapOn(B, game.b, '认输')
    await until(() => game.a.data.over && game.b.data.over && game.c.data.over, 'the result on every phone')
    expect(game.a.data.statusText).toBe('你赢了！ · 对方认输')
    expect(game.b.data.statusText).toBe('你已认输')
    expect(game.c.data.statusText).toBe('黑方胜 · 白方认输')
    expect(game.a.data.result).toEqual({outcome: 'win', mark: '胜', title: '你赢了', how: '对方认输'})
    expect(game.b.data.result).toEqual({outcome: 'loss', mark: '负', title: '你已认输', how: '认输'})
    expect(game.c.data.result).toEqual({outcome: 'black', mark: '黑', title: '黑方胜', how: '白方认输'})
    expect(A.rec.toasts).toContain('对方已认输')
    for (const page of [game.a, game.b]) expect(buttonTexts(page).slice(0, 3)).toEqual(['复盘分析', '再来一局', '返回首页'])
    await until(() => C.rec.sockets.every(s => !s.isOpen), 'the spectator\'s socket to close')
    expect(game.a.instance._live.live && game.b.instance._live.live).toBe(true)
  })

  online('the finished game replays like any other, and is listed as finished for both, not deletable', async () => {
    const replay = await A.open(replayId, {id: game.card.id})
    expect(replay.data.finished).toBe(true)
    expect(replay.data.moveCount).toBe(game.a.data.moveCount)
    expect(replay.data.resultText).toBe('你赢了！ · 对方认输')
    for (const [phone, result] of [[A, '你赢了！ · 对方认输'], [B, '你已认输']]) {
      const home = await phone.open(homeId)
      const item = home.data.finished.find(g => g.id === game.card.id)
      expect(item).toEqual(expect.objectContaining({detail: `${result} · 已下 ${game.a.data.moveCount} 手`, deletable: false}))
    }
  })
})

describe('the rematch', () => {
  online('B offers a rematch, A sees it and accepts, and both pages move to the new game with the colours swapped', async () => {
    await tapOn(B, game.b, '再来一局')
    await until(() => game.b.data.rematchOut, 'B\'s offer to be on B\'s page')
    expect(game.b.data.offerOutLeft).toMatch(/^(10:00|9:5\d)$/)
    await until(() => game.a.data.offerIn === 'rematch', 'A to see the offer')
    expect(game.a.querySelector('#offer').querySelectorAll('.offer-dialog__title').map(t => t.dom.textContent)).toEqual(['对方想再来一局'])
    const navigated = phone => phone.rec.navigations.filter(n => n.type === 'redirectTo')
    const before = [navigated(A).length, navigated(B).length]
    await tapOn(A, game.a, '同意')
    await until(() => navigated(A).length > before[0] && navigated(B).length > before[1], 'both pages to move to the new game')
    const url = navigated(A).slice(-1)[0].url
    expect(navigated(B).slice(-1)[0].url).toBe(url)
    const id = decodeURIComponent(url.split('id=')[1])
    expect(id).not.toBe(game.card.id)
    const a = await A.open(gameId, {id})
    const b = await B.open(gameId, {id})
    // Colours swapped: A played black, now white; same rule, size and time control; both seated, playing.
    expect(a.data.you).toBe(2)
    expect(b.data.you).toBe(1)
    for (const page of [a, b]) {
      expect(page.data.blackName).toBe('小红')
      expect(page.data.whiteName).toBe('阿明')
      expect(page.data.details).toBe(game.a.data.details)
      expect(page.data.waiting).toBe(false)
      expect(page.data.over).toBe(false)
      expect(page.data.moveCount).toBe(0)
    }
    expect(b.data.statusText).toBe('轮到你了（黑）')
    await liveOn(a, 'A')
    await playOn(B, b, 7, 7)
    await until(() => a.data.board[7][7] === 1, 'A to see B\'s first move in the new game')
    A.run(() => a.instance.onUnload())
    B.run(() => b.instance.onUnload())
  })
})

describe('a timed game', () => {
  online('a 2-second clock falls with nobody asking, and both pages show it', async () => {
    const created = await A.run(() => api.createGame({mode: 'online', rule: 'freestyle', boardSize: 15, seat: 'black', timeControl: {initialMs: 2000, incrementMs: 0}}))
    const a = await A.open(gameId, {id: created.id})
    const b = await B.open(gameId, {id: created.id, join: '1'})
    await until(() => !a.data.waiting, 'A to see B join')
    expect(a.data.blackClock).toBe('0:02')
    await liveOn(a, 'A')
    await liveOn(b, 'B')
    await playOn(A, a, 7, 7)
    // White's clock runs now; B does not move.
    await until(() => b.data.whiteClock === '0:01' || b.data.over, 'B\'s clock to count down')
    await until(() => a.data.over && b.data.over, 'the flag to fall on both pages', 15000)
    expect(a.data.statusText).toBe('你赢了！ · 对方超时')
    expect(b.data.statusText).toBe('你输了 · 超时')
    expect(b.data.whiteClock).toBe('0:00')
    // Over, the players' sockets stay open for a rematch: closing the pages closes them.
    A.run(() => a.instance.onUnload())
    B.run(() => b.instance.onUnload())
    await flush()
  }, 30000)
})
