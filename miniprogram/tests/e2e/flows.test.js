/**
 * End to end against the real gomoku-server: the pages' own JS, rendered by
 * miniprogram-simulate, with a wx whose requests go over real HTTP. Every
 * flow of issue 3: play to a win through taps, undo, errors as toasts,
 * resume after a server restart, export, import, delete, replay at two
 * speeds, an AI game with a hint, and renju's forbidden points.
 *
 * The tests run in order and share one server and one player.
 */
const fs = require('fs')
const config = require('../../config')
const api = require('../../services/api')
const {loadPage, openPage, byClass, payloadBytes} = require('../support/harness')
const {install, lastQuery, USER_DATA_PATH} = require('../support/wx')
const {httpTransport} = require('../support/http')
const {tempDatabase, startServer, requireBinary} = require('../support/server')
const {until, flush, settle, tapPoint, tapButton, playAt} = require('../support/e2e')

requireBinary() // fail the suite with a clear message when the server is not built

const homeId = loadPage('home')
const gameId = loadPage('game')
const replayId = loadPage('replay')

let db
let server
let wx
const bytesPerMove = {local: [], ai: []}

async function start() {
  server = await startServer(db.file)
  config.baseUrl = server.baseUrl
}

/** GET a path with this player's token straight over HTTP, bypassing the app. */
function rawGet(path) {
  const {token} = wx.getStorageSync(api.TOKEN_KEY)
  return new Promise((resolve, reject) => {
    httpTransport({
      url: server.baseUrl + path,
      method: 'GET',
      header: {Authorization: `Bearer ${token}`},
      success: res => resolve(res),
      fail: reject,
    })
  })
}

async function newGameFromHome(choose) {
  const home = await openPage(homeId)
  choose(home.instance)
  await tapButton(home, '开始对局')
  await until(() => wx.rec.navigations.length > 0 && !home.data.starting, 'the new game to open')
  return lastQuery(wx).id
}

async function openGame(id) {
  const page = await openPage(gameId, {id})
  expect(page.data.loaded).toBe(true)
  return page
}

beforeAll(async () => {
  db = tempDatabase()
  wx = install(httpTransport)
  await start()
})

afterAll(async () => {
  if (server) await server.stop()
  if (db) fs.rmSync(db.dir, {recursive: true, force: true})
  if (bytesPerMove.local.length) console.log(`setData bytes per move on 15×15 — local: ${bytesPerMove.local.join(', ')}; ai (move + reply): ${bytesPerMove.ai.join(', ')}`)
})

beforeEach(() => {
  wx.rec.toasts.length = 0
  wx.rec.navigations.length = 0
})

const won = {}

describe('a local game on 15×15', () => {
  let page

  test('starts from the home page and plays to a win through taps', async () => {
    const id = await newGameFromHome(home => home.onModeChange({detail: {value: 'local'}}))
    page = await openGame(id)
    expect(page.data.board).toHaveLength(15)
    expect(page.data.statusText).toBe('黑方落子')

    // Black builds row 7, white answers on row 8; black's fifth stone wins.
    const black = [[7, 3], [7, 4], [7, 5], [7, 6], [7, 7]]
    const white = [[8, 3], [8, 4], [8, 5], [8, 6]]
    for (let i = 0; i < black.length; i++) {
      const {bytes, payloads} = await playAt(page, ...black[i])
      expect(payloads.some(p => 'board' in p)).toBe(false) // never the whole board
      if (i < white.length) {
        bytesPerMove.local.push(bytes)
        expect(page.data.statusText).toBe('白方落子')
        bytesPerMove.local.push((await playAt(page, ...white[i])).bytes)
      } else {
        bytesPerMove.local.push(bytes)
      }
    }
    expect(page.data.over).toBe(true)
    expect(page.data.statusText).toBe('黑方胜 · 五连')
    expect(page.data.winLine).toHaveLength(5)
    const winStones = byClass(page, 'board', 'board__stone--win')
    expect(winStones).toHaveLength(5)
    expect(byClass(page, 'board', 'board__last')).toHaveLength(1)
    // Every move but the last (which also carries the result and line) fits the budget.
    bytesPerMove.local.slice(0, -1).forEach(b => expect(b).toBeLessThanOrEqual(200))
    expect(bytesPerMove.local[bytesPerMove.local.length - 1]).toBeLessThanOrEqual(400)
    won.id = id
    won.board = JSON.parse(JSON.stringify(page.data.board))
  })

  test('taps on a finished game send nothing', async () => {
    const requests = wx.rec.requests.length
    await tapPoint(page, 0, 0)
    await new Promise(r => setTimeout(r, 50))
    expect(wx.rec.requests.length).toBe(requests)
  })

  test('undo reopens the won game and takes the stone back; playing again wins again', async () => {
    await settle(page, () => tapButton(page, '悔棋'))
    expect(page.data.over).toBe(false)
    expect(page.data.board[7][7]).toBe(0)
    expect(page.data.moveCount).toBe(8)
    expect(page.data.winLine).toEqual([])
    expect(page.data.statusText).toBe('黑方落子')
    await playAt(page, 7, 7)
    expect(page.data.over).toBe(true)
  })
})

