/**
 * The replay page against a scripted transport: frames built from the game's
 * moves, the result kept back until the last move (or 显示结果), an unfinished
 * game (one still waiting for the friend among them) labelled and continued
 * from here, first / last, the move list, swipes,
 * move numbers, the failed-load state, and no timer left behind.
 */
const {loadPage, openPage, byClass} = require('../support/harness')
const {installScripted} = require('../support/fake-transport')
const {gameState, onlineState} = require('../support/states')

const replayId = loadPage('replay')

let transport
let wx

const MOVES = [[7, 7], [7, 8], [8, 8], [6, 6]]

beforeEach(() => {
  ;({transport, wx} = installScripted())
})

afterEach(() => {
  jest.useRealTimers()
})

function serve(overrides) {
  transport.on('GET', '/api/v1/games/g1', () => [200, gameState(Object.assign({moves: MOVES}, overrides))])
}

const resultLine = page => byClass(page, 'replay', 'replay__result')[0].textContent.trim()

test('plays to the end, then stops its timer', async () => {
  serve()
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
  serve()
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

test('hiding pauses; stepping, first / last and seeking show one frame at a time', async () => {
  serve()
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
  page.instance.onLast()
  expect(page.data.step).toBe(4)
  expect(page.data.last).toBe(6 * 15 + 6)
  page.instance.onFirst()
  expect(page.data.step).toBe(0)
  expect(page.data.board.every(row => row.every(c => c === 0))).toBe(true)
  expect(page.data.last).toBe(-1)
})

test('the move list names every move; tapping one jumps there and it is highlighted', async () => {
  serve()
  const page = await openPage(replayId, {id: 'g1'})
  expect(page.data.moves).toEqual([
    {coord: 'h8', player: 1}, {coord: 'i8', player: 2}, {coord: 'i7', player: 1}, {coord: 'g9', player: 2},
  ])
  const items = page.querySelector('#moves').querySelectorAll('.move-list__item')
  expect(items).toHaveLength(5) // 开局 and the four moves
  items[3].dispatchEvent('tap')
  await new Promise(r => setTimeout(r, 0))
  expect(page.data.step).toBe(3)
  expect(page.data.board[8][8]).toBe(1)
  const current = byClass(page.querySelector('#moves'), 'move-list', 'move-list__item--current')
  expect(current).toHaveLength(1)
  expect(current[0].textContent).toContain('i7')
})

test('a swipe left steps forward, right steps back; short or vertical moves do nothing', async () => {
  serve()
  const page = await openPage(replayId, {id: 'g1'})
  const swipe = (dx, dy = 0) => {
    page.instance.onTouchStart({touches: [{clientX: 200, clientY: 300}]})
    page.instance.onTouchEnd({changedTouches: [{clientX: 200 + dx, clientY: 300 + dy}]})
  }
  swipe(-80)
  swipe(-80)
  expect(page.data.step).toBe(2)
  swipe(90)
  expect(page.data.step).toBe(1)
  swipe(-20)
  swipe(-60, 200)
  expect(page.data.step).toBe(1)
})

test('a finished game keeps its result back until the last move, or until 显示结果', async () => {
  const line = [0, 1, 2, 3, 4].map(c => ({row: 7, col: c}))
  serve({status: 'black_won', winner: 1, endReason: 'five', winLine: line, currentPlayer: null})
  const page = await openPage(replayId, {id: 'g1'})
  expect(resultLine(page)).toBe('显示结果')
  expect(page.data.winLine).toBe('')
  page.instance.onSeek({detail: {value: 3}})
  expect(resultLine(page)).toBe('显示结果')
  page.instance.onLast()
  expect(resultLine(page)).toBe('黑方胜 · 五连')
  expect(page.data.winLine).toBe('105 106 107 108 109')
  page.instance.onFirst()
  expect(resultLine(page)).toBe('显示结果')
  page.instance.onShowResult()
  expect(resultLine(page)).toBe('黑方胜 · 五连')
  expect(page.data.winLine).toBe('')
})

test('an unfinished game is labelled plainly and can be continued', async () => {
  serve()
  const page = await openPage(replayId, {id: 'g1'})
  page.instance.onLast()
  expect(byClass(page, 'replay', 'replay__result-text')[0].textContent).toBe('未下完的对局')
  expect(byClass(page, 'replay', 'replay__result-text--final')).toHaveLength(0)
  page.instance.onContinue()
  expect(wx.rec.navigations).toEqual([{type: 'redirectTo', url: '/pages/game/game?id=g1'}])
})

test('an online game still waiting for the friend is unfinished too, not a finished game without a result', async () => {
  transport.on('GET', '/api/v1/games/g1', () => [200, onlineState({status: 'waiting'})])
  const page = await openPage(replayId, {id: 'g1'})
  expect(page.data.finished).toBe(false)
  expect(byClass(page, 'replay', 'replay__result-text')[0].textContent).toBe('未下完的对局')
})

test('move numbers follow the frame', async () => {
  serve()
  const page = await openPage(replayId, {id: 'g1'})
  page.instance.onSeek({detail: {value: 2}})
  page.instance.onSettingChange({detail: {key: 'numbers', value: true}})
  expect(byClass(page, 'board', 'board__number').map(el => el.textContent)).toEqual(['1', '2'])
  page.instance.onStepForward()
  expect(byClass(page, 'board', 'board__number').map(el => el.textContent).sort()).toEqual(['1', '2', '3'])
})

test('a failed load says so with 重试 and 返回首页', async () => {
  transport.state.down = true
  const page = await openPage(replayId, {id: 'g1'})
  expect(page.data.loadError).toBe('无法连接服务器，请检查网络')
  expect(byClass(page, 'load-error', 'btn').map(b => b.textContent.trim())).toEqual(['重试', '返回首页'])
  expect(page.querySelector('#board')).toBeUndefined()
  transport.state.down = false
  serve()
  await page.instance.onRetryLoad()
  expect(page.data.loaded).toBe(true)
  expect(page.data.moveCount).toBe(4)
})
