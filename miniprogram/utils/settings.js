/**
 * The player's local preferences, remembered on this phone (wx storage), not
 * on the server: the confirm step for small boards, move numbers on stones,
 * sound, whether the display name has been asked for (once, before the
 * first game against a friend) and whether the rules card has been seen (home
 * shows it on the first visit). Pages read them on load and write them when
 * changed.
 */
const KEY = 'gomoku.settings'

/** How the confirm step decides: by the cell size on screen, always, or never. */
const CONFIRM_MODES = [
  {value: 'auto', label: '小棋格时'},
  {value: 'on', label: '总是'},
  {value: 'off', label: '关闭'},
]

const DEFAULTS = {confirm: 'auto', numbers: false, muted: false, nameAsked: false, rulesSeen: false}

/** The stored settings, each field checked (an unknown or missing value is its default). */
function loadSettings() {
  let stored = null
  try {
    stored = wx.getStorageSync(KEY)
  } catch (e) {
    stored = null
  }
  const s = stored && typeof stored === 'object' ? stored : {}
  return {
    confirm: CONFIRM_MODES.some(m => m.value === s.confirm) ? s.confirm : DEFAULTS.confirm,
    numbers: typeof s.numbers === 'boolean' ? s.numbers : DEFAULTS.numbers,
    muted: typeof s.muted === 'boolean' ? s.muted : DEFAULTS.muted,
    nameAsked: typeof s.nameAsked === 'boolean' ? s.nameAsked : DEFAULTS.nameAsked,
    rulesSeen: typeof s.rulesSeen === 'boolean' ? s.rulesSeen : DEFAULTS.rulesSeen,
  }
}

/** Store `changes` over the current settings; returns the whole new set. */
function saveSettings(changes) {
  const next = Object.assign(loadSettings(), changes)
  try {
    wx.setStorageSync(KEY, next)
  } catch (e) {
    // A full storage only loses the preference, never the game.
  }
  return next
}

/** Whether a move waits for a second tap, for a cell `cellPx` wide under `mode`. */
function confirmNeeded(mode, cellPx, belowPx) {
  if (mode === 'on') return true
  if (mode === 'off') return false
  return cellPx < belowPx
}

module.exports = {KEY, CONFIRM_MODES, DEFAULTS, loadSettings, saveSettings, confirmNeeded}
