/**
 * The invite to a game against a friend (utils/share-card.js) against a
 * scripted transport: the share card's title names the inviter and the
 * settings, its path takes the free seat, its image is drawn offscreen (and
 * left out where it cannot be); 复制邀请's sentence carries the game's code,
 * which home's 从剪贴板导入 opens; the joiner's name sheet says who invited.
 */
const {load, loadPage, openPage, launchPage, simulate, byClass} = require('../support/harness')
const {installScripted} = require('../support/fake-transport')
const {onlineState, gameState} = require('../support/states')
const {until} = require('../support/e2e')
const settings = require('../../utils/settings')
const text = require('../../utils/text')
const {shareCard, inviteText, inviterOf, drawCard, cardModel} = require('../../utils/share-card')

const sheetId = load('components/name-sheet/name-sheet', 'name-sheet')
const gameId = loadPage('game')
const homeId = loadPage('home')

const TEN = {initialMs: 600000, incrementMs: 10000}
const ID = '0b8f4a52-9d7e-4c1a-8f55-2e1a7c3b9d10'

let transport
let wx

beforeEach(() => {
  ;({transport, wx} = installScripted())
  settings.saveSettings({confirm: 'off', nameAsked: true, rulesSeen: true})
})

/** A 2d context that records what is drawn: each call by name, with its arguments. */
function recordingContext() {
  const calls = []
  const ctx = new Proxy({}, {
    get(target, key) {
      if (key === 'calls') return calls
      if (key === 'createRadialGradient') return () => ({addColorStop() {}})
      return (...args) => calls.push([key, ...args])
    },
    set(target, key, value) {
      calls.push([`=${String(key)}`, value])
      return true
    },
  })
  return ctx
}

describe('the share card', () => {
  test('names the inviter and the settings, and opens the game taking the free seat', async () => {
    const card = shareCard(onlineState({id: ID, status: 'waiting', timeControl: TEN}))
    expect(card.title).toBe('「小明」邀你下一盘五子棋 · 无禁手 · 10+10')
    expect(card.path).toBe(`/pages/game/game?id=${ID}&join=1`)
    // Where the phone cannot draw offscreen, the card comes without an image, never not at all.
    await expect(card.promise).resolves.toEqual({title: card.title, path: card.path})
  })

  test('rule names from text.js, the size when not 15, the time when there is one', () => {
    const renju = onlineState({status: 'waiting', rule: 'renju', boardSize: 13, timeControl: {initialMs: 1200000, incrementMs: 0}})
    expect(shareCard(renju).title).toBe('「小明」邀你下一盘五子棋 · 连珠 · 13路 · 20分')
    expect(shareCard(onlineState({status: 'waiting', rule: 'standard'})).title).toBe('「小明」邀你下一盘五子棋 · 标准')
    // White invites too; a spectator names nobody; a game only this phone plays shares home.
    expect(shareCard(onlineState({you: 2})).title).toBe('「小红」邀你下一盘五子棋 · 无禁手')
    expect(shareCard(onlineState({you: null})).title).toBe('来下一盘五子棋 · 无禁手')
    expect(shareCard(gameState())).toEqual({title: '来下一盘五子棋', path: '/pages/home/home'})
  })

  test('its image: the board drawn on an offscreen 2d canvas, written to a temporary file', async () => {
    const drawn = []
    wx.createOffscreenCanvas = options => {
      const ctx = recordingContext()
      drawn.push({options, ctx})
      return {getContext: kind => (kind === '2d' ? ctx : null)}
    }
    wx.canvasToTempFilePath = options => {
      expect(options.canvas.getContext('2d')).toBe(drawn[0].ctx)
      setTimeout(() => options.success({tempFilePath: 'wxfile://tmp/card.png'}), 0)
    }
    const game = onlineState({id: 'g-img', status: 'waiting', moves: [[7, 7], [6, 8]], timeControl: TEN})
    const card = shareCard(game)
    await expect(card.promise).resolves.toEqual({title: card.title, path: card.path, imageUrl: 'wxfile://tmp/card.png'})
    expect(drawn.map(d => d.options)).toEqual([{type: '2d', width: 500, height: 400}])
    const calls = drawn[0].ctx.calls
    // 15 lines each way, 5 star points and the 2 stones; the inviter and the settings in words.
    expect(calls.filter(c => c[0] === 'stroke')).toHaveLength(15)
    expect(calls.filter(c => c[0] === 'arc')).toHaveLength(7)
    expect(calls.filter(c => c[0] === 'fillText').map(c => c[1])).toEqual(['小明', '邀你下棋', '无禁手', '15路', '10+10', '点开加入 ›'])
    // A second share of the same position does not draw again.
    await shareCard(game).promise
    expect(drawn).toHaveLength(1)
  })

  test('an empty board shows the centre stone, so the image is a board and not a grid', () => {
    const ctx = recordingContext()
    drawCard(ctx, cardModel(onlineState({status: 'waiting', boardSize: 9}), '小明'))
    expect(ctx.calls.filter(c => c[0] === 'stroke')).toHaveLength(9)
    expect(ctx.calls.filter(c => c[0] === 'arc')).toHaveLength(5 + 1)
  })
})