describe('resign and a new game', () => {
  test('resigning after a confirmation ends the game; 新对局 opens one with the same settings', async () => {
    const id = await newGameFromHome(home => {
      home.onModeChange({detail: {value: 'local'}})
      home.onRuleChange({detail: {value: 'standard'}})
      home.onSizeDown()
    })
    const page = await openGame(id)
    await playAt(page, 6, 6)
    wx.rec.modalAnswer = false
    await tapButton(page, '认输')
    await new Promise(r => setTimeout(r, 50))
    expect(page.data.over).toBe(false)
    wx.rec.modalAnswer = true
    await settle(page, () => tapButton(page, '认输'))
    expect(wx.rec.modals.map(m => m.title).slice(-2)).toEqual(['认输', '认输'])
    expect(page.data.over).toBe(true)
    expect(page.data.statusText).toBe('黑方胜 · 白方认输')
    wx.rec.navigations.length = 0
    await tapButton(page, '新对局')
    await until(() => wx.rec.navigations.length > 0, 'the new game to open')
    expect(wx.rec.navigations[0].type).toBe('redirectTo')
    const next = await openGame(lastQuery(wx).id)
    expect(next.data.gameId).not.toBe(id)
    expect(next.data.title).toBe('双人 · 标准 · 14路')
    expect(next.data.board).toHaveLength(14)
    expect(next.data.moveCount).toBe(0)
  })
})

describe('errors become toasts and the page shows the server state', () => {
  let page

  test('an occupied point', async () => {
    const id = await newGameFromHome(home => home.onModeChange({detail: {value: 'local'}}))
    page = await openGame(id)
    await playAt(page, 7, 7)
    await playAt(page, 7, 7)
    expect(wx.rec.toasts).toEqual(['这里已经有棋子了'])
    expect(page.data.moveCount).toBe(1)
    expect(page.data.board[7][7]).toBe(1)
    expect(page.data.statusText).toBe('白方落子')
  })

  test('a double tap lands one move', async () => {
    const before = page.data.moveCount
    await settle(page, async () => {
      await tapPoint(page, 3, 3)
      await tapPoint(page, 3, 4)
    })
    await new Promise(r => setTimeout(r, 50))
    expect(page.data.moveCount).toBe(before + 1)
    expect(page.data.board[3][3]).toBe(2)
    expect(page.data.board[3][4]).toBe(0)
  })

  test('a game that ended elsewhere: the toast, then the server\'s result', async () => {
    const res = await new Promise((resolve, reject) => httpTransport({
      url: `${server.baseUrl}/api/v1/games/${page.data.gameId}/resign`,
      method: 'POST',
      header: {Authorization: `Bearer ${wx.getStorageSync(api.TOKEN_KEY).token}`},
      success: resolve,
      fail: reject,
    }))
    expect(res.statusCode).toBe(200)
    expect(page.data.over).toBe(false) // the page has not heard of it yet
    await playAt(page, 1, 1)
    expect(wx.rec.toasts).toEqual(['对局已结束'])
    expect(page.data.over).toBe(true)
    expect(page.data.statusText).toBe('白方胜 · 黑方认输')
    expect(page.data.board[1][1]).toBe(0)
  })

  test('a server that is down', async () => {
    page = await openGame(await newGameFromHome(home => home.onModeChange({detail: {value: 'local'}})))
    await server.stop()
    await settle(page, () => tapPoint(page, 0, 0))
    expect(wx.rec.toasts).toEqual(['无法连接服务器，请检查网络'])
    expect(page.data.board[0][0]).toBe(0)
    expect(page.data.pending).toBe('')
    await start()
  })
})

