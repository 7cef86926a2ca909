#!/usr/bin/env node
/**
 * Screenshots of what a player sees, written as PNG to <repo>/screenshots/:
 * the home page (light and dark), the game page mid-game (renju, with
 * forbidden points and a hint), won, boards of 9 and 19, 19×19 at 320 px
 * with the confirm step's ghost stone, the own stone while the AI thinks, a
 * move whose answer was lost, the settings sheet, a first load that failed,
 * a game in the dark theme, the replay page with its move list (before the
 * end, and at the end with move numbers), and a replay with its post-game
 * analysis (the graph, the marks, a missed five ringed; light and dark).
 * Once the server plays online games, a game against a friend too, with two phones (tests/support/
 * phones.js): the name sheet, the waiting screen with the invite button, a
 * live game with clocks and the opponent-offline banner (light and dark), the
 * opponent's takeback offer in its modal, and a spectator's view.
 * At 320 px: home on a first visit (the rules card, light and dark) and
 * after it (also in 好友对战), a game, and the analysed replay stepping the
 * engine's line; each measured in Chromium and printed as a table of target
 * heights and the smallest type. The share card's image is drawn by
 * utils/share-card.js's own drawCard on a canvas in Chromium (a game in
 * progress, and the waiting game's invite, whose card title is printed), and
 * the joiner's name sheet names who invited.
 *
 * The real pages run against the real gomoku-server (as in the end-to-end
 * tests), are rendered to DOM by miniprogram-simulate in jsdom with their
 * WXSS (rpx as a CSS variable, so each shot has its own screen width), and
 * each page's HTML is photographed by headless Chromium at 2× pixel density.
 * The dark shots apply the app's prefers-color-scheme: dark rules.
 *
 * The pages of issue 26 (`npm run screenshots -- issue26` takes only these):
 * home's 匹配 while waiting, a rated game paired through the pool with the
 * ratings on the bars, the player card, the result with the rating change,
 * 排行榜; the opening steps (swap2's first stone, Taraguchi-10's zone); and
 * 残局 (the daily puzzle, a failed attempt, its solution) — each where the
 * server has it.
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
const {loadPage, loadedIds, openPage, launchPage, simulate} = require('../tests/support/harness')
const {install, lastQuery} = require('../tests/support/wx')
const {lossyTransport} = require('../tests/support/http')
const {tempDatabase, startServer, serverPlaysOnline, serverHasRematch, serverHas26} = require('../tests/support/server')
const {settle, tapPoint, tapButton, until} = require('../tests/support/e2e')
const {installPhones, createPhone} = require('../tests/support/phones')
const api = require('../services/api')

function fail(message) {
  console.error(`screenshots: ${message}`)
  process.exit(1)
}

if (!fs.existsSync(CHROMIUM)) fail(`${CHROMIUM} not found: apt-get install -y chromium (or set CHROMIUM_BIN)`)
const cjk = spawnSync('fc-list', [':lang=zh'], {encoding: 'utf8'})
if (!cjk.stdout || !cjk.stdout.trim()) {
  console.warn('screenshots: no Chinese font found, text will show as boxes: apt-get install -y fonts-noto-cjk')
}

const ids = {
  home: loadPage('home'), game: loadPage('game'), replay: loadPage('replay'),
  leaderboard: loadPage('leaderboard'), puzzles: loadPage('puzzles'),
}
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
    wx-button, wx-form, wx-input { display: block; }
    wx-input { line-height: 44px; }
    wx-switch { display: inline-block; position: relative; width: 52px; height: 32px; border-radius: 16px; background: #8b5a2b; }
    wx-switch::after { content: ''; position: absolute; right: 2px; top: 2px; width: 28px; height: 28px; border-radius: 50%; background: #fff; }
    wx-slider { display: block; position: relative; height: 40px; margin: 0 18px; }
    wx-slider::before { content: ''; position: absolute; left: 0; right: 0; top: 19px; height: 2px; background: #e0d6c4; }
    wx-slider::after { content: ''; position: absolute; left: calc(${pct}% - 10px); top: 10px; width: 20px; height: 20px;
      border-radius: 50%; background: #fff; box-shadow: 0 1px 4px rgba(0,0,0,.35); }
    .mp-slider-fill { position: absolute; left: 0; top: 19px; height: 2px; width: ${pct}%; background: #8b5a2b; }
  `
}

function html(tag, page, {width, dark, title, input = '', windowHeight, clip = false}) {
  const styles = Array.from(document.querySelectorAll('head style')).map(s => s.textContent).join('\n')
  const body = page.dom.outerHTML.replace(/<wx-slider([^>]*)>/g, '<wx-slider$1><div class="mp-slider-fill"></div>')
    // An input's value lives in the native component: write it in, as the phone shows it.
    .replace(/<wx-input([^>]*)><\/wx-input>/g, `<wx-input$1>${input}</wx-input>`)
  const nav = THEME[dark ? 'dark' : 'light']
  return `<!doctype html><html><head><meta charset="utf-8">
<meta name="viewport" content="width=${width}">
<style>
  html, body { margin: 0; }
  body { width: ${width}px; --rpx: ${width / 750}px; }
  /* The page's window, under the navigation bar: what the page fixes (sheets, banners, masks) sits in it, as on a phone. */
  .mp-window { position: relative; transform: translateZ(0); min-height: ${windowHeight}px; }
  /* A page longer than the window, with something fixed over it: the window alone, as the phone shows it. */
  ${clip ? `.mp-window { height: ${windowHeight}px; overflow: hidden; }` : ''}
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
<body><div class="mp-nav">${title}<div class="mp-capsule"></div></div><div class="mp-window">${body}</div></body></html>`
}

const WINDOW = {375: 812 - 44, 320: 568 - 44}

/**
 * Photograph `page` at `width` px (375 or 320), as the phone's window shows
 * it, or `height` px of it (a long page scrolled through).
 */
function shoot(tag, page, name, {width = 375, dark = false, title, height, input, clip} = {}) {
  const navTitle = title || global.wx.rec.titles[global.wx.rec.titles.length - 1] || '五子棋'
  const doc = html(tag, page, {width, dark, title: navTitle, input, clip, windowHeight: height || WINDOW[width]})
  const png = path.join(OUT, `${name}.png`)
  chromium(name, doc, ['--force-device-scale-factor=2', `--window-size=${width},${(height || WINDOW[width]) + 44}`, `--screenshot=${png}`])
  if (!fs.existsSync(png)) fail(`chromium wrote no ${png}`)
  console.log(png)
}

/** Run headless Chromium on the HTML `doc` with `args` (a screenshot, a DOM dump); returns its stdout. */
function chromium(name, doc, args) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mp-shot-'))
  const file = path.join(dir, `${name}.html`)
  fs.writeFileSync(file, doc)
  const res = spawnSync(CHROMIUM, [
    '--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
    '--disable-component-update', '--no-first-run', `--user-data-dir=${path.join(dir, 'profile')}`,
    '--hide-scrollbars', ...args, `file://${file}`,
  ], {encoding: 'utf8', timeout: 120000, maxBuffer: 64 * 1024 * 1024})
  fs.rmSync(dir, {recursive: true, force: true})
  if (res.status !== 0) fail(`chromium failed for ${name}: ${res.stderr || res.error}`)
  return res.stdout
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

