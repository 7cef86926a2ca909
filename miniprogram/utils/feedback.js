/**
 * Sound and touch for moves: a short stone sound on each move (a lower one
 * for the AI's), and a light vibration for the player's own. Muting is the
 * player's setting (utils/settings.js); the vibration goes with it.
 *
 * The sounds are two small WAV files in sounds/ (made by
 * scripts/make-sounds.js). One audio context per sound is made on first use
 * and destroyed by `destroy()`, which the page calls on unload.
 */
const SOUNDS = {
  own: '/sounds/stone.wav',
  ai: '/sounds/stone-ai.wav',
}

function createFeedback(muted) {
  const contexts = {}
  let isMuted = !!muted

  function _play(which) {
    if (isMuted || typeof wx.createInnerAudioContext !== 'function') return
    if (!contexts[which]) {
      const ctx = wx.createInnerAudioContext()
      ctx.src = SOUNDS[which]
      contexts[which] = ctx
    }
    const ctx = contexts[which]
    // Restart a sound still playing from the move before.
    if (typeof ctx.stop === 'function') ctx.stop()
    ctx.play()
  }

  return {
    /** The player's own stone: a click and a light buzz. */
    ownStone() {
      _play('own')
      if (!isMuted && typeof wx.vibrateShort === 'function') wx.vibrateShort({type: 'light', fail: () => {}})
    },
    /** The AI's (or, in a local game, the other side's stone from the server): a click only. */
    aiStone() {
      _play('ai')
    },
    setMuted(value) {
      isMuted = !!value
    },
    get muted() {
      return isMuted
    },
    destroy() {
      Object.keys(contexts).forEach(k => {
        if (typeof contexts[k].destroy === 'function') contexts[k].destroy()
        delete contexts[k]
      })
    },
  }
}

module.exports = {SOUNDS, createFeedback}
