#!/usr/bin/env node
/**
 * Writes the app's sounds, synthesised here rather than recorded. The two
 * move sounds, sounds/stone.wav (the player's stone) and sounds/stone-ai.wav
 * (the AI's, a little lower): a stone set down on a wooden board is a very
 * short noise burst (the contact) over a few fast-decaying resonances (the
 * wood), 90 ms, about 3 KB each. The three end-of-game chimes, sounds/win.wav
 * (three notes rising to the octave), sounds/lose.wav (three falling to a
 * low minor third) and sounds/draw.wav (the same note twice): soft bell-like
 * tones, 0.48 s at 8 kHz (their highest partial is 2.1 kHz), under 8 KB
 * each, so all five stay under 30 KB. Mono 16-bit PCM, at 16 kHz for the
 * clicks, which every WeChat version plays. Deterministic (a fixed-seed generator), so running
 * it again gives the same bytes. Run: `node scripts/make-sounds.js`.
 */
const fs = require('fs')
const path = require('path')

const RATE = 16000
const SECONDS = 0.09
const CHIME_RATE = 8000
const CHIME_SECONDS = 0.48
const OUT = path.resolve(__dirname, '..', 'sounds')

/** A fixed-seed linear congruential generator: noise in [-1, 1). */
function noise(seed) {
  let x = seed >>> 0
  return () => {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0
    return x / 2 ** 31 - 1
  }
}

/** Samples of one click: partials [Hz, amplitude, decay s] plus a 4 ms contact burst. */
function click(partials, seed) {
  const n = Math.round(RATE * SECONDS)
  const rnd = noise(seed)
  const out = new Float64Array(n)
  let low = 0
  for (let i = 0; i < n; i++) {
    const t = i / RATE
    let v = 0
    for (const [hz, amp, decay] of partials) v += amp * Math.sin(2 * Math.PI * hz * t) * Math.exp(-t / decay)
    // The contact: noise, smoothed by a one-pole low-pass, gone after a few ms.
    low += 0.45 * (rnd() - low)
    v += 0.9 * low * Math.exp(-t / 0.004)
    // A 1 ms fade-in keeps the start from popping.
    out[i] = v * Math.min(1, t / 0.001)
  }
  const peak = out.reduce((m, v) => Math.max(m, Math.abs(v)), 0)
  return out.map(v => (v / peak) * 0.8)
}

/**
 * Samples of a chime: `notes` [Hz, start s] each a sine with a quieter
 * octave above it, a 5 ms attack and an exponential decay, like a small bell.
 */
function chime(notes) {
  const n = Math.round(CHIME_RATE * CHIME_SECONDS)
  const out = new Float64Array(n)
  for (const [hz, start] of notes) {
    const from = Math.round(start * CHIME_RATE)
    for (let i = from; i < n; i++) {
      const t = (i - from) / CHIME_RATE
      const env = Math.min(1, t / 0.005) * Math.exp(-t / 0.13)
      out[i] += env * (Math.sin(2 * Math.PI * hz * t) + 0.25 * Math.sin(4 * Math.PI * hz * t))
    }
  }
  const peak = out.reduce((m, v) => Math.max(m, Math.abs(v)), 0)
  // A 20 ms fade-out keeps the end from clicking.
  return out.map((v, i) => (v / peak) * 0.6 * Math.min(1, (n - i) / (0.02 * CHIME_RATE)))
}

function wav(samples, rate) {
  const data = Buffer.alloc(samples.length * 2)
  samples.forEach((v, i) => data.writeInt16LE(Math.round(v * 32767), i * 2))
  const h = Buffer.alloc(44)
  h.write('RIFF', 0)
  h.writeUInt32LE(36 + data.length, 4)
  h.write('WAVE', 8)
  h.write('fmt ', 12)
  h.writeUInt32LE(16, 16) // PCM header size
  h.writeUInt16LE(1, 20) // PCM
  h.writeUInt16LE(1, 22) // mono
  h.writeUInt32LE(rate, 24)
  h.writeUInt32LE(rate * 2, 28) // bytes per second
  h.writeUInt16LE(2, 32) // bytes per frame
  h.writeUInt16LE(16, 34) // bits per sample
  h.write('data', 36)
  h.writeUInt32LE(data.length, 40)
  return Buffer.concat([h, data])
}

const own = [[1750, 1, 0.018], [2950, 0.55, 0.011], [4300, 0.3, 0.007], [900, 0.35, 0.03]]
const ai = own.map(([hz, amp, decay]) => [hz * 0.8, amp, decay * 1.1])

// C5 E5 G5 C6 rising; G4 E4 C4 falling to a darker end; A4 twice.
const win = [[523.25, 0], [659.25, 0.07], [783.99, 0.14], [1046.5, 0.21]]
const lose = [[392.0, 0], [329.63, 0.1], [261.63, 0.2]]
const draw = [[440.0, 0], [440.0, 0.16]]

fs.mkdirSync(OUT, {recursive: true})
const sounds = [
  ['stone.wav', click(own, 7), RATE],
  ['stone-ai.wav', click(ai, 11), RATE],
  ['win.wav', chime(win), CHIME_RATE],
  ['lose.wav', chime(lose), CHIME_RATE],
  ['draw.wav', chime(draw), CHIME_RATE],
]
for (const [name, samples, rate] of sounds) {
  const file = path.join(OUT, name)
  fs.writeFileSync(file, wav(samples, rate))
  console.log(`${path.relative(process.cwd(), file)}: ${fs.statSync(file).size} bytes`)
}