/**
 * A game imported from a record (black leaves its four on row 7 unfinished at move 9, then wins
 * on column d), its replay page after 分析 has run to the end, at move 9.
 */
async function analysedReplay() {
  const line = [
    [7, 7], [7, 6], [7, 8], [6, 6], [7, 9], [8, 8], [7, 10], [9, 9], [3, 3], [7, 11],
    [4, 3], [10, 10], [2, 3], [6, 9], [1, 3], [5, 5], [0, 3],
  ]
  const moves = line.map(([row, col], i) => ({row, col, player: (i % 2) + 1}))
  const game = await api.importGame({version: 'gomoku-1.0', rule: 'freestyle', boardSize: 15, moves})
  const page = await openPage(ids.replay, {id: game.id})
  await tapButton(page, '分析')
  await until(() => page.data.analysis === 'done', 'the analysis', 120000)
  page.instance.onSelectMove({detail: {step: 9}})
  return page
}

/**
 * A game against a friend, with two phones (and a third that watches) on
 * the same server: each shot is taken on the phone whose screen it is.
 */
async function onlineShots() {
  installPhones()
  const [a, b, c] = ['A', 'B', 'C'].map(name => createPhone(name))
  for (const phone of [a, b, c]) {
    phone.rec.storage.set('gomoku.settings', JSON.stringify({confirm: 'off', muted: true, rulesSeen: true}))
    await phone.run(() => api.ensureSession())
  }
  const on = (phone, fn) => phone.run(fn)

  // Home in 好友对战, creating the first such game: the name sheet.
  const home = await a.open(ids.home)
  await on(a, async () => {
    home.instance.onModeChange({detail: {value: 'online'}})
    home.instance.onSeatChange({detail: {value: 'black'}})
    home.instance.onTimeChange({detail: {value: '10+10'}})
    await tapButton(home, '创建并邀请好友')
  })
  await until(() => home.data.nameSheet, 'the name sheet')
  on(a, () => shoot('home', home, 'online-name', {title: '五子棋', input: '阿明'}))
  await on(a, () => home.querySelector('#name').instance.onSubmit({detail: {value: {name: '阿明'}}}))
  await until(() => a.rec.navigations.length > 0, 'the new game')
  const id = decodeURIComponent(a.rec.navigations[0].url.split('id=')[1])

  // The waiting screen, with 邀请好友.
  const waiting = await a.open(ids.game, {id})
  await until(() => waiting.instance._live && waiting.instance._live.live, 'A\'s live connection')
  on(a, () => shoot('game', waiting, 'online-waiting'))
  // The card this invite sends: its title, and its image drawn as the phone draws it.
  const invite = on(a, () => waiting.instance.onShareAppMessage({from: 'button'}))
  console.log(`share card: ${invite.title} → ${invite.path}`)
  shootShareCard(waiting.instance._state, '阿明', 'share-card-invite')

  // B opens the card and joins; a few moves each.
  b.rec.storage.set('gomoku.settings', JSON.stringify({confirm: 'off', muted: true, rulesSeen: true}))
  const card = {id, join: '1'}
  // B's name sheet, before it joins, says who invited.
  const opening = b.run(() => launchPage(ids.game, card))
  await until(() => opening.page.data.nameSheet, 'B\'s name sheet')
  on(b, () => shoot('game', opening.page, 'online-join-name', {title: '好友对战', input: '小红'}))
  await on(b, () => opening.page.querySelector('#name').instance.onSubmit({detail: {value: {name: '小红'}}}))
  const joined = await opening.ready
  await until(() => !waiting.data.waiting, 'A to see B join')
  await until(() => joined.instance._live && joined.instance._live.live, 'B\'s live connection')
  const moves = [[a, waiting, 7, 7], [b, joined, 6, 8], [a, waiting, 8, 8], [b, joined, 6, 6], [a, waiting, 6, 7], [b, joined, 9, 9]]
  for (const [phone, page, row, col] of moves) {
    await on(phone, () => tapPoint(page, row, col))
    const other = page === waiting ? joined : waiting
    await until(() => other.data.board[row][col] !== 0 && !page.data.pending, 'the move on both phones')
  }

  // Home again: the game in the continue list, whose turn and whether the friend is there.
  const listed = await a.open(ids.home)
  on(a, () => listed.instance.onModeChange({detail: {value: 'online'}}))
  await until(() => listed.data.myName, 'the name')
  on(a, () => shoot('home', listed, 'home-online', {title: '五子棋'}))

  // C watches from the same card.
  const watching = await c.open(ids.game, card)
  await until(() => watching.instance._live && watching.instance._live.live, 'C\'s live connection')

  // B leaves (the app in the background): A sees it, with the clocks running.
  on(b, () => joined.instance.onHide())
  await until(() => !waiting.data.whiteOnline, 'A to see B offline')
  on(a, () => shoot('game', waiting, 'online-live-offline'))
  on(a, () => shoot('game', waiting, 'online-live-offline-dark', {dark: true}))
  await on(b, () => joined.instance.onShow())
  await until(() => waiting.data.whiteOnline, 'B back')

  // A asks for a takeback: B's modal.
  await on(a, () => tapButton(waiting, '请求悔棋'))
  await until(() => joined.data.offerIn === 'takeback', 'B to see the offer')
  on(b, () => shoot('game', joined, 'online-offer'))
  on(a, () => shoot('game', waiting, 'online-offer-sent'))
  on(c, () => shoot('game', watching, 'online-watch'))

  for (const [phone, page] of [[a, waiting], [b, joined], [c, watching]]) on(phone, () => page.instance.onUnload())
}

