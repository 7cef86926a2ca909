#!/usr/bin/env node
/**
 * Screenshots of what a player sees, written as PNG to <repo>/screenshots/:
 * the home page (light and dark), the game page mid-game (renju, with
 * forbidden points and a hint), won, boards of 9 and 19, 19×19 at 320 px
 * with the confirm step's ghost stone, the own stone while the AI thinks, a
 * move whose answer was lost, the settings sheet, a first load that failed,
 * a game in the dark theme, and the replay page with its move list (before
 * the end, and at the end with move numbers).
 *
 * The real pages run against the real gomoku-server (as in the end-to-end
 * tests), are rendered to DOM by miniprogram-simulate in jsdom with their
 * WXSS (rpx as a CSS variable, so each shot has its own screen width), and
 * each page's HTML is photographed by headless Chromium at 2× pixel density.
 * The dark shots apply the app's prefers-color-scheme: dark rules.
 *
 * Needs: chromium (CHROMIUM_BIN, default /usr/bin/chromium) and the server
 * binary (GOMOKU_SERVER_BIN, default <repo>/target/debug/gomoku-server).
 */
const fs = require('fs')
const os = require('os')
const path = require('path')
const {spawnSync} = require('child_process')
const {JSDOM} = require('jsdom')

const ROOT = path.resolve(__dirname, '..')
const OUT = path.resolve(ROOT, '..', 'screenshots')
const CHROMIUM = process.env.CHROMIUM_BIN || '/usr/bin/chromium'
const THEME = JSON.parse(fs.readFileSync(path.join(ROOT, 'theme.json'), 'utf8'))

// miniprogram-simulate renders into a DOM: give it jsdom's, as jest would.
const dom = new JSDOM('<!doctype html><html><head></head><body></body></html>', {pretendToBeVisual: true})
for (const key of Object.getOwnPropertyNames(dom.window)) {
  if (!(key in global)) {
    try {
      global[key] = dom.window[key]
    } catch (e) {
      // read-only globals of Node stay Node's
    }
  }
}
// Node has its own Event classes; the DOM must get jsdom's.
for (const key of ['Event', 'CustomEvent', 'EventTarget', 'UIEvent', 'MouseEvent', 'TouchEvent', 'FocusEvent', 'KeyboardEvent']) {
  if (dom.window[key]) global[key] = dom.window[key]
}
global.window = dom.window
global.document = dom.window.document

// simulate maps 1rpx to 1px (a 750 px screen); make it a variable each shot sets for its width.
const simulateUtils = require('miniprogram-simulate/src/utils')
simulateUtils.transformRpx = css => css.replace(/(-?\d*\.?\d+)rpx/g, (m, n) => `calc(${n} * var(--rpx))`)
const simulateWxss = require('miniprogram-simulate/src/wxss')
require('miniprogram-simulate')
require('../tests/support/page-shim')

const config = require('../config')
const settings = require('../utils/settings')
const {loadPage, loadedIds, openPage, simulate} = require('../tests/support/harness')
const {install, lastQuery} = require('../tests/support/wx')
const {lossyTransport} = require('../tests/support/http')
const {tempDatabase, startServer} = require('../tests/support/server')
const {settle, tapPoint, tapButton, until} = require('../tests/support/e2e')

function fail(message) {
  console.error(`screenshots: ${message}`)
  process.exit(1)
}

if (!fs.existsSync(CHROMIUM)) fail(`${CHROMIUM} not found: apt-get install -y chromium (or set CHROMIUM_BIN)`)
const cjk = spawnSync('fc-list', [':lang=zh'], {encoding: 'utf8'})
if (!cjk.stdout || !cjk.stdout.trim()) {
  console.warn('screenshots: no Chinese font found, text will show as boxes: apt-get install -y fonts-noto-cjk')
}

const ids = {home: loadPage('home'), game: loadPage('game'), replay: loadPage('replay')}
// simulate puts a component's WXSS into the document when it is first rendered.
Object.values(loadedIds()).forEach(id => simulate.render(id))

/**
 * app.wxss applies to every page: give its classes the page's prefix as
 * simulate does; for a dark shot its dark rules apply unconditionally.
 */
function appWxss(tag, dark) {
  let source = fs.readFileSync(path.join(ROOT, 'app.wxss'), 'utf8').replace(/\bpage\b/g, 'body')
  if (dark) source = source.replace('@media (prefers-color-scheme: dark)', '@media all')
  // Components with "styleIsolation": "apply-shared" take the app's classes too (.btn…).
  const shared = fs.readdirSync(path.join(ROOT, 'components')).filter(name => {
    const json = JSON.parse(fs.readFileSync(path.join(ROOT, 'components', name, `${name}.json`), 'utf8'))
    return json.styleIsolation === 'apply-shared'
  })
  return [tag].concat(shared).map(prefix => simulateUtils.transformRpx(simulateWxss.compile(source, {prefix}))).join('\n')
}

