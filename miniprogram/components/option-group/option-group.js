/**
 * A row of mutually exclusive choices (a segmented control), used by the
 * home page for mode, level, colour and rule. Emits `change` with
 * {value} when a different option is tapped.
 */
Component({
  properties: {
    // Caption shown before the choices, also used in the options' aria-labels.
    label: {type: String, value: ''},
    // The choices: [{value, label}] with string values.
    options: {type: Array, value: []},
    // The value of the chosen option.
    value: {type: String, value: ''},
    // Smaller text, for four longer choices in a row (the time controls).
    dense: {type: Boolean, value: false},
  },

  methods: {
    onItemTap(e) {
      const {value} = e.currentTarget.dataset
      if (value === this.data.value) return
      this.triggerEvent('change', {value})
    },
  },
})