// --- 320 px, the first visit, the invite and the engine's line (helper F2's scenes).

/**
 * What a finger and an eye get at `width` px: each tappable kind of element's height (and
 * width), and the smallest type by class, measured by Chromium in the page as shot. Printed as
 * a table (`npm run screenshots` output), as README quotes it.
 */
const TARGETS = [
  'btn', 'option-group__item', 'home__rules', 'home__item', 'home__more', 'replay__speed', 'replay__reveal',
  'move-list__item', 'eval-graph__bar', 'replay__line-move', 'game__action', 'board__cell', 'invite-card__share',
  'name-sheet__input', 'rules-card__action', 'home__pool', 'home__link', 'player-bar--tappable',
  'player-card__close', 'leaderboard__tab', 'leaderboard__row', 'game__opening-action', 'puzzles__action',
]

function measure(tag, page, name, {width = 320, dark = false} = {}) {
  const probe = `<script>
    (() => {
      const strip = c => c.replace(/^[a-z0-9-]+?--(?=[a-z])/, '')
      const classes = el => (el.getAttribute('class') || '').split(/\\s+/).filter(Boolean).map(strip)
      const targets = {}
      const type = {}
      for (const el of document.querySelectorAll('.mp-window *')) {
        const r = el.getBoundingClientRect()
        if (!r.width || !r.height) continue
        const cls = classes(el)
        let target = ${JSON.stringify(TARGETS)}.find(t => cls.includes(t))
        // A button by what it is for (its own class), or by its size when it has none.
        if (target === 'btn') target = \`btn \${cls.filter(c => !c.startsWith('btn'))[0] || cls.filter(c => c !== 'btn').join(' ') || ''}\`.trim()
        if (target) {
          const t = targets[target] || (targets[target] = {n: 0, minH: 1e9, maxH: 0, minW: 1e9})
          t.n++
          t.minH = Math.min(t.minH, r.height)
          t.maxH = Math.max(t.maxH, r.height)
          t.minW = Math.min(t.minW, r.width)
        }
        const own = Array.from(el.childNodes).some(n => n.nodeType === 3 && n.textContent.trim())
        if (own) {
          const key = cls[0] || el.tagName.toLowerCase()
          const size = parseFloat(getComputedStyle(el).fontSize)
          if (!(key in type) || size < type[key]) type[key] = size
        }
      }
      const pre = document.createElement('pre')
      pre.id = 'mp-measure'
      pre.textContent = JSON.stringify({targets, type})
      document.body.appendChild(pre)
    })()
  </script>`
  const doc = html(tag, page, {width, dark, title: '五子棋', windowHeight: WINDOW[width]}).replace('</body>', `${probe}</body>`)
  const out = chromium(name, doc, [`--window-size=${width},${WINDOW[width] + 44}`, '--dump-dom'])
  const m = /<pre id="mp-measure">([^<]*)<\/pre>/.exec(out)
  if (!m) fail(`no measurements for ${name}`)
  const {targets, type} = JSON.parse(m[1].replace(/&quot;/g, '"').replace(/&amp;/g, '&'))
  const px = v => `${Math.round(v * 10) / 10}`
  console.log(`\nmeasured at ${width} px: ${name}`)
  console.log('  target                          count  height px (min–max)  min width px')
  for (const [cls, t] of Object.entries(targets)) {
    console.log(`  ${cls.padEnd(32)}${String(t.n).padStart(5)}  ${`${px(t.minH)}–${px(t.maxH)}`.padStart(19)}  ${px(t.minW).padStart(12)}`)
  }
  const smallest = Object.entries(type).sort((a, b) => a[1] - b[1]).slice(0, 8)
  console.log(`  smallest type: ${smallest.map(([cls, size]) => `${cls} ${px(size)}`).join(', ')}`)
}

