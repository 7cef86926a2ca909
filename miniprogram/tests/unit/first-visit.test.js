/**
 * A first visit to home, against a scripted transport: the rules card opens
 * by itself once (what five in a row, the three rule names and renju's
 * forbidden moves mean), is remembered as seen on this phone, and opens
 * again on 规则; 快速开始, above the form and on the card, starts 人机 · 入门 ·
 * 15路 with the player black.
 */
const {loadPage, openPage, byClass} = require('../support/harness')
const {installScripted} = require('../support/fake-transport')
const {gameState} = require('../support/states')
const {until} = require('../support/e2e')
const settings = require('../../utils/settings')
const text = require('../../utils/text')

const homeId = loadPage('home')

let transport
let wx

beforeEach(() => {
  ;({transport, wx} = installScripted())
  transport.on('GET', '/api/v1/games', () => [200, {games: [], nextCursor: null}])
  transport.on('POST', '/api/v1/games', () => [201, gameState({id: 'quick1'})])
})

const card = page => page.querySelector('#rules')
const creates = () => transport.state.calls.filter(c => c.method === 'POST' && c.path === '/api/v1/games')

describe('the rules card', () => {
  test('opens by itself on the first visit, on one screen: five in a row, the rule names, 禁手', async () => {
    const page = await openPage(homeId)
    expect(page.data.rulesCard).toBe(true)
    expect(byClass(card(page), 'rules-card', 'rules-card__title').map(e => e.textContent)).toEqual(['五子棋怎么下'])
    expect(byClass(card(page), 'rules-card', 'rules-card__lead')[0].textContent).toMatch(/连成五子/)
    // The names are the ones the rule picker shows.
    expect(byClass(card(page), 'rules-card', 'rules-card__rule-name').map(e => e.textContent)).toEqual(text.RULES.map(r => r.label))
    expect(byClass(card(page), 'rules-card', 'rules-card__note')[0].textContent).toMatch(/三三.*四四.*长连/)
    expect(byClass(card(page), 'rules-card', 'btn').map(b => b.textContent.trim())).toEqual(['知道了', '快速开始'])
  })

  test('知道了 closes it for good on this phone; 规则 opens it again', async () => {
    const page = await openPage(homeId)
    card(page).querySelectorAll('.btn')[0].dispatchEvent('tap')
    await new Promise(resolve => setTimeout(resolve, 0))
    expect(page.data.rulesCard).toBe(false)
    expect(byClass(card(page), 'rules-card', 'rules-card__card')).toHaveLength(0)
    expect(settings.loadSettings().rulesSeen).toBe(true)

    const again = await openPage(homeId)
    expect(again.data.rulesCard).toBe(false)
    again.querySelectorAll('.home__rules')[0].dispatchEvent('tap')
    await new Promise(resolve => setTimeout(resolve, 0))
    expect(again.data.rulesCard).toBe(true)
    // Tapping the dimmed page around the card closes it too.
    card(again).querySelectorAll('.rules-card')[0].dispatchEvent('tap')
    await new Promise(resolve => setTimeout(resolve, 0))
    expect(again.data.rulesCard).toBe(false)
    expect(creates()).toHaveLength(0)
  })
})

describe('快速开始', () => {
  const QUICK = {mode: 'ai', rule: 'freestyle', boardSize: 15, ai: {level: 'easy', player: 2}}

  test('above the form: 人机 · 入门 · 15路, the player black, whatever the form says', async () => {
    settings.saveSettings({rulesSeen: true})
    const page = await openPage(homeId)
    expect(page.data.rulesCard).toBe(false)
    page.instance.onModeChange({detail: {value: 'local'}})
    page.instance.onRuleChange({detail: {value: 'renju'}})
    const quick = page.querySelectorAll('.home__quick')[0]
    expect(quick.dom.textContent).toBe('快速开始人机 · 入门 · 15路')
    quick.dispatchEvent('tap')
    await until(() => wx.rec.navigations.length > 0, 'the new game')
    expect(creates().map(c => c.data)).toEqual([QUICK])
    expect(wx.rec.navigations).toEqual([{type: 'navigateTo', url: '/pages/game/game?id=quick1'}])
  })

  test('on the card: closes it (remembered as seen) and starts the same game', async () => {
    const page = await openPage(homeId)
    await page.instance.onQuickStart()
    expect(page.data.rulesCard).toBe(false)
    expect(settings.loadSettings().rulesSeen).toBe(true)
    expect(creates().map(c => c.data)).toEqual([QUICK])
    // Two taps at once start one game.
    await Promise.all([page.instance.onQuickStart(), page.instance.onQuickStart()])
    expect(creates()).toHaveLength(2)
  })
})
