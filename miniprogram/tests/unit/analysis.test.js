/**
 * The post-game analysis on the replay page, against a scripted transport:
 * the evaluation graph (one bar per move, black from the bottom, marks as
 * dots, the current move outlined, a tap seeks), the marks on the move list
 * with the legend, the better move as a hollow ring on the board, the
 * engine's line stepped on the board (and its absence), 分析
 * starting it and the poll following it until done (and stopping on hide and
 * unload), 查看分析 for one that exists (no request, the result shown with
 * it), 分析新着法 for an outdated one, who gets the button, and errors.
 */
const {load, loadPage, openPage, simulate, byClass} = require('../support/harness')
const {install} = require('../support/wx')
const {installScripted} = require('../support/fake-transport')
const {gameState, onlineState} = require('../support/states')
const {tapButton} = require('../support/e2e')
const {emptyBoard} = require('../../utils/board')

const graphId = load('components/eval-graph/eval-graph', 'eval-graph')
const listId = load('components/move-list/move-list', 'move-list')
const boardId = load('components/board/board', 'board')
const replayId = loadPage('replay')

const MOVES = [[7, 7], [7, 8], [8, 8], [6, 6]]

/** The analysed move at `ply`, as the server sends it. */
function analysed(ply, evaluation, mark = null, best = MOVES[ply], bestEval = evaluation) {
  return {ply, eval: evaluation, best: {row: best[0], col: best[1]}, bestEval, mark}
}

/** The analysis of MOVES as the server sends it after `count` moves (done once all four are). */
function analysis(count, {outdated = false} = {}) {
  const moves = [
    analysed(0, 0.6),
    analysed(1, 0.58),
    // Black's third move let white in: the engine would have played g9 (6,6).
    analysed(2, 0.31, 'mistake', [6, 6], 0.62),
    analysed(3, 0.3, 'only_move'),
  ].slice(0, count)
  const done = count === MOVES.length
  return {status: done ? 'done' : 'running', progress: count / MOVES.length, moveCount: MOVES.length, moves, outdated}
}

function renderComponent(id, props) {
  const comp = simulate.render(id, props)
  comp.attach(document.createElement('parent-wrapper'))
  return comp
}

describe('the evaluation graph', () => {
  beforeEach(() => install(() => {}))

  test('one bar per move: black from the bottom, unknown moves empty, marks as dots, the current move outlined', () => {
    const graph = renderComponent(graphId, {evals: [0.6, 0.25, null], marks: ['', 'blunder', ''], current: 2})
    const bars = byClass(graph, 'eval-graph', 'eval-graph__bar')
    expect(bars).toHaveLength(3)
    const blacks = byClass(graph, 'eval-graph', 'eval-graph__black')
    expect(blacks.map(b => b.getAttribute('style'))).toEqual(['height: 60%', 'height: 25%'])
    expect(bars[2].classList.contains('eval-graph--eval-graph__bar--unknown')).toBe(true)
    const dots = byClass(graph, 'eval-graph', 'eval-graph__mark')
    expect(dots).toHaveLength(1)
    expect(dots[0].classList.contains('eval-graph--eval-graph__mark--blunder')).toBe(true)
    expect(byClass(graph, 'eval-graph', 'eval-graph__bar--current')).toEqual([bars[1]])
    expect(graph.data.bars[1].label).toBe('第 2 手，黑方胜率 25%，败着')
    expect(graph.data.bars[2].label).toBe('第 3 手')
  })

  test('a caption says what the bars are, and the even line is labelled 50%', () => {
    const graph = renderComponent(graphId, {evals: [0.6], marks: [''], current: 0})
    expect(byClass(graph, 'eval-graph', 'eval-graph__title').map(t => t.textContent)).toEqual(['黑方胜率'])
    expect(byClass(graph, 'eval-graph', 'eval-graph__key')[0].textContent.replace(/\s+/g, '')).toBe('黑方白方')
    expect(byClass(graph, 'eval-graph', 'eval-graph__even')).toHaveLength(1)
    expect(byClass(graph, 'eval-graph', 'eval-graph__even-label').map(t => t.textContent)).toEqual(['50%'])
  })

  test('tapping a bar asks for that move', async () => {
    const graph = renderComponent(graphId, {evals: [0.6, 0.25], marks: ['', ''], current: 0})
    const picked = []
    graph.addEventListener('select', e => picked.push(e.detail.step))
    graph.querySelectorAll('.eval-graph__bar')[1].dispatchEvent('tap')
    await simulate.sleep(0)
    expect(picked).toEqual([2])
  })
})

