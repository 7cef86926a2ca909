/**
 * Page logic against a scripted transport (the real server is exercised in
 * tests/e2e): the option group, the home page's settings, the game page's
 * in-flight guard and error handling, and the replay page's timer hygiene.
 */
const {load, loadPage, openPage, simulate, byClass} = require('../support/harness')
const {install} = require('../support/wx')
const {fakeTransport} = require('../support/fake-transport')
const {emptyBoard} = require('../../utils/board')

const optionGroupId = load('components/option-group/option-group', 'option-group')
const homeId = loadPage('home')
const gameId = loadPage('game')
const replayId = loadPage('replay')

let transport
let wx

function gameState(overrides = {}) {
  return Object.assign({
    id: 'g1', mode: 'local', rule: 'freestyle', boardSize: 15, board: emptyBoard(15),
    moveHistory: [], moveCount: 0, currentPlayer: 1, status: 'playing', winner: null,
    endReason: null, winLine: null, lastMove: null, forbiddenMoves: [], ai: null,
    createdAt: '2026-11-30T04:00:00Z', updatedAt: '2026-11-30T04:00:00Z',
  }, overrides)
}

beforeEach(() => {
  transport = fakeTransport()
  transport.on('POST', '/api/v1/sessions', () => [201, {token: 't', playerId: 'p'}])
  wx = install(transport)
})

afterEach(() => {
  jest.useRealTimers()
})

describe('option-group', () => {
  test('marks the chosen option and emits change for another one', async () => {
    const comp = simulate.render(optionGroupId, {
      label: '规则',
      options: [{value: 'a', label: 'A'}, {value: 'b', label: 'B'}],
      value: 'a',
    })
    comp.attach(document.createElement('parent-wrapper'))
    const items = byClass(comp, 'option-group', 'option-group__item')
    expect(items.map(i => i.textContent)).toEqual(['A', 'B'])
    expect(byClass(comp, 'option-group', 'option-group__item--active')).toEqual([items[0]])
    const changes = []
    comp.addEventListener('change', e => changes.push(e.detail))
    comp.querySelectorAll('.option-group__item')[0].dispatchEvent('tap')
    comp.querySelectorAll('.option-group__item')[1].dispatchEvent('tap')
    await simulate.sleep(0)
    expect(changes).toEqual([{value: 'b'}])
  })
})

describe('home page', () => {
  beforeEach(() => {
    transport.on('GET', '/api/v1/games', () => [200, {games: [], nextCursor: null}])
  })

  test('starts an AI game with the AI on the other colour, then opens it', async () => {
    transport.on('POST', '/api/v1/games', () => [201, gameState({id: 'new1'})])
    const page = await openPage(homeId)
    page.instance.onRuleChange({detail: {value: 'renju'}})
    page.instance.onLevelChange({detail: {value: 'master'}})
    page.instance.onColourChange({detail: {value: 'white'}})
    page.instance.onSizeDown()
    await page.instance.onStart()
    const create = transport.state.calls.find(c => c.method === 'POST' && c.path === '/api/v1/games')
    expect(create.data).toEqual({mode: 'ai', rule: 'renju', boardSize: 14, ai: {level: 'master', player: 1}})
    expect(wx.rec.navigations).toEqual([{type: 'navigateTo', url: '/pages/game/game?id=new1'}])
  })

  test('board size stays within 9 and 19', async () => {
    const page = await openPage(homeId)
    for (let i = 0; i < 12; i++) page.instance.onSizeUp()
    expect(page.data.boardSize).toBe(19)
    for (let i = 0; i < 12; i++) page.instance.onSizeDown()
    expect(page.data.boardSize).toBe(9)
  })

  test('export without shareFileMessage saves, copies and says so', async () => {
    const record = {version: 'gomoku-1.0', id: 'g9', moves: []}
    transport.on('GET', '/api/v1/games/g9/export', () => [200, record])
    delete wx.shareFileMessage
    const page = await openPage(homeId)
    await page.instance.onExport({currentTarget: {dataset: {id: 'g9'}}})
    const saved = wx.rec.files.get('wxfile://usr/gomoku-g9.json')
    expect(JSON.parse(saved)).toEqual(record)
    expect(wx.rec.clipboard).toBe(saved)
    expect(wx.rec.modals).toEqual([])
    expect(wx.rec.toasts).toEqual(['棋谱已保存并复制到剪贴板'])
  })

  test('importing something that is not JSON says so and sends nothing', async () => {
    const page = await openPage(homeId)
    wx.rec.clipboard = 'hello'
    await page.instance.onImport()
    expect(wx.rec.toasts).toEqual(['剪贴板里没有棋谱（JSON）'])
    expect(transport.state.calls.some(c => c.path === '/api/v1/games/import')).toBe(false)
  })
})