/** The share card's image, drawn by utils/share-card.js's own drawCard on a real canvas in Chromium. */
function shootShareCard(game, inviter, name) {
  const {CARD_WIDTH, CARD_HEIGHT, cardModel, drawCard} = require('../utils/share-card')
  const doc = `<!doctype html><html><head><meta charset="utf-8"><style>html, body { margin: 0; }</style></head><body>
<canvas id="card" width="${CARD_WIDTH}" height="${CARD_HEIGHT}"></canvas>
<script>${drawCard.toString()}
drawCard(document.getElementById('card').getContext('2d'), ${JSON.stringify(cardModel(game, inviter))})</script></body></html>`
  const png = path.join(OUT, `${name}.png`)
  chromium(name, doc, ['--force-device-scale-factor=1', `--window-size=${CARD_WIDTH},${CARD_HEIGHT}`, `--screenshot=${png}`])
  console.log(png)
}

/**
 * Home at 320 px on a first visit (the rules card, light and dark) and after it (快速开始 above
 * the form), the replay and a game at 320 px, the analysed replay with the engine's line stepped
 * on the board, and the share card's image of a game in progress; with the sizes measured.
 */
async function smallScreenShots(wx, mid) {
  wx.rec.windowWidth = 320
  settings.saveSettings({rulesSeen: false})
  const first = await openPage(ids.home)
  shoot('home', first, 'rules-card-320', {width: 320, title: '五子棋', clip: true})
  shoot('home', first, 'rules-card-320-dark', {width: 320, dark: true, title: '五子棋', clip: true})
  measure('home', first, 'rules-card-320')
  first.instance.onRulesClose()
  const home = await openPage(ids.home)
  shoot('home', home, 'home-320', {width: 320, title: '五子棋', height: 1100})
  measure('home', home, 'home-320')
  // 好友对战's four time controls share one row.
  home.instance.onModeChange({detail: {value: 'online'}})
  await until(() => home.data.myName, 'the name')
  shoot('home', home, 'home-320-online', {width: 320, title: '五子棋'})
  home.instance.onModeChange({detail: {value: 'ai'}})

  const game = await openPage(ids.game, {id: mid.data.gameId})
  shoot('game', game, 'game-320', {width: 320})
  measure('game', game, 'game-320')

  const analysed = await analysedReplay()
  // The analysis carries the engine's line from the server that has it; shown without otherwise.
  if (!analysed.data.line.length) {
    // A server from before `line`: the line of a missed five is the five itself, so show that one ply.
    console.warn('screenshots: this gomoku-server sends no `line` with an analysed move: the shot shows the better move as a one-move line')
    analysed.instance._analysed[8].line = [analysed.instance._analysed[8].best]
    analysed.instance._show(9)
  }
  analysed.instance.onLineForward()
  analysed.instance.onLineForward()
  analysed.instance.onLineForward()
  shoot('replay', analysed, 'replay-line-320', {width: 320, height: 1000})
  shoot('replay', analysed, 'replay-line-320-dark', {width: 320, dark: true, height: 1000})
  measure('replay', analysed, 'replay-line-320')
  wx.rec.windowWidth = 375
  shoot('replay', analysed, 'replay-line', {height: 1100})
  analysed.instance.onUnload()

  shootShareCard(Object.assign({}, mid.data.state || {}, {
    id: 'card', mode: 'online', rule: 'renju', boardSize: 15, board: mid.data.board, you: 1,
    players: {black: {name: '阿明'}, white: null}, timeControl: {initialMs: 600000, incrementMs: 10000},
  }), '阿明', 'share-card')
}