describe('marks on the move list and the better move on the board', () => {
  beforeEach(() => install(() => {}))

  test('a marked move carries its symbol in its colour and says its mark', () => {
    const moves = [{coord: 'h8', player: 1}, {coord: 'i8', player: 2}, {coord: 'i7', player: 1}]
    const list = renderComponent(listId, {moves, marks: ['', 'winning_threat_missed', 'inaccuracy']})
    const badges = byClass(list, 'move-list', 'move-list__mark')
    expect(badges.map(b => b.textContent)).toEqual(['漏', '?!'])
    expect(badges[0].classList.contains('move-list--move-list__mark--winning_threat_missed')).toBe(true)
    // What the chip's aria-label adds to the move.
    expect(list.data.badges.map(b => b && b.name)).toEqual([null, '，错失胜机', '，缓手'])
    const plain = renderComponent(listId, {moves, marks: []})
    expect(byClass(plain, 'move-list', 'move-list__mark')).toHaveLength(0)
  })

  test('the better move is a hollow ring of the mover\'s colour, only on an empty point', () => {
    const board = emptyBoard(15)
    board[7][7] = 1
    const ringAt = better => byClass(renderComponent(boardId, {board, better}), 'board', 'board__better')
    const white = ringAt({row: 6, col: 6, player: 2})
    expect(white).toHaveLength(1)
    expect(white[0].classList.contains('board--board__better--white')).toBe(true)
    expect(ringAt({row: 7, col: 7, player: 1})).toHaveLength(0)
    expect(ringAt(null)).toHaveLength(0)
  })
})

