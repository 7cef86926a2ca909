/**
 * The chess clocks of a timed online game, as the page shows them. Time is
 * the server's: a state carries `clock: {blackMs, whiteMs, running, asOf}`,
 * the times left at the instant `asOf`, and which side's clock runs. The page
 * counts the running one down from there on the phone's own clock (phones
 * keep network time) and never decides a flag fall itself: it shows 0:00 and
 * waits for the server's state that ends the game.
 *
 * Pure functions: the page owns the one timer (pages/game/online.js).
 */

const {EMPTY, BLACK, WHITE} = require('./game-state')

/** A clock that reads under this many ms (0:09 and less) is shown in red. */
const LOW_MS = 10000

/** `asOf` as ms since the epoch: the server sends RFC 3339 text (a number is taken as it is). */
function _instant(asOf) {
  if (typeof asOf === 'number') return asOf
  const t = Date.parse(asOf)
  return Number.isNaN(t) ? null : t
}

/** Ms left on `side`'s clock (BLACK or WHITE) at `now`, never below 0. */
function remainingMs(clock, side, now) {
  const left = side === BLACK ? clock.blackMs : clock.whiteMs
  if (clock.running !== side) return Math.max(0, left)
  const at = _instant(clock.asOf)
  // A state stamped ahead of the phone's clock has not started counting yet.
  const elapsed = at === null ? 0 : Math.max(0, now - at)
  return Math.max(0, left - elapsed)
}

function _pad(n) {
  return n < 10 ? `0${n}` : `${n}`
}

/**
 * "9:59", "0:07", "1:02:03": whole seconds, rounded up, so 0:00 shows only
 * once the time is really gone.
 */
function clockText(ms) {
  const s = Math.ceil(Math.max(0, ms) / 1000)
  const h = Math.floor(s / 3600)
  const m = Math.floor((s % 3600) / 60)
  const sec = s % 60
  return h > 0 ? `${h}:${_pad(m)}:${_pad(sec)}` : `${m}:${_pad(sec)}`
}

/**
 * The clocks as the page's data: {blackClock, whiteClock, blackLow,
 * whiteLow, clockRunning} ('', false and EMPTY for an untimed game).
 */
function clockView(clock, now) {
  if (!clock) return {blackClock: '', whiteClock: '', blackLow: false, whiteLow: false, clockRunning: EMPTY}
  const black = remainingMs(clock, BLACK, now)
  const white = remainingMs(clock, WHITE, now)
  // By what the clock reads (whole seconds, rounded up), so 0:10 is never red and 0:09 always is.
  const low = ms => Math.ceil(ms / 1000) * 1000 < LOW_MS
  return {
    blackClock: clockText(black),
    whiteClock: clockText(white),
    blackLow: low(black),
    whiteLow: low(white),
    clockRunning: clock.running || EMPTY,
  }
}

/**
 * Ms from `now` until the running clock's text next changes (just past the
 * next whole second), or null when no clock runs or it has run out (the
 * server is about to end the game).
 */
function nextChangeIn(clock, now) {
  if (!clock || !clock.running) return null
  const left = remainingMs(clock, clock.running, now)
  if (left <= 0) return null
  const shown = Math.ceil(left / 1000)
  // A few ms past the boundary, so the tick lands on the new second and not just before it.
  return left - (shown - 1) * 1000 + 5
}

/** "10分钟+10秒", "每方20分钟", "不限时": a time control ({initialMs, incrementMs} or null) in words. */
function timeControlText(tc) {
  if (!tc) return '不限时'
  const initial = tc.initialMs % 60000 === 0 ? `${tc.initialMs / 60000}分钟` : `${Math.round(tc.initialMs / 1000)}秒`
  if (!tc.incrementMs) return `每方${initial}`
  return `${initial}+${Math.round(tc.incrementMs / 1000)}秒`
}

module.exports = {LOW_MS, remainingMs, clockText, clockView, nextChangeIn, timeControlText}