// --- The end of a game, the rematch and the offers at 320 px (helper F1's scenes).

/**
 * Two phones at 320 px in a timed game: the opponent's takeback offer as a
 * card at the top with its countdown (the viewer's own bar and clock in
 * sight below the board), the result dialog on both sides once B resigns
 * (你赢了 in light, 你已认输 in dark), the rematch offer sent (已邀请… with
 * 撤回) and received (对方想再来一局), and the new game both pages move to.
 */
async function gameEndShots() {
  installPhones()
  const [a, b] = ['D', 'E'].map(name => createPhone(name))
  for (const [phone, name] of [[a, '阿明'], [b, '小红']]) {
    phone.rec.windowWidth = 320
    phone.rec.storage.set('gomoku.settings', JSON.stringify({confirm: 'off', muted: true, nameAsked: true}))
    await phone.run(() => api.ensureSession().then(() => api.setName(name)))
  }
  const on = (phone, fn) => phone.run(fn)
  const live = (page, who) => until(() => page.instance._live && page.instance._live.live, `${who}'s live connection`)
  const created = await on(a, () => api.createGame({mode: 'online', rule: 'freestyle', boardSize: 15, seat: 'black', timeControl: {initialMs: 600000, incrementMs: 10000}}))
  const pa = await a.open(ids.game, {id: created.id})
  const pb = await b.open(ids.game, {id: created.id, join: '1'})
  await until(() => !pa.data.waiting, 'A to see B join')
  await live(pa, 'A')
  await live(pb, 'B')
  const moves = [[a, pa, 7, 7], [b, pb, 6, 8], [a, pa, 8, 8], [b, pb, 6, 6], [a, pa, 6, 7]]
  for (const [phone, page, row, col] of moves) {
    await on(phone, () => tapPoint(page, row, col))
    const other = page === pa ? pb : pa
    await until(() => other.data.board[row][col] !== 0 && !page.data.pending, 'the move on both phones')
  }

  // B asks for a takeback: A's card at the top, A's own clock running below the board.
  await on(b, () => tapButton(pb, '请求悔棋'))
  await until(() => pa.data.offerIn === 'takeback' && pa.data.offerInLeft, 'A to see the offer')
  await until(() => pb.data.takebackOut && !pb.data.pending, 'B\'s page to show its offer')
  on(a, () => shoot('game', pa, 'end-offer-top-320', {width: 320}))
  on(b, () => shoot('game', pb, 'end-offer-sent-320', {width: 320}))
  await on(a, () => tapButton(pa, '拒绝'))
  await until(() => !pb.data.takebackOut && !pa.data.pending, 'B to see the refusal')

  // B resigns: the result dialog on both phones.
  await on(b, () => tapButton(pb, '认输'))
  await until(() => pa.data.resultShown && pb.data.resultShown, 'the result on both phones')
  on(a, () => shoot('game', pa, 'end-result-win-320', {width: 320}))
  on(b, () => shoot('game', pb, 'end-result-resigned-320-dark', {width: 320, dark: true}))

  // B asks for a rematch; A sees the offer with its ten minutes.
  await on(b, () => tapButton(pb, '再来一局'))
  await until(() => pb.data.rematchOut && pa.data.offerIn === 'rematch', 'the rematch offer on both phones')
  on(b, () => shoot('game', pb, 'end-rematch-sent-320', {width: 320}))
  on(a, () => shoot('game', pa, 'end-rematch-offer-320', {width: 320}))

  // A accepts: both move to the new game, colours swapped.
  await on(a, () => tapButton(pa, '同意'))
  const moved = phone => phone.rec.navigations.find(n => n.type === 'redirectTo')
  await until(() => moved(a) && moved(b), 'both pages to move to the new game')
  const nextId = decodeURIComponent(moved(b).url.split('id=')[1])
  const nextA = await a.open(ids.game, {id: nextId})
  const next = await b.open(ids.game, {id: nextId})
  await live(nextA, 'A')
  await live(next, 'B')
  await until(() => next.data.blackOnline && next.data.whiteOnline, 'both in the new game')
  on(b, () => shoot('game', next, 'end-rematch-new-game-320', {width: 320}))
  for (const [phone, page] of [[a, pa], [b, pb], [a, nextA], [b, next]]) on(phone, () => page.instance.onUnload())
}

