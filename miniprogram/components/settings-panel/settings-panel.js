/**
 * A bottom sheet with the player's local settings: the confirm step for
 * small boards (小棋格时 / 总是 / 关闭), move numbers on stones, and sound with
 * vibration. It only shows the values it is given and emits `change` with
 * {key, value} (key: confirm, numbers or muted) and `close`; the page stores
 * them (utils/settings.js). `rows` picks the rows a page offers.
 */
const {CONFIRM_MODES} = require('../../utils/settings')

Component({
  properties: {
    // Whether the sheet is open.
    show: {type: Boolean, value: false},
    // Which rows to offer, comma-separated: confirm, numbers, sound.
    rows: {type: String, value: 'confirm,numbers,sound'},
    // The confirm step's mode: auto, on or off.
    confirm: {type: String, value: 'auto'},
    // Whether move numbers are shown on the stones.
    numbers: {type: Boolean, value: false},
    // Whether sound and vibration are off.
    muted: {type: Boolean, value: false},
  },

  data: {
    modes: CONFIRM_MODES,
    has: {},
  },

  observers: {
    rows(rows) {
      const has = {}
      String(rows).split(',').forEach(r => { has[r.trim()] = true })
      this.setData({has})
    },
  },

  methods: {
    onConfirmChange(e) {
      this.triggerEvent('change', {key: 'confirm', value: e.detail.value})
    },
    onNumbersChange(e) {
      this.triggerEvent('change', {key: 'numbers', value: !!e.detail.value})
    },
    onSoundChange(e) {
      // The switch says "sound on"; the setting is "muted".
      this.triggerEvent('change', {key: 'muted', value: !e.detail.value})
    },
    onClose() {
      this.triggerEvent('close', {})
    },
    // Taps inside the sheet must not reach the mask behind it.
    onSheetTap() {},
  },
})
