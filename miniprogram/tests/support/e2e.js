/**
 * Helpers for driving pages the way a person does in end-to-end tests:
 * tap a board point or a button by its text, and wait for the page to
 * settle, collecting what it sent through setData meanwhile.
 */
const {payloadBytes} = require('./harness')

const sleep = ms => new Promise(resolve => setTimeout(resolve, ms))

/** Poll `pred` with real timers until it holds. */
async function until(pred, what, ms = 20000) {
  const start = Date.now()
  while (!pred()) {
    if (Date.now() - start > ms) throw new Error(`timed out waiting for ${what}`)
    await sleep(5)
  }
}

/** Let j-component deliver dispatched events (it uses microtasks). */
async function flush() {
  for (let i = 0; i < 10; i++) await Promise.resolve()
}

/**
 * Run `action` (which makes the page send a request) and wait until the
 * page has cleared `pending`; resolves with the setData payloads it made
 * and their total bytes.
 */
async function settle(page, action) {
  const from = page.setDataLog.length
  await action()
  await until(() => page.setDataLog.slice(from).some(p => p.pending === ''), 'the page to settle')
  const payloads = page.setDataLog.slice(from)
  return {payloads, bytes: payloads.reduce((sum, p) => sum + payloadBytes(p), 0)}
}

/** Tap the board intersection (row, col) inside a page. */
function tapPoint(page, row, col) {
  const n = page.data.board.length
  const board = page.querySelector('#board')
  board.querySelectorAll('.board__cell')[row * n + col].dispatchEvent('tap')
  return flush()
}

/** The page's own components that hold buttons, by their id in the page's WXML. */
const PARTS = ['#invite', '#offer', '#name', '#result']

/** Every button of the page, its own and those of the components in PARTS that are rendered. */
function buttons(page) {
  const own = page.querySelectorAll('.btn').concat(page.querySelectorAll('.replay__speed'))
  return PARTS.map(id => page.querySelector(id)).filter(Boolean)
    .reduce((all, part) => all.concat(part.querySelectorAll('.btn')), own)
}

/** The visible texts of the page's buttons (see `buttons`). */
function buttonTexts(page) {
  return buttons(page).map(b => b.dom.textContent.trim())
}

/** Tap the button whose visible text is `label`. */
function tapButton(page, label) {
  const button = buttons(page).find(b => b.dom.textContent.trim() === label)
  if (!button) throw new Error(`no button "${label}" (there are: ${buttonTexts(page).join(', ')})`)
  button.dispatchEvent('tap')
  return flush()
}

/** Tap a board point and wait for the server's answer to be shown. */
function playAt(page, row, col) {
  return settle(page, () => tapPoint(page, row, col))
}

/** Wait until the page has its answer to the request a tap sent. */
function answered(page) {
  return until(() => !page.data.pending, 'the answer')
}

module.exports = {sleep, until, flush, settle, tapPoint, tapButton, buttonTexts, playAt, answered}