/**
 * A transport answering the leaderboard with twelve sample players (the
 * viewer, 's' + 5, among them): the shape the server sends, the data made up.
 */
function sampleLeaderboard() {
  const {fakeTransport} = require('../tests/support/fake-transport')
  const transport = fakeTransport()
  const names = ['棋圣', '阿强', '小红', '老王', '星星', '我自己', '落子无悔', '天元', '花月', '一刀', '小白', '东风']
  const ranks = [[1912, '7段'], [1850, '6段'], [1799, '5段'], [1761, '5段'], [1702, '4段'], [1655, '3段'], [1610, '2段'], [1577, '1段'], [1540, '1级'], [1502, '2级'], [1466, '3级'], [1431, '4级']]
  transport.on('POST', '/api/v1/sessions', () => [201, {token: 't', playerId: 's5'}])
  transport.on('GET', '/api/v1/leaderboard', () => [200, {family: 'gomoku', players: names.map((name, i) => ({
    place: i + 1, playerId: `s${i}`, name,
    rating: {family: 'gomoku', rating: ranks[i][0], rd: 60, provisional: false, shown: String(ranks[i][0]), rank: {name: ranks[i][1], tier: 'dan'}, games: 40 - i * 2, wins: 20, losses: 15, draws: 5 - (i % 3)},
  }))}])
  return transport
}