describe('after a server restart on the same file', () => {
  test('the home page lists the unfinished game and it resumes exactly', async () => {
    const id = await newGameFromHome(home => home.onModeChange({detail: {value: 'local'}}))
    const page = await openGame(id)
    for (const [r, c] of [[7, 7], [6, 8], [9, 9]]) await playAt(page, r, c)
    const board = JSON.parse(JSON.stringify(page.data.board))
    await server.stop()
    await start()

    const home = await openPage(homeId)
    expect(home.data.playing.map(g => g.id)).toContain(id)
    expect(home.data.finished.map(g => g.id)).toContain(won.id)
    wx.rec.navigations.length = 0
    const item = home.querySelectorAll('.home__item').find(i => i.dom.getAttribute('data-id') === id)
    item.dispatchEvent('tap')
    await flush()
    expect(wx.rec.navigations).toEqual([{type: 'navigateTo', url: `/pages/game/game?id=${id}`}])
    const resumed = await openGame(id)
    expect(resumed.data.board).toEqual(board)
    expect(resumed.data.moveCount).toBe(3)
    expect(resumed.data.lastMove).toEqual({row: 9, col: 9, player: 1})
    expect(resumed.data.statusText).toBe('白方落子')
  })
})

describe('export, import and delete', () => {
  let text

  test('export saves the server record as a file, copies it and offers to share it', async () => {
    const page = await openGame(won.id)
    await tapButton(page, '导出')
    await until(() => wx.rec.shares.length > 0, 'the share sheet')
    const filePath = `${USER_DATA_PATH}/gomoku-${won.id}.json`
    expect(wx.rec.shares[0]).toEqual({filePath, fileName: `gomoku-${won.id}.json`})
    text = wx.rec.files.get(filePath)
    expect(wx.rec.clipboard).toBe(text)
    const saved = JSON.parse(text)
    const res = await rawGet(`/api/v1/games/${won.id}/export`)
    expect(res.statusCode).toBe(200)
    const {exportedAt: a, ...fromApp} = saved
    const {exportedAt: b, ...fromServer} = res.data
    expect(fromApp).toEqual(fromServer)
    expect(saved.version).toBe('gomoku-1.0')
    expect(saved.moves).toHaveLength(9)
    expect(saved.moves[8].coord).toBe('h8')
    expect(saved.result.status).toBe('black_won')
  })

  test('import from the clipboard makes a new game with the same position', async () => {
    const home = await openPage(homeId)
    wx.rec.clipboard = text
    await tapButton(home, '从剪贴板导入棋谱')
    await until(() => wx.rec.navigations.length > 0, 'the imported game to open')
    const id = lastQuery(wx).id
    expect(id).not.toBe(won.id)
    const page = await openGame(id)
    expect(page.data.board).toEqual(won.board)
    expect(page.data.statusText).toBe('黑方胜 · 五连')
    won.importedId = id
  })

  test('a record the server rejects is a toast naming the move', async () => {
    const home = await openPage(homeId)
    const bad = JSON.parse(text)
    bad.moves[3].row = bad.moves[1].row
    bad.moves[3].col = bad.moves[1].col
    wx.rec.clipboard = JSON.stringify(bad)
    await home.instance.onImport()
    expect(wx.rec.toasts).toEqual(['棋谱无效（第 4 手）'])
    expect(wx.rec.navigations).toEqual([])
  })

  test('delete removes a finished game from the list', async () => {
    const home = await openPage(homeId)
    expect(home.data.finished.map(g => g.id)).toContain(won.importedId)
    wx.rec.modalAnswer = true
    await home.instance.onDelete({currentTarget: {dataset: {id: won.importedId}}})
    expect(home.data.finished.map(g => g.id)).not.toContain(won.importedId)
    const res = await rawGet(`/api/v1/games/${won.importedId}`)
    expect(res.statusCode).toBe(404)
  })
})

