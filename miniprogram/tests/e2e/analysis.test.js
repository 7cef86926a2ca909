/**
 * End to end against the real gomoku-server: the replay page of a finished
 * game starts its post-game analysis with 分析, follows it with the real
 * poll until done, and shows it: a bar per move in the graph, the marks on
 * the move list (black's missed five marked 漏, white's block after it 唯一解
 * !), and at the missed five the engine's winning move as a ring on the board
 * with the line saying what was missed. Leaving the page stops the poll.
 *
 * The server's analysis searches are pinned by a node limit, so the marks do
 * not depend on the machine's speed.
 */
const fs = require('fs')
const config = require('../../config')
const api = require('../../services/api')
const {loadPage, openPage, byClass} = require('../support/harness')
const {install} = require('../support/wx')
const {httpTransport} = require('../support/http')
const {tempDatabase, startServer, requireBinary} = require('../support/server')
const {until, tapButton, buttonTexts} = require('../support/e2e')

requireBinary()

const replayId = loadPage('replay')

/**
 * Black's four on row 7 (h8…k8, blocked at g8) is left open by white; black
 * plays d12 instead of the five at l8 (move 9), and white blocks there (move
 * 10); black then makes five on column 3 (d15…d11) while white plays on.
 */
const MISSED_FIVE = [
  [7, 7], [7, 6], [7, 8], [0, 0], [7, 9], [0, 14], [7, 10], [14, 0], [3, 3], [7, 11],
  [4, 3], [14, 14], [2, 3], [12, 12], [1, 3], [13, 1], [0, 3],
]

let db
let server
let wx

beforeAll(async () => {
  db = tempDatabase()
  wx = install(httpTransport)
  server = await startServer(db.file, {flags: ['--analysis-node-limit', '8000', '--analysis-move-ms', '60000']})
  config.baseUrl = server.baseUrl
})

afterAll(async () => {
  if (server) await server.stop()
  if (db) fs.rmSync(db.dir, {recursive: true, force: true})
})

test('分析 on a replay analyses the game on the server and shows the graph, the marks and the better move', async () => {
  const moves = MISSED_FIVE.map(([row, col], i) => ({row, col, player: (i % 2) + 1}))
  const game = await api.importGame({version: 'gomoku-1.0', rule: 'freestyle', boardSize: 15, moves})
  expect(game.status).toBe('black_won')

  const page = await openPage(replayId, {id: game.id})
  expect(page.data.analysis).toBe('none')
  expect(buttonTexts(page)).toContain('分析')
  await tapButton(page, '分析')
  await until(() => page.data.analysis === 'running' || page.data.analysis === 'done', 'the analysis to start')
  expect(page.data.resultShown).toBe(true)
  await until(() => page.data.analysis === 'done', 'the analysis to finish', 120000)

  const count = MISSED_FIVE.length
  expect(page.data.analysisPercent).toBe(100)
  expect(page.data.evals.every(e => typeof e === 'number' && e >= 0 && e <= 1)).toBe(true)
  expect(page.querySelector('#graph').data.bars).toHaveLength(count)
  expect(page.data.marks[8]).toBe('winning_threat_missed')
  expect(page.data.marks[9]).toBe('only_move')
  const chips = byClass(page.querySelector('#moves'), 'move-list', 'move-list__item')
  const markOf = n => byClass(chips[n], 'move-list', 'move-list__mark').map(el => el.textContent)
  expect(markOf(9)).toEqual(['漏'])
  expect(markOf(10)).toEqual(['!'])

  // At move 9 the board shows where black had five.
  page.instance.onSelectMove({detail: {step: 9}})
  expect(page.data.better).toEqual({row: 7, col: 11, player: 1})
  expect(byClass(page.querySelector('#board'), 'board', 'board__better')).toHaveLength(1)
  expect(page.data.analysisNote).toMatch(/^第 9 手 黑 d12 · 错失胜机：本可成五或连续冲四取胜。黑方胜率 \d+%，下在 l8 为 100%$/)

  // The poll has stopped with the analysis done; leaving the page leaves nothing behind.
  expect(page.instance._poll).toBe(null)
  page.instance.onUnload()
  expect(wx.rec.toasts).toEqual([])
})
