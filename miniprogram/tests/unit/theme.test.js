/**
 * Colours: both themes define every colour variable, each text colour has a
 * contrast of at least 4.5:1 (WCAG AA) on every background it is used on, and
 * pages and components take their text colours from those variables (the
 * board's wood, which is the same in both themes, is checked here too).
 * app.json follows the system theme through theme.json.
 */
const fs = require('fs')
const path = require('path')
const {ROOT} = require('../support/harness')

const wxss = fs.readFileSync(path.join(ROOT, 'app.wxss'), 'utf8')

function variables(block) {
  const vars = {}
  const re = /(--c-[\w-]+):\s*(#[0-9a-fA-F]{6})\s*;/g
  let m
  while ((m = re.exec(block))) vars[m[1]] = m[2]
  return vars
}

const light = variables(wxss.slice(0, wxss.indexOf('@media')))
const dark = variables(wxss.slice(wxss.indexOf('@media (prefers-color-scheme: dark)')))

function luminance(hex) {
  const [r, g, b] = [1, 3, 5].map(i => parseInt(hex.slice(i, i + 2), 16) / 255)
    .map(c => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4))
  return 0.2126 * r + 0.7152 * g + 0.0722 * b
}

function contrast(a, b) {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x)
  return (hi + 0.05) / (lo + 0.05)
}

// Which text colour stands on which background, as the WXSS uses them.
const PAIRS = [
  ...['--c-text', '--c-muted', '--c-accent', '--c-result', '--c-danger'].flatMap(t => [[t, '--c-page'], [t, '--c-card']]),
  ['--c-btn-text', '--c-btn'],
  ['--c-danger', '--c-btn'],
  ['--c-on-primary', '--c-primary'],
  ['--c-hint', '--c-hint-bg'],
  // A running clock under 10 s, and the two thin banners of the game page.
  ['--c-on-primary', '--c-clock-low'],
  ['--c-danger', '--c-banner'],
  ['--c-muted', '--c-btn'],
  // The result dialog's medal for a win.
  ['--c-on-primary', '--c-result'],
  // The analysis's marks: on the move list's tabs (card) and in the legend (page).
  ...['--c-mark-inaccuracy', '--c-mark-mistake', '--c-mark-blunder', '--c-mark-only-move', '--c-mark-missed']
    .flatMap(t => [[t, '--c-card'], [t, '--c-page']]),
]

describe.each([['light', light], ['dark', dark]])('the %s theme', (name, vars) => {
  test('defines every colour the other does', () => {
    expect(Object.keys(vars).sort()).toEqual(Object.keys(light).sort())
  })

  test.each(PAIRS)('%s on %s is at least 4.5:1', (text, background) => {
    expect(contrast(vars[text], vars[background])).toBeGreaterThanOrEqual(4.5)
  })
})

test('the board\'s labels and forbidden marks are readable on the wood, light and dark ends alike', () => {
  for (const wood of ['#e6c27d', '#cf9f4f']) expect(contrast('#4a300c', wood)).toBeGreaterThanOrEqual(4.5)
  expect(contrast('#b71c1c', '#f6e3bd')).toBeGreaterThanOrEqual(4.5)
})

test('pages and components take text colours from the theme (the board keeps its own wood colours)', () => {
  const offenders = []
  for (const dir of ['pages', 'components']) {
    for (const unit of fs.readdirSync(path.join(ROOT, dir))) {
      if (unit === 'board') continue
      const source = fs.readFileSync(path.join(ROOT, dir, unit, `${unit}.wxss`), 'utf8')
      const re = /(^|[^-])color:\s*(#[0-9a-fA-F]{3,6})/g
      let m
      while ((m = re.exec(source))) offenders.push(`${unit}: ${m[2]}`)
    }
  }
  expect(offenders).toEqual([])
})

test('app.json follows the system theme, with theme.json naming every colour it uses', () => {
  const app = JSON.parse(fs.readFileSync(path.join(ROOT, 'app.json'), 'utf8'))
  const theme = JSON.parse(fs.readFileSync(path.join(ROOT, app.themeLocation), 'utf8'))
  expect(app.darkmode).toBe(true)
  for (const value of Object.values(app.window)) {
    if (String(value).startsWith('@')) {
      const key = value.slice(1)
      expect(theme.light[key]).toBeDefined()
      expect(theme.dark[key]).toBeDefined()
    }
  }
})