/**
 * The pages of issue 26, with two phones: 匹配 while waiting, the rated game
 * both pages move to, the player card, the rating change, 排行榜; the opening
 * steps against the AI; 残局.
 */
async function issue26Shots() {
  const has = serverHas26()
  installPhones()
  const [a, b] = ['F', 'G'].map(name => createPhone(name))
  for (const [phone, name] of [[a, '阿明'], [b, '小红']]) {
    phone.rec.storage.set('gomoku.settings', JSON.stringify({confirm: 'off', muted: true, nameAsked: true, rulesSeen: true}))
    await phone.run(() => api.ensureSession().then(() => api.setName(name)))
  }
  const on = (phone, fn) => phone.run(fn)
  const opened = []
  const open = async (phone, id, query) => {
    const page = await phone.open(id, query)
    opened.push([phone, page])
    return page
  }
  const gameOf = phone => decodeURIComponent(phone.rec.navigations.filter(n => n.url.includes('game?id=')).pop().url.split('id=')[1])

  if (has.pools) {
    const homeA = await open(a, ids.home)
    const homeB = await open(b, ids.home)
    const pool = homeA.data.pools[1].pool
    for (const [phone, home] of [[a, homeA], [b, homeB]]) on(phone, () => home.instance.onPoolTap({currentTarget: {dataset: {pool}}}))
    await on(a, () => tapButton(homeA, '开始匹配'))
    await until(() => homeA.data.seeking, 'A waiting in the pool')
    await on(a, () => homeA.instance._loadPools())
    on(a, () => shoot('home', homeA, 'match-seeking', {title: '五子棋', height: 1500}))
    on(a, () => shoot('home', homeA, 'match-seeking-dark', {title: '五子棋', height: 1500, dark: true}))
    await on(b, () => tapButton(homeB, '开始匹配'))
    await until(() => !homeA.data.seeking && !homeB.data.seeking, 'the pairing')
    const id = gameOf(a)
    const pa = await open(a, ids.game, {id})
    const pb = await open(b, ids.game, {id})
    const live = page => until(() => page.instance._live && page.instance._live.live, 'a live connection')
    await live(pa)
    await live(pb)
    const [black, bp, white, wp] = pa.data.you === 1 ? [a, pa, b, pb] : [b, pb, a, pa]
    await on(black, () => tapPoint(bp, 7, 7))
    await until(() => wp.data.board[7][7] === 1, 'white to see the stone')
    on(white, () => shoot('game', wp, 'match-rated-game'))
    await on(white, () => wp.instance.onPlayerTap({detail: {playerId: wp.data.you === 1 ? wp.data.whiteId : wp.data.blackId}}))
    await until(() => wp.data.cardShown, 'the player card')
    on(white, () => shoot('game', wp, 'match-player-card'))
    on(white, () => wp.instance.onCardClose())
    await on(white, () => tapPoint(wp, 6, 8))
    await until(() => bp.data.board[6][8] === 2, 'black to see the stone')
    // Black resigns after a move each: a rated result, the change on both sides.
    await on(black, () => bp.instance._act('resign', () => api.resign(bp.data.gameId)))
    await until(() => wp.data.resultShown && bp.data.resultShown, 'the result on both phones')
    await until(() => wp.data.result.change && bp.data.result.change, 'the rating changes on both phones')
    on(white, () => shoot('game', wp, 'match-result-up'))
    on(black, () => shoot('game', bp, 'match-result-down-dark', {dark: true}))
    const board = await open(a, ids.leaderboard)
    on(a, () => shoot('leaderboard', board, 'leaderboard-empty', {title: '排行榜'}))
    // A board with players takes many rated games: a phone whose requests a script answers shows one.
    const sample = createPhone('H', {transport: sampleLeaderboard()})
    const full = await open(sample, ids.leaderboard)
    on(sample, () => shoot('leaderboard', full, 'leaderboard-sample', {title: '排行榜'}))
  } else {
    console.warn('screenshots: this gomoku-server has no pools yet: no 匹配 shots')
  }

  if (has.opening) {
    const home = await open(a, ids.home)
    const start = async (rule, opening) => {
      on(a, () => {
        home.instance.setData({starting: false})
        home.instance.onModeChange({detail: {value: 'ai'}})
        home.instance.onLevelChange({detail: {value: 'easy'}})
        home.instance.onRuleChange({detail: {value: rule}})
        home.instance.onOpeningChange({detail: {value: opening}})
      })
      const before = a.rec.navigations.length
      await on(a, () => tapButton(home, '开始对局'))
      await until(() => a.rec.navigations.length > before, 'the new game')
      return open(a, ids.game, {id: gameOf(a)})
    }
    on(a, () => shoot('home', home, 'opening-settings', {title: '五子棋'}))
    const swap2 = await start('freestyle', 'swap2')
    await on(a, () => tapPoint(swap2, 7, 7))
    await until(() => swap2.data.board[7][7] && !swap2.data.pending, 'the first stone')
    on(a, () => shoot('game', swap2, 'opening-swap2-place'))
    const taraguchi = await start('renju', 'taraguchi10')
    on(a, () => shoot('game', taraguchi, 'opening-taraguchi-zone'))
  } else {
    console.warn('screenshots: this gomoku-server has no opening rules yet: no opening shots')
  }

  if (has.puzzles) {
    const page = await open(b, ids.puzzles)
    on(b, () => shoot('puzzles', page, 'puzzle-daily', {title: '每日残局'}))
    const n = page.data.board.length
    const corner = [[0, 0], [0, n - 1], [n - 1, 0], [n - 1, n - 1]].find(([r, c]) => !page.data.board[r][c])
    await on(b, () => tapPoint(page, corner[0], corner[1]))
    await until(() => !page.data.pending, 'the answer')
    on(b, () => shoot('puzzles', page, 'puzzle-failed', {title: '每日残局'}))
    if (page.data.hasSolution) {
      on(b, () => page.instance.onShowSolution())
      on(b, () => page.instance.onSolutionNext())
      on(b, () => shoot('puzzles', page, 'puzzle-solution-dark', {title: '每日残局', dark: true}))
    }
  } else {
    console.warn('screenshots: this gomoku-server has no puzzles yet: no 残局 shots')
  }
  for (const [phone, page] of opened) on(phone, () => page.instance.onUnload && page.instance.onUnload())
}