describe('the replay page', () => {
  let transport
  let wx

  beforeEach(() => {
    ;({transport, wx} = installScripted())
  })

  afterEach(() => {
    jest.useRealTimers()
  })

  function serve(state = gameState({moves: MOVES, status: 'white_won', winner: 2, endReason: 'resign', currentPlayer: null})) {
    transport.on('GET', '/api/v1/games/g1', () => [200, state])
  }

  /** GET answers `answers` in turn (the last one from then on); each GET counted. */
  function serveAnalysis(answers) {
    const gets = {count: 0}
    transport.on('GET', '/api/v1/games/g1/analysis', () => {
      const answer = answers[Math.min(gets.count, answers.length - 1)]
      gets.count += 1
      return answer
    })
    return gets
  }

  const buttonTexts = page => byClass(page, 'replay', 'btn').map(b => b.textContent.trim())
  /** Fake time moves on by one poll, and the answer it asked for arrives. */
  const onePoll = async () => {
    await jest.advanceTimersByTimeAsync(1000)
    await jest.advanceTimersByTimeAsync(10)
  }
  const posts = () => transport.state.calls.filter(c => c.method === 'POST' && c.path.endsWith('/analysis'))

  test('分析 starts it; the poll follows it every second until done, then stops', async () => {
    serve()
    const gets = serveAnalysis([
      [404, {error: {code: 'ANALYSIS_NOT_FOUND', message: 'none'}}],
      [200, analysis(3)],
      [200, analysis(4)],
    ])
    transport.on('POST', '/api/v1/games/g1/analysis', () => [202, analysis(1)])
    const page = await openPage(replayId, {id: 'g1'})
    expect(page.data.analysis).toBe('none')
    expect(buttonTexts(page)).toContain('分析')
    expect(byClass(page, 'replay', 'replay__analysis-caption')).toHaveLength(1)
    expect(page.querySelector('#graph')).toBeUndefined()

    jest.useFakeTimers()
    const started = page.instance.onAnalyse()
    await jest.advanceTimersByTimeAsync(0)
    await started
    expect(posts()).toHaveLength(1)
    expect(page.data.analysisShown).toBe(true)
    expect(page.data.resultShown).toBe(true)
    expect(page.data.analysis).toBe('running')
    expect(page.data.analysisPercent).toBe(25)
    expect(page.data.evals).toEqual([0.6, null, null, null])
    expect(byClass(page, 'replay', 'replay__analysis-percent')[0].textContent).toBe('分析中 25%')
    expect(page.querySelector('#graph').data.bars).toHaveLength(4)

    await onePoll()
    expect(gets.count).toBe(2)
    expect(page.data.evals).toEqual([0.6, 0.58, 0.31, null])
    expect(page.data.marks).toEqual(['', '', 'mistake', ''])
    await onePoll()
    expect(gets.count).toBe(3)
    expect(page.data.analysis).toBe('done')
    expect(jest.getTimerCount()).toBe(0)
    await jest.advanceTimersByTimeAsync(5000)
    expect(gets.count).toBe(3)

    const badges = byClass(page.querySelector('#moves'), 'move-list', 'move-list__mark')
    expect(badges.map(b => b.textContent)).toEqual(['?', '!'])
    expect(byClass(page, 'replay', 'replay__legend-item').map(i => i.textContent.replace(/\s+/g, ''))).toEqual([
      '漏错失胜机', '??败着', '?失误', '?!缓手', '!唯一解',
    ])
  })

  test('hiding stops the poll and showing starts it again; unloading leaves no timer', async () => {
    serve()
    const gets = serveAnalysis([[200, analysis(1)], [200, analysis(2)]])
    const page = await openPage(replayId, {id: 'g1'})
    expect(page.data.analysis).toBe('running')
    expect(buttonTexts(page)).toContain('查看分析')
    jest.useFakeTimers()
    page.instance.onAnalyse()
    expect(posts()).toHaveLength(0) // one runs already: nothing to start
    await onePoll()
    expect(gets.count).toBe(2)
    page.instance.onHide()
    expect(jest.getTimerCount()).toBe(0)
    await jest.advanceTimersByTimeAsync(3000)
    expect(gets.count).toBe(2)
    page.instance.onShow()
    await onePoll()
    expect(gets.count).toBe(3)
    page.instance.onUnload()
    expect(jest.getTimerCount()).toBe(0)
  })

  test('an analysis that exists waits for 查看分析, which shows it with the result and asks nothing', async () => {
    serve()
    serveAnalysis([[200, analysis(4)]])
    const page = await openPage(replayId, {id: 'g1'})
    expect(page.data.analysis).toBe('done')
    expect(page.data.resultShown).toBe(false)
    expect(page.querySelector('#graph')).toBeUndefined()
    expect(byClass(page.querySelector('#moves'), 'move-list', 'move-list__mark')).toHaveLength(0)
    await tapButton(page, '查看分析')
    expect(posts()).toHaveLength(0)
    expect(page.data.analysisShown).toBe(true)
    expect(byClass(page, 'replay', 'replay__result-text--final')[0].textContent).toBe('白方胜 · 黑方认输')
    expect(page.querySelector('#graph').data.bars.map(b => b.black)).toEqual([60, 58, 31, 30])
  })

  test('opened from the game page\'s 复盘分析 (analyse=1), the analysis it started shows at once', async () => {
    serve()
    serveAnalysis([[200, analysis(4)]])
    const page = await openPage(replayId, {id: 'g1', analyse: '1'})
    expect(posts()).toHaveLength(0) // the game page started it
    expect(page.data.analysisShown).toBe(true)
    expect(page.querySelector('#graph').data.bars.map(b => b.black)).toEqual([60, 58, 31, 30])
  })

  test('a marked move shows the engine\'s better move as a ring, and says what it found', async () => {
    serve()
    serveAnalysis([[200, analysis(4)]])
    const page = await openPage(replayId, {id: 'g1'})
    page.instance.onAnalyse()
    page.instance.onSeek({detail: {value: 3}})
    expect(page.data.better).toEqual({row: 6, col: 6, player: 1})
    expect(byClass(page.querySelector('#board'), 'board', 'board__better')).toHaveLength(1)
    expect(page.data.analysisNote).toBe('第 3 手 黑 i7 · 失误：胜率明显下降。黑方胜率 31%，下在 g9 为 62%')
    // The only move is good: no better move to show.
    page.instance.onStepForward()
    expect(page.data.better).toBe(null)
    expect(page.data.analysisNote).toBe('第 4 手 白 g9 · 唯一解：唯一不输的一手。黑方胜率 30%')
    // A tap on the graph's first bar goes there.
    page.querySelector('#graph').querySelectorAll('.eval-graph__bar')[0].dispatchEvent('tap')
    await simulate.sleep(0)
    expect(page.data.step).toBe(1)
    expect(page.data.analysisNote).toBe('第 1 手 黑 h8 · 黑方胜率 60%')
    page.instance.onFirst()
    expect(page.data.analysisNote).toBe('')
    expect(page.data.better).toBe(null)
  })

  /** The analysis of MOVES with the engine's `line` on black's mistake (move 3). */
  function analysisWithLine(line) {
    const a = analysis(4)
    a.moves[2].line = line.map(([row, col]) => ({row, col}))
    return a
  }

  test('a marked move\'s line: ▶ plays it on the board from the position before the move, numbered; ‹ and any step bring the game back', async () => {
    serve()
    serveAnalysis([[200, analysisWithLine([[6, 6], [5, 5], [9, 9]])]])
    const page = await openPage(replayId, {id: 'g1'})
    page.instance.onAnalyse()
    page.instance.onSeek({detail: {value: 3}})
    expect(page.data.line).toEqual([{coord: 'g9', player: 1}, {coord: 'f10', player: 2}, {coord: 'j6', player: 1}])
    expect(page.data.lineStep).toBe(0)
    expect(byClass(page, 'replay', 'replay__line-caption')[0].textContent).toBe('更好的下法：点 ▶ 逐步摆出')
    expect(byClass(page, 'replay', 'replay__line-move').map(m => m.textContent)).toEqual(['1g9', '2f10', '3j6'])

    await tapButton(page, '▶')
    // Move 3 (i7) is taken back and the engine's g9 stands in its place, numbered 1.
    expect(page.data.board[8][8]).toBe(0)
    expect(page.data.board[6][6]).toBe(1)
    expect(page.data.numbers[6][6]).toBe(1)
    expect(page.data.last).toBe(6 * 15 + 6)
    expect(page.data.better).toBe(null)
    expect(byClass(page, 'replay', 'replay__line-caption')[0].textContent).toBe('引擎的下法 · 第 1 / 3 步')
    for (let i = 0; i < 3; i++) page.instance.onLineForward() // past the end: stays at the last
    expect(page.data.lineStep).toBe(3)
    expect([page.data.board[5][5], page.data.board[9][9]]).toEqual([2, 1])
    const board = page.querySelector('#board')
    expect(byClass(board, 'board', 'board__number').map(n => n.textContent)).toEqual(['2', '1', '3'])
    expect(byClass(page, 'replay', 'replay__line-move--shown')).toHaveLength(3)

    // A move of the line tapped: the line up to it.
    page.querySelectorAll('.replay__line-move')[1].dispatchEvent('tap')
    await simulate.sleep(0)
    expect(page.data.lineStep).toBe(2)
    expect(page.data.board[9][9]).toBe(0)

    page.instance.onLineBack()
    page.instance.onLineBack()
    expect(page.data.lineStep).toBe(0)
    expect([page.data.board[8][8], page.data.board[6][6], page.data.board[5][5]]).toEqual([1, 0, 0])
    expect(page.data.numbers).toEqual([])
    expect(page.data.better).toEqual({row: 6, col: 6, player: 1})

    // A step of the replay leaves the line: the game's own position after move 4.
    page.instance.onLineForward()
    page.instance.onStepForward()
    expect(page.data.step).toBe(4)
    expect(page.data.lineStep).toBe(0)
    expect(page.data.line).toEqual([])
    expect([page.data.board[8][8], page.data.board[6][6]]).toEqual([1, 2])
    expect(page.data.numbers).toEqual([])
  })

  test('without a line (an analysis from before it was served) a marked move shows the better move alone', async () => {
    serve()
    serveAnalysis([[200, analysis(4)]])
    const page = await openPage(replayId, {id: 'g1'})
    page.instance.onAnalyse()
    page.instance.onSeek({detail: {value: 3}})
    expect(page.data.better).toEqual({row: 6, col: 6, player: 1})
    expect(page.data.line).toEqual([])
    expect(byClass(page, 'replay', 'replay__line')).toHaveLength(0)
    page.instance.onLineForward()
    expect(page.data.lineStep).toBe(0)
    expect(page.data.board[8][8]).toBe(1)
  })

  test('a line that runs into a stone of the game stops before it', async () => {
    serve()
    serveAnalysis([[200, analysisWithLine([[6, 6], [7, 7], [9, 9]])]])
    const page = await openPage(replayId, {id: 'g1'})
    page.instance.onAnalyse()
    page.instance.onSeek({detail: {value: 3}})
    for (let i = 0; i < 3; i++) page.instance.onLineForward()
    expect(page.data.lineStep).toBe(1)
    expect(page.data.board[9][9]).toBe(0)
  })

  test('an outdated analysis offers 分析新着法, which extends it', async () => {
    serve()
    serveAnalysis([[200, Object.assign(analysis(4), {outdated: true})]])
    transport.on('POST', '/api/v1/games/g1/analysis', () => [202, analysis(3)])
    const page = await openPage(replayId, {id: 'g1'})
    page.instance.onAnalyse()
    expect(posts()).toHaveLength(0)
    expect(buttonTexts(page)).toContain('分析新着法')
    await page.instance.onAnalyse()
    expect(posts()).toHaveLength(1)
    expect(page.data.analysis).toBe('running')
    page.instance.onUnload()
  })

  test('who gets 分析: not a spectator, not a player of an online game still in play', async () => {
    serveAnalysis([[404, {error: {code: 'ANALYSIS_NOT_FOUND', message: 'none'}}]])
    const cases = [
      [onlineState({moves: MOVES, you: null, status: 'black_won', winner: 1, endReason: 'resign'}), false],
      [onlineState({moves: MOVES, you: 1}), false],
      [onlineState({moves: MOVES, you: 2, status: 'black_won', winner: 1, endReason: 'resign'}), true],
      [gameState({moves: MOVES}), true],
    ]
    for (const [state, can] of cases) {
      serve(state)
      const page = await openPage(replayId, {id: 'g1'})
      expect(page.data.canAnalyse).toBe(can)
      expect(buttonTexts(page).includes('分析')).toBe(can)
    }
  })

  test('a refused start says why and shows nothing', async () => {
    serve()
    serveAnalysis([[404, {error: {code: 'ANALYSIS_NOT_FOUND', message: 'none'}}]])
    transport.on('POST', '/api/v1/games/g1/analysis', () => [409, {error: {code: 'ANALYSIS_RUNNING', message: 'busy'}}])
    const page = await openPage(replayId, {id: 'g1'})
    await page.instance.onAnalyse()
    expect(wx.rec.toasts).toEqual(['你的另一局还在分析中，请稍后再试'])
    expect(page.data.analysisShown).toBe(false)
    expect(page.data.pending).toBe('')
    expect(buttonTexts(page)).toContain('分析')
  })
})
