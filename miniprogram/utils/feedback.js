/**
 * Sound and touch for moves: a short stone sound on each move (a lower one
 * for the AI's), and a light vibration for the player's own; and a chime at
 * the end of a game, rising for a win, falling for a loss. Muting is the
 * player's setting (utils/settings.js); the vibration goes with it.
 *
 * The sounds are small WAV files in sounds/ (made by
 * scripts/make-sounds.js). One audio context per sound is made on first use
 * and destroyed by `destroy()`, which the page calls on unload.
 */
const SOUNDS = {
  own: '/sounds/stone.wav',
  ai: '/sounds/stone-ai.wav',
  win: '/sounds/win.wav',
  lose: '/sounds/lose.wav',
  draw: '/sounds/draw.wav',
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
    /**
     * The end of the game, by the result dialog's outcome: 'loss' falls,
     * 'draw' repeats a note, a win (or a game the viewer had no side in) rises.
     */
    end(outcome) {
      _play(outcome === 'loss' ? 'lose' : outcome === 'draw' ? 'draw' : 'win')
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