/** Built-in components the DOM knows nothing of, drawn as the WeChat runtime draws them. */
function builtins(page) {
  const step = page.data.step || 0
  const max = page.data.moveCount || 0
  const pct = max ? (100 * step) / max : 0
  return `
    wx-view { display: block; }
    wx-text { display: inline; }
    wx-scroll-view { display: block; overflow: hidden; }
    wx-switch { display: inline-block; position: relative; width: 52px; height: 32px; border-radius: 16px; background: #8b5a2b; }
    wx-switch::after { content: ''; position: absolute; right: 2px; top: 2px; width: 28px; height: 28px; border-radius: 50%; background: #fff; }
    wx-slider { display: block; position: relative; height: 40px; margin: 0 18px; }
    wx-slider::before { content: ''; position: absolute; left: 0; right: 0; top: 19px; height: 2px; background: #e0d6c4; }
    wx-slider::after { content: ''; position: absolute; left: calc(${pct}% - 10px); top: 10px; width: 20px; height: 20px;
      border-radius: 50%; background: #fff; box-shadow: 0 1px 4px rgba(0,0,0,.35); }
    .mp-slider-fill { position: absolute; left: 0; top: 19px; height: 2px; width: ${pct}%; background: #8b5a2b; }
  `
}

function html(tag, page, {width, dark, title}) {
  const styles = Array.from(document.querySelectorAll('head style')).map(s => s.textContent).join('\n')
  const body = page.dom.outerHTML.replace(/<wx-slider([^>]*)>/g, '<wx-slider$1><div class="mp-slider-fill"></div>')
  const nav = THEME[dark ? 'dark' : 'light']
  return `<!doctype html><html><head><meta charset="utf-8">
<meta name="viewport" content="width=${width}">
<style>
  html, body { margin: 0; }
  body { width: ${width}px; --rpx: ${width / 750}px; }
  .mp-nav { position: relative; height: 44px; text-align: center; color: ${nav.navTextStyle === 'white' ? '#fff' : '#000'};
    background: ${nav.navBgColor}; font: 600 17px -apple-system, "PingFang SC", "Noto Sans CJK SC", sans-serif; line-height: 44px; }
  /* WeChat's capsule button (menu and close), which a long title would run under. */
  .mp-capsule { position: absolute; right: 7px; top: 6px; width: 87px; height: 32px; box-sizing: border-box;
    border: 1px solid rgba(255,255,255,.35); border-radius: 16px; background: rgba(0,0,0,.15); }
  .mp-capsule::before { content: ''; position: absolute; left: 13px; top: 14px; width: 4px; height: 4px; border-radius: 50%;
    background: currentColor; box-shadow: 7px 0 0 currentColor, 14px 0 0 currentColor; }
  .mp-capsule::after { content: ''; position: absolute; left: 56px; top: 7px; width: 14px; height: 14px; border-radius: 50%;
    border: 2px solid currentColor; box-shadow: -13px 0 0 -7px rgba(255,255,255,.35); }
  ${builtins(page)}
  ${appWxss(tag, dark)}
  ${styles}
  ${tag} { display: block; }
</style></head>
<body><div class="mp-nav">${title}<div class="mp-capsule"></div></div>${body}</body></html>`
}

const WINDOW = {375: 812 - 44, 320: 568 - 44}

/**
 * Photograph `page` at `width` px (375 or 320), as the phone's window shows
 * it, or `height` px of it (a long page scrolled through).
 */
function shoot(tag, page, name, {width = 375, dark = false, title, height} = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mp-shot-'))
  const file = path.join(dir, `${name}.html`)
  const navTitle = title || global.wx.rec.titles[global.wx.rec.titles.length - 1] || '五子棋'
  fs.writeFileSync(file, html(tag, page, {width, dark, title: navTitle}))
  const png = path.join(OUT, `${name}.png`)
  const res = spawnSync(CHROMIUM, [
    '--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
    '--disable-component-update', '--no-first-run', `--user-data-dir=${path.join(dir, 'profile')}`,
    '--hide-scrollbars', '--force-device-scale-factor=2', `--window-size=${width},${(height || WINDOW[width]) + 44}`,
    `--screenshot=${png}`, `file://${file}`,
  ], {encoding: 'utf8', timeout: 120000})
  fs.rmSync(dir, {recursive: true, force: true})
  if (res.status !== 0 || !fs.existsSync(png)) fail(`chromium failed for ${name}: ${res.stderr || res.error}`)
  console.log(png)
}

async function newGame(rule, boardSize, ai) {
  const home = await openPage(ids.home)
  home.instance.onModeChange({detail: {value: ai ? 'ai' : 'local'}})
  if (ai) home.instance.onLevelChange({detail: {value: ai}})
  home.instance.onRuleChange({detail: {value: rule}})
  while (home.data.boardSize > boardSize) home.instance.onSizeDown()
  while (home.data.boardSize < boardSize) home.instance.onSizeUp()
  global.wx.rec.navigations.length = 0
  await tapButton(home, '开始对局')
  await until(() => global.wx.rec.navigations.length > 0, 'the new game')
  return openPage(ids.game, {id: lastQuery(global.wx).id})
}

