/**
 * The home page and the option group against a scripted transport (the real
 * server is exercised in tests/e2e): settings for a new game, the lists (with
 * 重试 when they fail, long-press to delete an unfinished game), export, and
 * import from a chat file or the clipboard, which opens the game in replay;
 * 好友对战 with its colour, time control and display name, and games against
 * a friend in the lists.
 */
const {load, loadPage, openPage, simulate, byClass} = require('../support/harness')
const {USER_DATA_PATH} = require('../support/wx')
const {installScripted} = require('../support/fake-transport')
const {gameState, onlineState} = require('../support/states')
const {buttonTexts, until} = require('../support/e2e')
const settings = require('../../utils/settings')

const optionGroupId = load('components/option-group/option-group', 'option-group')
const homeId = loadPage('home')

let transport
let wx

beforeEach(() => {
  ;({transport, wx} = installScripted())
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
    await page.instance.onImportClipboard()
    expect(wx.rec.toasts).toEqual(['剪贴板里没有棋谱（JSON）'])
    expect(transport.state.calls.some(c => c.path === '/api/v1/games/import')).toBe(false)
  })

  test('a .json record sent in a chat is imported and opens in replay', async () => {
    const record = {version: 'gomoku-1.0', rule: 'freestyle', boardSize: 15, moves: []}
    transport.on('POST', '/api/v1/games/import', options => [201, gameState({id: 'imp1', moveCount: options.data.moves.length})])
    const path = `${USER_DATA_PATH}/tmp/gomoku-a.json`
    wx.rec.files.set(path, JSON.stringify(record))
    wx.rec.chatFiles = [{name: 'gomoku-a.json', path, size: 120}]
    const page = await openPage(homeId)
    await page.instance.onImportFile()
    const sent = transport.state.calls.find(c => c.path === '/api/v1/games/import')
    expect(sent.data).toEqual(record)
    expect(wx.rec.navigations).toEqual([{type: 'navigateTo', url: '/pages/replay/replay?id=imp1'}])
    expect(page.data.importing).toBe(false)
  })

  test('closing the file picker, or a file that is not a record, sends nothing', async () => {
    const page = await openPage(homeId)
    await page.instance.onImportFile()
    expect(wx.rec.toasts).toEqual([])
    const path = `${USER_DATA_PATH}/tmp/notes.json`
    wx.rec.files.set(path, 'not json')
    wx.rec.chatFiles = [{name: 'notes.json', path, size: 8}]
    await page.instance.onImportFile()
    expect(wx.rec.toasts).toEqual(['文件里没有棋谱（JSON）'])
    wx.rec.chatFiles = [{name: 'big.json', path, size: 500 * 1024}]
    await page.instance.onImportFile()
    expect(wx.rec.toasts[1]).toBe('文件太大，不是棋谱')
    expect(transport.state.calls.some(c => c.path === '/api/v1/games/import')).toBe(false)
  })

  test('long-press on an unfinished game offers 删除, which asks, then deletes', async () => {
    let listed = [gameState({id: 'u1'}), gameState({id: 'u2'})]
    transport.on('GET', '/api/v1/games', options =>
      [200, {games: options.data.status === 'playing' ? listed : [], nextCursor: null}])
    transport.on('DELETE', /^\/api\/v1\/games\/u\d$/, (o, url) => {
      listed = listed.filter(g => !url.pathname.endsWith(g.id))
      return [204, '']
    })
    const page = await openPage(homeId)
    expect(page.data.playing.map(g => g.id)).toEqual(['u1', 'u2'])
    expect(page.data.playing[0].detail).toBe('已下 0 手 · 黑方落子')
    // Cancelled at the sheet, then at the confirmation: nothing happens.
    wx.rec.sheetAnswer = null
    await page.instance.onPlayingLongPress({currentTarget: {dataset: {id: 'u1'}}})
    wx.rec.sheetAnswer = 0
    wx.rec.modalAnswer = false
    await page.instance.onPlayingLongPress({currentTarget: {dataset: {id: 'u1'}}})
    expect(transport.state.calls.some(c => c.method === 'DELETE')).toBe(false)
    wx.rec.modalAnswer = true
    await page.instance.onPlayingLongPress({currentTarget: {dataset: {id: 'u1'}}})
    expect(wx.rec.sheets).toEqual([['删除'], ['删除'], ['删除']])
    expect(wx.rec.modals.map(m => m.title)).toEqual(['删除对局', '删除对局'])
    expect(page.data.playing.map(g => g.id)).toEqual(['u2'])
  })

  test('the lists show 20 and 更多 loads the next 20', async () => {
    const page20 = Array.from({length: 20}, (_, i) => gameState({id: `a${i}`}))
    transport.on('GET', '/api/v1/games', options => {
      if (options.data.status !== 'playing') return [200, {games: [], nextCursor: null}]
      if (options.data.cursor === 'c1') return [200, {games: [gameState({id: 'b0'})], nextCursor: null}]
      return [200, {games: page20, nextCursor: 'c1'}]
    })
    const page = await openPage(homeId)
    expect(page.data.playing).toHaveLength(20)
    const more = page.querySelectorAll('.home__more').map(m => m.dom.textContent)
    expect(more).toEqual(['更多'])
    await page.instance.onMorePlaying()
    expect(page.data.playing).toHaveLength(21)
    expect(page.data.playingCursor).toBeNull()
  })

  test('lists that fail to load say so with 重试', async () => {
    transport.state.down = true
    const page = await openPage(homeId)
    expect(page.data.loadError).toBe('无法连接服务器，请检查网络')
    expect(byClass(page, 'home', 'home__empty')[0].textContent).toBe('无法连接服务器，请检查网络')
    transport.state.down = false
    await page.instance.onRetryLists()
    expect(page.data.loadError).toBe('')
  })
})