describe('replay', () => {
  afterEach(() => jest.useRealTimers())

  test('plays at 4× and 0.5× and ends on the final position with the winning line', async () => {
    const page = await openPage(replayId, {id: won.id})
    expect(page.data.moveCount).toBe(9)
    expect(page.data.step).toBe(0)
    jest.useFakeTimers()
    await tapButton(page, '4×')
    await tapButton(page, '▶ 播放')
    expect(page.data.playing).toBe(true)
    jest.advanceTimersByTime(250)
    expect(page.data.step).toBe(1)
    jest.advanceTimersByTime(750)
    expect(page.data.step).toBe(4)
    await tapButton(page, '0.5×')
    jest.advanceTimersByTime(1999)
    expect(page.data.step).toBe(4)
    jest.advanceTimersByTime(1)
    expect(page.data.step).toBe(5)
    jest.advanceTimersByTime(2000 * 4)
    expect(page.data.step).toBe(9)
    expect(page.data.playing).toBe(false)
    expect(jest.getTimerCount()).toBe(0)
    expect(page.data.board).toEqual(won.board)
    expect(byClass(page, 'board', 'board__stone--win')).toHaveLength(5)
    expect(page.data.resultText).toBe('黑方胜 · 五连')
    // Taps on the board do nothing during replay.
    const before = JSON.stringify(page.data.board)
    await tapPoint(page, 0, 0)
    expect(JSON.stringify(page.data.board)).toBe(before)
  })

  test('closing the page mid-replay leaves no timer running', async () => {
    const page = await openPage(replayId, {id: won.id})
    jest.useFakeTimers()
    await tapButton(page, '▶ 播放')
    jest.advanceTimersByTime(1000)
    expect(page.data.step).toBe(1)
    page.instance.onUnload()
    expect(jest.getTimerCount()).toBe(0)
  })
})

describe('against the AI', () => {
  test('the AI opens as black, answers each move, and a hint rings a point', async () => {
    const id = await newGameFromHome(home => {
      home.onModeChange({detail: {value: 'ai'}})
      home.onLevelChange({detail: {value: 'easy'}})
      home.onColourChange({detail: {value: 'white'}})
    })
    const page = await openGame(id)
    expect(page.data.moveCount).toBe(1)
    expect(page.data.statusText).toBe('轮到你了（白）')
    for (let i = 0; i < 3; i++) {
      let target = null
      for (let r = 0; r < 15 && !target; r++) {
        for (let c = 0; c < 15 && !target; c++) if (page.data.board[r][c] === 0 && (r + c) % 3 === 0) target = [r, c]
      }
      const count = page.data.moveCount
      const {bytes} = await playAt(page, ...target)
      expect(page.data.moveCount).toBe(count + 2)
      bytesPerMove.ai.push(bytes)
    }
    bytesPerMove.ai.forEach(b => expect(b).toBeLessThanOrEqual(200))

    await settle(page, () => tapButton(page, '提示'))
    const {hint} = page.data
    expect(hint).not.toBeNull()
    expect(page.data.board[hint.row][hint.col]).toBe(0)
    expect(page.data.hintText).toMatch(/^提示 [a-o]\d+：/)
    expect(byClass(page, 'board', 'board__hint')).toHaveLength(1)
  })
})

describe('renju', () => {
  test('black\'s forbidden points are marked and playing one is refused with its kind', async () => {
    const id = await newGameFromHome(home => {
      home.onModeChange({detail: {value: 'local'}})
      home.onRuleChange({detail: {value: 'renju'}})
    })
    const page = await openGame(id)
    // Black: two open twos crossing at h8 (row 7, col 7); white far away.
    const moves = [[7, 5], [0, 0], [7, 6], [0, 2], [5, 7], [0, 4], [6, 7], [0, 6]]
    for (const [r, c] of moves) await playAt(page, r, c)
    expect(page.data.forbidden).toEqual(expect.arrayContaining([{row: 7, col: 7, kind: 'double_three'}]))
    expect(byClass(page, 'board', 'board__forbidden--double_three').length).toBeGreaterThan(0)
    await playAt(page, 7, 7)
    expect(wx.rec.toasts).toEqual(['禁手：三三'])
    expect(page.data.board[7][7]).toBe(0)
    expect(page.data.moveCount).toBe(8)
  })
})
