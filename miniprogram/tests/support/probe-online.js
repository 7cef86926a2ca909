#!/usr/bin/env node
/**
 * Prints `online` when the gomoku-server binary creates online games
 * (`POST /api/v1/games {"mode": "online"}` → 201), `local only` otherwise;
 * and then `rematch` when it has the offers of issue 24 (`POST
 * /games/{id}/rematch {"action": …}` is a route: anything but 404
 * NOT_FOUND); and the parts of issue 26 it has: `pools` (GET /pools is
 * 200), `opening` (an AI game under swap2 is created with its `opening`),
 * `puzzles` (GET /puzzles/daily is 200). Run by tests/support/server.js in
 * a child process.
 */
const fs = require('fs')
const {tempDatabase, startServer} = require('./server')
const {httpTransport} = require('./http')

function get(baseUrl, path, token) {
  const header = token ? {Authorization: `Bearer ${token}`} : {}
  return new Promise((resolve, reject) => httpTransport({url: baseUrl + path, method: 'GET', header, success: resolve, fail: reject}))
}

function post(baseUrl, path, body, token) {
  const header = {'Content-Type': 'application/json'}
  if (token) header.Authorization = `Bearer ${token}`
  return new Promise((resolve, reject) => httpTransport({
    url: baseUrl + path, method: 'POST', data: body, header, success: resolve, fail: reject,
  }))
}

async function main() {
  const db = tempDatabase()
  const server = await startServer(db.file)
  try {
    const session = await post(server.baseUrl, '/api/v1/sessions', {})
    const token = session.data.token
    if ((await get(server.baseUrl, '/api/v1/pools', token)).statusCode === 200) console.log('pools')
    const ai = {mode: 'ai', rule: 'freestyle', boardSize: 15, ai: {level: 'easy', player: 2}, opening: 'swap2'}
    const opened = await post(server.baseUrl, '/api/v1/games', ai, token)
    if (opened.statusCode === 201 && opened.data.opening) console.log('opening')
    if ((await get(server.baseUrl, '/api/v1/puzzles/daily', token)).statusCode === 200) console.log('puzzles')
    const game = await post(server.baseUrl, '/api/v1/games', {mode: 'online', rule: 'freestyle', boardSize: 15, seat: 'black'}, session.data.token)
    console.log(game.statusCode === 201 ? 'online' : 'local only')
    if (game.statusCode !== 201) return
    const rematch = await post(server.baseUrl, `/api/v1/games/${game.data.id}/rematch`, {action: 'offer'}, session.data.token)
    const code = rematch.data && rematch.data.error && rematch.data.error.code
    if (rematch.statusCode !== 404 || code !== 'NOT_FOUND') console.log('rematch')
  } finally {
    await server.stop()
    fs.rmSync(db.dir, {recursive: true, force: true})
  }
}

main().catch(err => {
  console.error(err.stack || String(err))
  process.exit(1)
})