describe('game page', () => {
  test('a double tap sends one move, with its ply', async () => {
    let moves = 0
    transport.on('GET', '/api/v1/games/g1', () => [200, gameState()])
    transport.on('POST', '/api/v1/games/g1/moves', options => {
      moves += 1
      const s = gameState({moveCount: 1, currentPlayer: 2})
      s.board[options.data.row][options.data.col] = 1
      s.lastMove = {row: options.data.row, col: options.data.col, player: 1}
      return [200, s]
    })
    const page = await openPage(gameId, {id: 'g1'})
    const first = page.instance.onCellTap({detail: {row: 7, col: 7}})
    const second = page.instance.onCellTap({detail: {row: 7, col: 8}})
    expect(page.data.pending).toBe('move')
    await Promise.all([first, second])
    expect(moves).toBe(1)
    expect(transport.state.calls.find(c => c.path.endsWith('/moves')).data).toEqual({row: 7, col: 7, ply: 0})
    expect(page.data.board[7][7]).toBe(1)
    expect(page.data.pending).toBe('')
  })

  test('an error toasts in Chinese and the page shows the server state again', async () => {
    const server = gameState({moveCount: 1, currentPlayer: 2})
    server.board[7][7] = 1
    transport.on('GET', '/api/v1/games/g1', () => [200, server])
    transport.on('POST', '/api/v1/games/g1/moves', () => [409, {error: {code: 'CELL_OCCUPIED', message: 'occupied'}}])
    const page = await openPage(gameId, {id: 'g1'})
    const gets = () => transport.state.calls.filter(c => c.method === 'GET' && c.path === '/api/v1/games/g1').length
    const before = gets()
    await page.instance.onCellTap({detail: {row: 7, col: 7}})
    expect(wx.rec.toasts).toEqual(['这里已经有棋子了'])
    expect(gets()).toBe(before + 1)
    expect(page.data.board[7][7]).toBe(1)
    expect(page.data.pending).toBe('')
  })

  test('taps do nothing once the game is over', async () => {
    transport.on('GET', '/api/v1/games/g1', () => [200, gameState({status: 'draw', endReason: 'board_full', currentPlayer: null})])
    const page = await openPage(gameId, {id: 'g1'})
    await page.instance.onCellTap({detail: {row: 0, col: 0}})
    expect(transport.state.calls.some(c => c.path.endsWith('/moves'))).toBe(false)
    expect(page.data.statusText).toBe('和棋 · 棋盘已满')
  })

  test('a hint rings the point and explains it; the next move clears it', async () => {
    transport.on('GET', '/api/v1/games/g1', () => [200, gameState()])
    transport.on('GET', '/api/v1/games/g1/hint', () => [200, {row: 7, col: 7, reason: 'VCF in 7'}])
    transport.on('POST', '/api/v1/games/g1/moves', () => {
      const s = gameState({moveCount: 1, currentPlayer: 2, lastMove: {row: 7, col: 7, player: 1}})
      s.board[7][7] = 1
      return [200, s]
    })
    const page = await openPage(gameId, {id: 'g1'})
    await page.instance.onHint()
    expect(page.data.hint).toEqual({row: 7, col: 7})
    expect(page.data.hintText).toBe('提示 h8：连续冲四，7 步取胜')
    expect(byClass(page, 'board', 'board__hint')).toHaveLength(1)
    await page.instance.onCellTap({detail: {row: 7, col: 7}})
    expect(page.data.hint).toBeNull()
    expect(byClass(page, 'board', 'board__hint')).toHaveLength(0)
  })
})

describe('replay page', () => {
  const moves = [[7, 7], [7, 8], [8, 8], [6, 6]].map(([row, col], i) => ({row, col, player: (i % 2) + 1}))

  beforeEach(() => {
    transport.on('GET', '/api/v1/games/g1/replay', () => [200, {
      boardSize: 15, rule: 'freestyle', moveCount: 4, moves, status: 'playing', winner: null, winLine: null,
    }])
    transport.on('GET', '/api/v1/games/g1', () => [200, gameState({moveCount: 4})])
  })

  test('plays to the end, then stops its timer', async () => {
    const page = await openPage(replayId, {id: 'g1'})
    jest.useFakeTimers()
    page.instance.onTogglePlay()
    jest.advanceTimersByTime(1000)
    expect(page.data.step).toBe(1)
    jest.advanceTimersByTime(3000)
    expect(page.data.step).toBe(4)
    expect(page.data.playing).toBe(false)
    expect(jest.getTimerCount()).toBe(0)
  })

  test('unloading mid-replay leaves no timer behind', async () => {
    const page = await openPage(replayId, {id: 'g1'})
    jest.useFakeTimers()
    page.instance.onTogglePlay()
    jest.advanceTimersByTime(1000)
    expect(jest.getTimerCount()).toBe(1)
    page.instance.onUnload()
    expect(jest.getTimerCount()).toBe(0)
    jest.advanceTimersByTime(5000)
    expect(page.data.step).toBe(1)
  })

  test('hiding pauses; stepping and seeking move one frame at a time', async () => {
    const page = await openPage(replayId, {id: 'g1'})
    jest.useFakeTimers()
    page.instance.onTogglePlay()
    page.instance.onHide()
    expect(page.data.playing).toBe(false)
    expect(jest.getTimerCount()).toBe(0)
    page.instance.onSeek({detail: {value: 3}})
    expect(page.data.board[8][8]).toBe(1)
    expect(page.data.board[6][6]).toBe(0)
    page.instance.onStepBack()
    expect(page.data.step).toBe(2)
    expect(page.data.board[8][8]).toBe(0)
    page.instance.onStepForward()
    page.instance.onStepForward()
    expect(page.data.step).toBe(4)
    expect(page.data.lastMove).toEqual({row: 6, col: 6, player: 2})
  })
})