describe('复制邀请 and the code it carries', () => {
  test('a sentence a person can paste in a chat, with the game\'s code that home finds again', () => {
    const sentence = inviteText(onlineState({id: ID, status: 'waiting', timeControl: TEN}))
    expect(sentence).toBe(`「小明」邀你下一盘五子棋（无禁手 · 10+10）：复制这段话，打开小程序「五子棋」，在首页点「从剪贴板导入」即可加入。对局码 ${ID}`)
    expect(sentence).not.toMatch(/pages\//)
    expect(text.inviteCodeIn(sentence)).toBe(ID)
    expect(text.inviteCodeIn('{"version":"gomoku-1.0"}')).toBe('')
  })

  test('从剪贴板导入 opens the game of a pasted invite (taking the free seat), importing nothing', async () => {
    transport.on('GET', '/api/v1/games', () => [200, {games: [], nextCursor: null}])
    const page = await openPage(homeId)
    wx.rec.clipboard = inviteText(onlineState({id: ID, status: 'waiting'}))
    await page.instance.onImportClipboard()
    expect(wx.rec.navigations).toEqual([{type: 'navigateTo', url: `/pages/game/game?id=${ID}&join=1`}])
    expect(transport.state.calls.filter(c => c.method === 'POST' && c.path.endsWith('/import'))).toHaveLength(0)
  })
})

describe('the joiner\'s name sheet', () => {
  test('says who invited when it has an inviter, and nothing more without', () => {
    const render = props => {
      const comp = simulate.render(sheetId, Object.assign({show: true}, props))
      comp.attach(document.createElement('parent-wrapper'))
      return comp
    }
    expect(byClass(render({inviter: '小明'}), 'name-sheet', 'name-sheet__invite').map(e => e.textContent)).toEqual(['「小明」邀你下一盘五子棋'])
    expect(byClass(render({}), 'name-sheet', 'name-sheet__invite')).toHaveLength(0)
  })

  test('opening a card: the sheet names the one seated, who invited', async () => {
    settings.saveSettings({nameAsked: false})
    expect(inviterOf(onlineState({status: 'waiting', you: null}))).toBe('小明')
    transport.on('GET', '/api/v1/games/g1', () => [200, onlineState({status: 'waiting', you: null})])
    transport.on('GET', '/api/v1/me', () => [200, {playerId: 'p2', name: '棋手0042'}])
    const {page} = launchPage(gameId, {id: 'g1', join: '1'})
    await until(() => page.data.nameSheet, 'the name sheet')
    expect(page.data.nameInviter).toBe('小明')
    expect(byClass(page.querySelector('#name'), 'name-sheet', 'name-sheet__invite').map(e => e.textContent)).toEqual(['「小明」邀你下一盘五子棋'])
    page.instance.onNameClose()
  })
})