/** The first of `points` that is empty on the page's board (the AI's replies vary). */
function emptyOf(page, points) {
  return points.find(([r, c]) => page.data.board[r][c] === 0)
}

async function play(page, moves) {
  for (const [r, c] of moves) await settle(page, () => tapPoint(page, r, c))
}

const newLocalGame = (rule, boardSize) => newGame(rule, boardSize, null)

async function main() {
  fs.mkdirSync(OUT, {recursive: true})
  const db = tempDatabase()
  const transport = lossyTransport()
  const wx = install(transport)
  settings.saveSettings({confirm: 'off'})
  const server = await startServer(db.file)
  config.baseUrl = server.baseUrl
  try {
    // Won: black's diagonal five on a freestyle 15×15 board.
    const won = await newLocalGame('freestyle', 15)
    await play(won, [[3, 3], [3, 4], [4, 4], [4, 5], [5, 5], [5, 6], [6, 6], [6, 7], [7, 7]])
    shoot('game', won, 'game-won')

    // Mid-game: renju, black to move, h8 forbidden (double three), a hint ringed.
    const mid = await newLocalGame('renju', 15)
    await play(mid, [[7, 5], [6, 5], [7, 6], [8, 8], [5, 7], [9, 6], [6, 7], [4, 9], [9, 9], [5, 5]])
    await settle(mid, () => tapButton(mid, '提示')).catch(e => console.warn(`hint unavailable: ${e.message}`))
    shoot('game', mid, 'game-mid')

    // The extremes of board size must fit the screen.
    const small = await newLocalGame('freestyle', 9)
    await play(small, [[4, 4], [4, 5], [3, 3], [0, 0], [8, 8]])
    shoot('game', small, 'game-9')
    const large = await newLocalGame('standard', 19)
    await play(large, [[9, 9], [9, 10], [8, 8], [0, 0], [18, 18], [0, 18]])
    shoot('game', large, 'game-19')

    // 19×19 on a 320 px screen: 15 px cells, so the first tap only places a ghost stone.
    wx.rec.windowWidth = 320
    const tiny = await newLocalGame('freestyle', 19)
    await play(tiny, [[9, 9], [9, 10], [8, 8], [10, 10]])
    tiny.instance.onSettingChange({detail: {key: 'confirm', value: 'auto'}})
    await tapPoint(tiny, 7, 11)
    shoot('game', tiny, 'game-19-320-ghost', {width: 320})
    tiny.instance.onSettingChange({detail: {key: 'confirm', value: 'off'}})
    wx.rec.windowWidth = 375

    // Against the master AI: the own stone shows at once, faded, while the AI thinks.
    const ai = await newGame('freestyle', 15, 'master')
    await play(ai, [[7, 7]])
    await tapPoint(ai, ...emptyOf(ai, [[8, 8], [6, 6], [8, 6], [6, 8]]))
    shoot('game', ai, 'game-ai-thinking')
    await until(() => !ai.data.pending, 'the AI reply')

    // A move whose answer was lost: faded, dashed, with 重试 and 放弃.
    transport.dropNext('POST', /\/moves$/)
    await settle(ai, () => tapPoint(ai, ...emptyOf(ai, [[6, 6], [8, 6], [6, 8], [9, 9], [5, 5]])))
    shoot('game', ai, 'game-unsent')
    await settle(ai, () => tapButton(ai, '放弃'))

    // The settings sheet, with move numbers on.
    ai.instance.onSettingChange({detail: {key: 'numbers', value: true}})
    ai.instance.onOpenSettings()
    shoot('game', ai, 'game-settings')
    ai.instance.onCloseSettings()
    ai.instance.onSettingChange({detail: {key: 'numbers', value: false}})

    // A first load that failed: the server out of reach.
    const reachable = config.baseUrl
    config.baseUrl = 'http://127.0.0.1:9'
    const failed = await openPage(ids.game, {id: won.data.gameId})
    config.baseUrl = reachable
    shoot('game', failed, 'game-load-failed', {title: '对局'})

    // The dark theme.
    const dark = await openPage(ids.game, {id: mid.data.gameId})
    shoot('game', dark, 'game-dark', {dark: true})

    // Replay of the renju game, paused mid-way: the result kept back, the move list below.
    const replay = await openPage(ids.replay, {id: mid.data.gameId})
    replay.instance.onSeek({detail: {value: 6}})
    shoot('replay', replay, 'replay')
    // The won game at its end, with move numbers.
    const end = await openPage(ids.replay, {id: won.data.gameId})
    end.instance.onSettingChange({detail: {key: 'numbers', value: true}})
    end.instance.onLast()
    shoot('replay', end, 'replay-end-numbers')
    end.instance.onSettingChange({detail: {key: 'numbers', value: false}})

    const home = await openPage(ids.home)
    shoot('home', home, 'home', {title: '五子棋', height: 1280})
    shoot('home', home, 'home-dark', {dark: true, title: '五子棋'})
  } finally {
    await server.stop()
    fs.rmSync(db.dir, {recursive: true, force: true})
  }
}

main().then(() => process.exit(0), err => fail(err.stack || String(err)))