async function main() {
  fs.mkdirSync(OUT, {recursive: true})
  if (process.argv[2] === 'issue26') {
    const db = tempDatabase()
    const server = await startServer(db.file)
    config.baseUrl = server.baseUrl
    try {
      await issue26Shots()
    } finally {
      await server.stop()
      fs.rmSync(db.dir, {recursive: true, force: true})
    }
    return
  }
  const db = tempDatabase()
  const transport = lossyTransport()
  const wx = install(transport)
  settings.saveSettings({confirm: 'off', rulesSeen: true})
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

    // The post-game analysis of a game where black missed a five (move 9): the graph above the
    // slider, the marks on the move list, and the five black missed ringed on the board.
    const analysed = await analysedReplay()
    shoot('replay', analysed, 'replay-analysis')
    shoot('replay', analysed, 'replay-analysis-dark', {dark: true})
    analysed.instance.onUnload()

    await smallScreenShots(wx, mid)
    settings.saveSettings({rulesSeen: true})

    const home = await openPage(ids.home)
    shoot('home', home, 'home', {title: '五子棋', height: 1280})
    shoot('home', home, 'home-dark', {dark: true, title: '五子棋'})

    if (serverPlaysOnline() && serverHasRematch()) {
      await onlineShots()
      await gameEndShots()
      await issue26Shots()
    } else {
      console.warn('screenshots: this gomoku-server does not play online games with the rematch yet: no 好友对战 shots')
    }
  } finally {
    await server.stop()
    fs.rmSync(db.dir, {recursive: true, force: true})
  }
}

main().then(() => process.exit(0), err => fail(err.stack || String(err)))