describe('home page: 好友对战', () => {
  beforeEach(() => {
    transport.on('GET', '/api/v1/me', () => [200, {playerId: 'p', name: '棋手0042'}])
    transport.on('PUT', '/api/v1/me', options => [200, {playerId: 'p', name: options.data.name}])
  })

  test('offers colour (执黑 / 执白 / 随机) and a time control; the first game asks for a name, later ones do not', async () => {
    transport.on('GET', '/api/v1/games', () => [200, {games: [], nextCursor: null}])
    transport.on('POST', '/api/v1/games', () => [201, onlineState({id: 'o1', status: 'waiting'})])
    const page = await openPage(homeId)
    page.instance.onModeChange({detail: {value: 'online'}})
    await until(() => page.data.myName, 'the name')
    const groups = byClass(page, 'option-group', 'option-group__label').map(l => l.textContent)
    expect(groups).toEqual(['模式', '我方', '用时', '规则', '开局'])
    expect(page.data.seats.map(s => s.label)).toEqual(['执黑', '执白', '随机'])
    expect(page.data.timeControls.map(t => t.label)).toEqual(['不限时', '5分+5秒', '10分+10秒', '每方20分'])
    expect(byClass(page, 'home', 'home__name-value')[0].textContent).toBe('棋手0042')
    expect(buttonTexts(page)).toContain('创建并邀请好友')
    page.instance.onSeatChange({detail: {value: 'white'}})
    page.instance.onTimeChange({detail: {value: '10+10'}})

    const starting = page.instance.onStart()
    await until(() => page.data.nameSheet, 'the name sheet')
    expect(transport.state.calls.some(c => c.method === 'POST' && c.path === '/api/v1/games')).toBe(false)
    page.querySelector('#name').instance.onSubmit({detail: {value: {name: '阿明'}}})
    await starting
    const puts = transport.state.calls.filter(c => c.method === 'PUT')
    expect(puts.map(c => c.data)).toEqual([{name: '阿明'}])
    const create = transport.state.calls.find(c => c.method === 'POST' && c.path === '/api/v1/games')
    expect(create.data).toEqual({mode: 'online', rule: 'freestyle', boardSize: 15, seat: 'white', timeControl: {initialMs: 600000, incrementMs: 10000}})
    expect(wx.rec.navigations).toEqual([{type: 'navigateTo', url: '/pages/game/game?id=o1'}])
    expect(page.data.myName).toBe('阿明')

    // Asked once: the next game starts at once, untimed without a timeControl.
    page.instance.onTimeChange({detail: {value: 'none'}})
    await page.instance.onStart()
    expect(page.data.nameSheet).toBe(false)
    const second = transport.state.calls.filter(c => c.method === 'POST' && c.path === '/api/v1/games')[1]
    expect(second.data).toEqual({mode: 'online', rule: 'freestyle', boardSize: 15, seat: 'white'})
    expect(settings.loadSettings().nameAsked).toBe(true)
  })

  test('修改 edits the name later; 暂不 closes the sheet without a request', async () => {
    transport.on('GET', '/api/v1/games', () => [200, {games: [], nextCursor: null}])
    const page = await openPage(homeId)
    page.instance.onModeChange({detail: {value: 'online'}})
    expect(page.data.nameSheet).toBe(false)
    const editing = page.instance.onEditName()
    await until(() => page.data.nameSheet, 'the name sheet')
    page.instance.onNameClose()
    await editing
    expect(transport.state.calls.some(c => c.method === 'PUT')).toBe(false)
  })

  test('the continue list says whose turn and whether the opponent is there; shared games cannot be deleted', async () => {
    const mine = onlineState({id: 'o1', moves: [[7, 7], [7, 8]]})
    const theirs = onlineState({id: 'o2', moves: [[7, 7]], players: {
      black: {playerId: 'p1', name: '小明', online: true},
      white: {playerId: 'p2', name: '小红', online: false},
    }})
    const waiting = onlineState({id: 'o3', status: 'waiting'})
    const finished = onlineState({id: 'o4', moves: [[7, 7]], status: 'white_won', winner: 2, endReason: 'timeout', currentPlayer: null})
    transport.on('GET', '/api/v1/games', options =>
      [200, {games: options.data.status === 'playing' ? [mine, theirs, waiting] : [finished], nextCursor: null}])
    const page = await openPage(homeId)
    expect(page.data.playing.map(g => [g.title, g.detail])).toEqual([
      ['好友对战 · 小红', '无禁手 · 15路 · 对方在线'],
      ['好友对战 · 小红', '无禁手 · 15路 · 对方离线'],
      ['好友对战 · 等待好友加入', '无禁手 · 15路'],
    ])
    expect(page.querySelectorAll('.home__item-go').map(g => g.dom.textContent)).toEqual(['轮到你 ›', '继续 ›', '继续 ›'])
    expect(page.data.finished[0].title).toBe('好友对战 · 小红')
    expect(page.data.finished[0].detail).toBe('你输了 · 超时 · 已下 1 手')
    // A game with both players belongs to both: no 删除, and a long-press says why.
    expect(buttonTexts(page)).toEqual(expect.not.arrayContaining(['删除']))
    await page.instance.onPlayingLongPress({currentTarget: {dataset: {id: 'o1'}}})
    expect(wx.rec.sheets).toEqual([])
    expect(wx.rec.toasts).toEqual(['双方的对局不能删除'])
    // A game still waiting for the friend can be deleted (cancelled).
    await page.instance.onPlayingLongPress({currentTarget: {dataset: {id: 'o3'}}})
    expect(wx.rec.sheets).toEqual([['删除']])
  })
})
