/**
 * What a page shows when its first load failed (no network, a deleted game,
 * a new server database): what happened, 重试 and 返回首页, and nothing else
 * that could be tapped into a broken request. Emits `retry` and `home`.
 */
Component({
  properties: {
    // What went wrong, in the player's words.
    message: {type: String, value: ''},
    // Whether 重试 makes sense (not for a game that no longer exists).
    canRetry: {type: Boolean, value: true},
    // Whether the retry is under way (the button then waits).
    busy: {type: Boolean, value: false},
  },

  methods: {
    onRetry() {
      if (this.data.busy) return
      this.triggerEvent('retry', {})
    },
    onHome() {
      this.triggerEvent('home', {})
    },
  },
})
