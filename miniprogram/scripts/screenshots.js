#!/usr/bin/env node
/**
 * Screenshots of what a player sees: the home page, the game page mid-game
 * (renju, with a forbidden point and a hint) and won, boards of 9 and 19,
 * and the replay page, written as PNG to <repo>/screenshots/.
 *
 * The real pages run against the real gomoku-server (as in the end-to-end
 * tests), are rendered to DOM by miniprogram-simulate in jsdom with their
 * WXSS (rpx mapped to px at a 375 px wide screen), and each page's HTML is
 * photographed by headless Chromium at 2× pixel density.
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
const WIDTH = 375 // CSS px: 750rpx
const RPX = WIDTH / 750

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

// simulate maps 1rpx to 1px (a 750 px screen); map it to a 375 px one.
const simulateUtils = require('miniprogram-simulate/src/utils')
simulateUtils.transformRpx = css => css.replace(/(-?\d*\.?\d+)rpx/g, (m, n) => `${+(Number(n) * RPX).toFixed(3)}px`)
const simulateWxss = require('miniprogram-simulate/src/wxss')
require('miniprogram-simulate')
require('../tests/support/page-shim')

const config = require('../config')
const {loadPage, loadedIds, openPage, simulate} = require('../tests/support/harness')
const {install, lastQuery} = require('../tests/support/wx')
const {httpTransport} = require('../tests/support/http')
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
const TITLES = {home: '五子棋', game: '对局', replay: '复盘'}

/** app.wxss applies to every page: give its classes the page's prefix as simulate does. */
function appWxss(tag) {
  const source = fs.readFileSync(path.join(ROOT, 'app.wxss'), 'utf8').replace(/\bpage\b/g, 'body')
  return simulateUtils.transformRpx(simulateWxss.compile(source, {prefix: tag}))
}

/** Built-in components the DOM knows nothing of, drawn as the WeChat runtime draws them. */
function builtins(page) {
  const step = page.data.step || 0
  const max = page.data.moveCount || 0
  const pct = max ? (100 * step) / max : 0
  return `
    wx-view { display: block; }
    wx-text { display: inline; }
    wx-slider { display: block; position: relative; height: 40px; margin: 0 18px; }
    wx-slider::before { content: ''; position: absolute; left: 0; right: 0; top: 19px; height: 2px; background: #e0d6c4; }
    wx-slider::after { content: ''; position: absolute; left: calc(${pct}% - 10px); top: 10px; width: 20px; height: 20px;
      border-radius: 50%; background: #fff; box-shadow: 0 1px 4px rgba(0,0,0,.35); }
    .mp-slider-fill { position: absolute; left: 0; top: 19px; height: 2px; width: ${pct}%; background: #8b5a2b; }
  `
}

function html(tag, page) {
  const styles = Array.from(document.querySelectorAll('head style')).map(s => s.textContent).join('\n')
  const body = page.dom.outerHTML.replace(/<wx-slider([^>]*)>/g, '<wx-slider$1><div class="mp-slider-fill"></div>')
  return `<!doctype html><html><head><meta charset="utf-8">
<meta name="viewport" content="width=${WIDTH}">
<style>
  html, body { margin: 0; }
  body { width: ${WIDTH}px; }
  .mp-nav { height: 44px; text-align: center; color: #fff; background: #8b5a2b;
    font: 600 17px -apple-system, "PingFang SC", "Noto Sans CJK SC", sans-serif; line-height: 44px; }
  ${builtins(page)}
  ${appWxss(tag)}
  ${styles}
  ${tag} { display: block; }
</style></head>
<body><div class="mp-nav">${TITLES[tag]}</div>${body}</body></html>`
}

function shoot(tag, page, name, height) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mp-shot-'))
  const file = path.join(dir, `${name}.html`)
  fs.writeFileSync(file, html(tag, page))
  const png = path.join(OUT, `${name}.png`)
  const res = spawnSync(CHROMIUM, [
    '--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
    '--disable-component-update', '--no-first-run', `--user-data-dir=${path.join(dir, 'profile')}`,
    '--hide-scrollbars', '--force-device-scale-factor=2', `--window-size=${WIDTH},${height}`,
    `--screenshot=${png}`, `file://${file}`,
  ], {encoding: 'utf8', timeout: 120000})
  fs.rmSync(dir, {recursive: true, force: true})
  if (res.status !== 0 || !fs.existsSync(png)) fail(`chromium failed for ${name}: ${res.stderr || res.error}`)
  console.log(png)
}

async function newLocalGame(rule, boardSize) {
  const home = await openPage(ids.home)
  home.instance.onModeChange({detail: {value: 'local'}})
  home.instance.onRuleChange({detail: {value: rule}})
  while (home.data.boardSize > boardSize) home.instance.onSizeDown()
  while (home.data.boardSize < boardSize) home.instance.onSizeUp()
  global.wx.rec.navigations.length = 0
  await tapButton(home, '开始对局')
  await until(() => global.wx.rec.navigations.length > 0, 'the new game')
  return openPage(ids.game, {id: lastQuery(global.wx).id})
}

async function play(page, moves) {
  for (const [r, c] of moves) await settle(page, () => tapPoint(page, r, c))
}

async function main() {
  fs.mkdirSync(OUT, {recursive: true})
  const db = tempDatabase()
  install(httpTransport)
  const server = await startServer(db.file)
  config.baseUrl = server.baseUrl
  try {
    // Won: black's diagonal five on a freestyle 15×15 board.
    const won = await newLocalGame('freestyle', 15)
    await play(won, [[3, 3], [3, 4], [4, 4], [4, 5], [5, 5], [5, 6], [6, 6], [6, 7], [7, 7]])
    shoot('game', won, 'game-won', 760)

    // Mid-game: renju, black to move, h8 forbidden (double three), a hint ringed.
    const mid = await newLocalGame('renju', 15)
    await play(mid, [[7, 5], [6, 5], [7, 6], [8, 8], [5, 7], [9, 6], [6, 7], [4, 9], [9, 9], [5, 5]])
    await settle(mid, () => tapButton(mid, '提示')).catch(e => console.warn(`hint unavailable: ${e.message}`))
    shoot('game', mid, 'game-mid', 760)

    // The extremes of board size must fit the 750rpx screen.
    const small = await newLocalGame('freestyle', 9)
    await play(small, [[4, 4], [4, 5], [3, 3], [0, 0], [8, 8]])
    shoot('game', small, 'game-9', 760)
    const large = await newLocalGame('standard', 19)
    await play(large, [[9, 9], [9, 10], [8, 8], [0, 0], [18, 18], [0, 18]])
    shoot('game', large, 'game-19', 760)

    // Replay of the won game, paused two moves before the end.
    const replay = await openPage(ids.replay, {id: won.data.gameId})
    replay.instance.onSeek({detail: {value: replay.data.moveCount - 2}})
    shoot('replay', replay, 'replay', 760)

    const home = await openPage(ids.home)
    shoot('home', home, 'home', 1100)
  } finally {
    await server.stop()
    fs.rmSync(db.dir, {recursive: true, force: true})
  }
}

main().then(() => process.exit(0), err => fail(err.stack || String(err)))
