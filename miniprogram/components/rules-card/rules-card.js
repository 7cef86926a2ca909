/**
 * The rules on one screen, shown by home on the first visit and on 规则:
 * five in a row wins, what each rule name means, and renju's forbidden moves
 * for black. 快速开始 starts the quick game at once, 知道了 closes; both emit
 * (`start`, `close`) and the page remembers that the card was seen. No
 * networking.
 */
const {ruleCards, QUICK_START_LABEL} = require('../../utils/text')

Component({
  properties: {
    // Whether the card is open.
    show: {type: Boolean, value: false},
  },

  data: {
    rules: ruleCards(),
    quickLabel: QUICK_START_LABEL,
  },

  methods: {
    onClose() {
      this.triggerEvent('close', {})
    },

    onStart() {
      this.triggerEvent('start', {})
    },

    // Taps inside the card must not reach the mask behind it.
    onCardTap() {},
  },
})
