/**
 * The opening steps on the game page against a scripted transport (the real
 * server is exercised in tests/e2e/match.test.js): the banner says what to
 * do, the zone is tinted, a tap outside it is refused in words without a
 * request, a stone placed inside is sent as a place step; the choose step's
 * buttons; the offer step's multi-select with its counter and 提交; the pick
 * among the offered points; and the other side's turn leaves the board shut.
 */
const {loadPage, openPage, textsOf, byClass} = require('../support/harness')
const {installScripted} = require('../support/fake-transport')
const {gameState} = require('../support/states')
const {flush, tapPoint, tapButton, buttonTexts} = require('../support/e2e')
const settings = require('../../utils/settings')

const gameId = loadPage('game')

let transport
let wx

beforeEach(() => {
  ;({transport, wx} = installScripted())
  settings.saveSettings({confirm: 'off', nameAsked: true})
})

/** An AI game under swap2 in `phase`, the viewer (first seat) to act, with `opening` fields over the defaults. */
function openingState(phase, opening = {}, overrides = {}) {
  return gameState(Object.assign({
    mode: 'ai', ai: {level: 'easy', player: 2}, currentPlayer: null,
    opening: Object.assign({
      rule: 'swap2', phase, by: 'first', yourSeat: 'first', yourTurn: true,
      stone: null, left: null, zone: null, options: null, count: null, offers: null, blackSeat: null, steps: [],
    }, opening),
  }, overrides))
}

async function openGame(state) {
  transport.on('GET', '/api/v1/games/g1', () => [200, state])
  return openPage(gameId, {id: 'g1'})
}

const banner = page => textsOf(page, 'game', 'game__opening-text')
const board = page => page.querySelector('#board')

describe('the opening steps', () => {
  test('place: the banner says which stone and where, the zone is tinted, a tap outside it is refused here', async () => {
    const page = await openGame(openingState('place', {stone: 1, left: 3, zone: {side: 5}}))
    expect(banner(page)).toEqual(['请放置第 1 颗黑子（中心 5×5 内）'])
    // No 悔棋 or 提示 while the opening lasts.
    await page.instance.onHint()
    await page.instance.onUndo()
    expect(transport.calls('GET', '/hint')).toHaveLength(0)
    expect(board(page).data.zone).toBe(5)
    // 25 points of the 15×15 board lie in the central 5×5 square.
    expect(byClass(board(page), 'board', 'board__cell--zone')).toHaveLength(25)
    await tapPoint(page, 0, 0)
    expect(wx.rec.toasts).toEqual(['请下在中心区域内'])
    expect(transport.calls('POST', '/opening')).toHaveLength(0)
    transport.on('POST', '/api/v1/games/g1/opening', () => [200, openingState('place', {stone: 2, left: 2, zone: null, steps: [{by: 'first', kind: 'place', point: {row: 7, col: 7}}]}, {moves: [[7, 7]], currentPlayer: null})])
    await tapPoint(page, 7, 7)
    await flush()
    expect(transport.calls('POST', '/opening').map(c => c.data)).toEqual([{step: 'place', row: 7, col: 7, ply: 0}])
    await new Promise(r => setTimeout(r, 10))
    expect(page.data.board[7][7]).toBe(1)
    expect(banner(page)).toEqual(['请放置第 2 颗白子'])
    expect(board(page).data.zone).toBe(0)
  })

  test('choose: a button for each option, sent as the choice', async () => {
    const page = await openGame(openingState('choose', {by: 'second', yourSeat: 'second', options: ['black', 'white', 'place_two']}))
    expect(banner(page)).toEqual(['请选择：执黑 / 执白 / 再放两子'])
    expect(buttonTexts(page).slice(0, 3)).toEqual(['执黑', '执白', '再放两子'])
    transport.on('POST', '/api/v1/games/g1/opening', () => [200, openingState('done')])
    await tapButton(page, '再放两子')
    await new Promise(r => setTimeout(r, 10))
    expect(transport.calls('POST', '/opening').map(c => c.data)).toEqual([{step: 'choose', choice: 'place_two'}])
    expect(page.data.openingOn).toBe(false)
    expect(banner(page)).toEqual([])
  })

  test('offer: taps toggle points with a counter; 提交 sends them once there are as many as asked', async () => {
    const page = await openGame(openingState('offer', {count: 2}, {rule: 'renju', moves: [[7, 7], [7, 8], [8, 7], [6, 9]]}))
    expect(banner(page)).toEqual(['请提出 2 个第五手候选点'])
    expect(textsOf(page, 'game', 'game__opening-count')).toEqual(['已选 0 / 2'])
    await tapPoint(page, 3, 3)
    await tapPoint(page, 4, 4)
    await tapPoint(page, 3, 3) // again: taken back
    await tapPoint(page, 11, 11)
    expect(textsOf(page, 'game', 'game__opening-count')).toEqual(['已选 2 / 2'])
    expect(textsOf(board(page), 'board', 'board__mark')).toEqual(['1', '2'])
    await tapPoint(page, 12, 12) // one too many
    expect(wx.rec.toasts).toEqual(['最多 2 个，点已选的点可取消'])
    await tapPoint(page, 7, 7) // a stone is there
    expect(wx.rec.toasts[1]).toBe('这里已经有棋子了')
    transport.on('POST', '/api/v1/games/g1/opening', () => [200, openingState('pick', {by: 'second', yourTurn: false, offers: [{row: 4, col: 4}, {row: 11, col: 11}]})])
    await tapButton(page, '提交')
    await new Promise(r => setTimeout(r, 10))
    expect(transport.calls('POST', '/opening').map(c => c.data)).toEqual([{step: 'offer', points: [{row: 4, col: 4}, {row: 11, col: 11}]}])
    // The AI picks: the viewer waits, the offered points stay marked.
    expect(banner(page)).toEqual(['AI 开局中…'])
    expect(page.data.offerPicked).toEqual([])
    expect(board(page).data.disabled).toBe(true)
  })

  test('pick: only an offered point is sent', async () => {
    const page = await openGame(openingState('pick', {by: 'second', yourSeat: 'second', offers: [{row: 4, col: 4}, {row: 10, col: 10}]}))
    expect(banner(page)).toEqual(['请从对方的候选点中选择一个'])
    expect(textsOf(board(page), 'board', 'board__mark')).toEqual(['1', '2'])
    await tapPoint(page, 5, 5)
    expect(wx.rec.toasts).toEqual(['请选择对方提出的候选点'])
    transport.on('POST', '/api/v1/games/g1/opening', () => [200, openingState('done')])
    await tapPoint(page, 10, 10)
    await new Promise(r => setTimeout(r, 10))
    expect(transport.calls('POST', '/opening').map(c => c.data)).toEqual([{step: 'pick', row: 10, col: 10}])
  })

  test('a step the server refuses: its words, and the server\'s state again', async () => {
    const state = openingState('place', {stone: 1, zone: null})
    const page = await openGame(state)
    transport.on('POST', '/api/v1/games/g1/opening', () => [409, {error: {code: 'WRONG_STEP', message: 'not now'}}])
    await tapPoint(page, 2, 2)
    await new Promise(r => setTimeout(r, 20))
    expect(wx.rec.toasts).toEqual(['现在不是这一步'])
    expect(page.data.pendingStone).toBeNull()
    expect(page.data.board[2][2]).toBe(0)
  })
})
