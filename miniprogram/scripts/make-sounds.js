#!/usr/bin/env node
/**
 * Writes the two move sounds, sounds/stone.wav (the player's stone) and
 * sounds/stone-ai.wav (the AI's, a little lower), synthesised here rather
 * than recorded: a stone set down on a wooden board is a very short noise
 * burst (the contact) over a few fast-decaying resonances (the wood). Mono,
 * 16-bit PCM at 16 kHz, 90 ms: about 3 KB each, which every WeChat version
 * plays. Deterministic (a fixed-seed generator), so running it again gives the
 * same bytes. Run: `node scripts/make-sounds.js`.
 */
const fs = require('fs')
const path = require('path')

const RATE = 16000
const SECONDS = 0.09
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

function wav(samples) {
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
  h.writeUInt32LE(RATE, 24)
  h.writeUInt32LE(RATE * 2, 28) // bytes per second
  h.writeUInt16LE(2, 32) // bytes per frame
  h.writeUInt16LE(16, 34) // bits per sample
  h.write('data', 36)
  h.writeUInt32LE(data.length, 40)
  return Buffer.concat([h, data])
}

const own = [[1750, 1, 0.018], [2950, 0.55, 0.011], [4300, 0.3, 0.007], [900, 0.35, 0.03]]
const ai = own.map(([hz, amp, decay]) => [hz * 0.8, amp, decay * 1.1])

fs.mkdirSync(OUT, {recursive: true})
for (const [name, partials, seed] of [['stone.wav', own, 7], ['stone-ai.wav', ai, 11]]) {
  const file = path.join(OUT, name)
  fs.writeFileSync(file, wav(click(partials, seed)))
  console.log(`${path.relative(process.cwd(), file)}: ${fs.statSync(file).size} bytes`)
}
