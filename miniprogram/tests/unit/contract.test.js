/**
 * The mini-program's copies of the service's words, checked against the
 * OpenAPI description the real gomoku-server serves (GET
 * /api/v1/openapi.json): every error code utils/text.js has a text for, and
 * every code a page compares against, is one the service documents, and
 * every documented code has a text; every name text.js and
 * utils/game-state.js list (rules, levels, modes, seats, statuses, forbidden
 * kinds, end reasons, marks, offers) is the description's list exactly; and
 * the limits the pages apply are the service's.
 */
const fs = require('fs')
const http = require('http')
const path = require('path')
const text = require('../../utils/text')
const gameState = require('../../utils/game-state')
const {NETWORK_ERROR} = require('../../services/request')
const {ROOT} = require('../support/harness')
const {tempDatabase, startServer, requireBinary} = require('../support/server')

requireBinary() // fail the suite with a clear message when the server is not built

/**
 * Codes the mini-program makes itself, never sent by the service: a request
 * that got no answer (services/request.js), a record file that could not be
 * written (utils/export-record.js).
 */
const CLIENT_CODES = [NETWORK_ERROR, 'FILE_WRITE_FAILED']

let server
let db
let description

function getJson(url) {
  return new Promise((resolve, reject) => {
    http.get(url, res => {
      const chunks = []
      res.on('data', c => chunks.push(c))
      res.on('end', () => {
        if (res.statusCode !== 200) return reject(new Error(`GET ${url}: ${res.statusCode}`))
        resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')))
      })
    }).on('error', reject)
  })
}

beforeAll(async () => {
  db = tempDatabase()
  server = await startServer(db.file)
  description = await getJson(`${server.baseUrl}/api/v1/openapi.json`)
})

afterAll(async () => {
  if (server) await server.stop()
  if (db) fs.rmSync(db.dir, {recursive: true, force: true})
})

/**
 * Every error code the description documents: the words in capitals that
 * the descriptions of its 4xx and 5xx answers name ("CELL_OCCUPIED; GAME_OVER
 * (…)", "BUSY or AI_BUSY").
 */
function documentedCodes() {
  const codes = new Set()
  for (const operations of Object.values(description.paths)) {
    for (const operation of Object.values(operations)) {
      for (const [status, answer] of Object.entries(operation.responses || {})) {
        if (Number(status) < 400) continue
        for (const word of (answer.description || '').match(/\b[A-Z][A-Z0-9_]{2,}\b/g) || []) codes.add(word)
      }
    }
  }
  return codes
}

/** The schema `name` of the description. */
function schema(name) {
  const schemas = description.components.schemas
  const found = schemas[name]
  if (!found) throw new Error(`no schema ${name} in the description`)
  return found
}

/** The first list of allowed values at or under `node` (an enum, or the enum of a nullable oneOf). */
function enumIn(node) {
  if (!node || typeof node !== 'object') return null
  if (Array.isArray(node.enum)) return node.enum
  for (const child of Object.values(node)) {
    const found = enumIn(child)
    if (found) return found
  }
  return null
}

const sorted = list => [...list].sort()

/** Every 'UPPER_CASE' string the mini-program's own code (not text.js) compares a code against. */
function codesInPages() {
  const codes = new Map()
  const walk = dir => {
    for (const entry of fs.readdirSync(dir, {withFileTypes: true})) {
      const full = path.join(dir, entry.name)
      if (entry.isDirectory()) walk(full)
      else if (entry.name.endsWith('.js') && !full.endsWith(path.join('utils', 'text.js'))) {
        for (const m of fs.readFileSync(full, 'utf8').matchAll(/'([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)'/g)) {
          codes.set(m[1], path.relative(ROOT, full))
        }
      }
    }
  }
  for (const dir of ['pages', 'components', 'services', 'utils']) walk(path.join(ROOT, dir))
  return codes
}

describe('error codes', () => {
  test('every code with a text in utils/text.js is one the service documents', () => {
    const documented = documentedCodes()
    // The codes are read from the answers' descriptions: a change of their wording must not
    // leave this test with nothing to compare.
    expect(documented.size).toBeGreaterThan(20)
    const stale = Object.keys(text.ERRORS).filter(code => !documented.has(code) && !CLIENT_CODES.includes(code))
    expect(stale).toEqual([])
  })

  test('every documented code has a text of its own, not the generic one', () => {
    const generic = [text.errorText({code: 'NO_SUCH_CODE', status: 400}), text.errorText({code: 'NO_SUCH_CODE', status: 500})]
    const missing = [...documentedCodes()].filter(code => generic.includes(text.errorText({code, status: 400})))
    expect(missing).toEqual([])
  })

  test('every code a page, component or service compares against is documented (or made by the mini-program)', () => {
    const documented = documentedCodes()
    const unknown = [...codesInPages()].filter(([code]) => !documented.has(code) && !CLIENT_CODES.includes(code))
    expect(unknown).toEqual([])
  })
})

describe('names', () => {
  test.each([
    ['RULES', 'RuleName', () => text.RULES.map(r => r.value)],
    ['LEVELS', 'LevelName', () => text.LEVELS.map(l => l.value)],
    ['MODES', 'ModeName', () => text.MODES.map(m => m.value)],
    ['FORBIDDEN_KINDS', 'ForbiddenKindName', () => Object.keys(text.FORBIDDEN_KINDS)],
    ['END_REASONS', 'EndReasonName', () => Object.keys(text.END_REASONS)],
    ['MARKS', 'MarkName', () => text.MARKS.map(m => m.mark)],
    ['game-state STATUS', 'StatusName', () => Object.values(gameState.STATUS)],
  ])('%s are the description\'s %s exactly', (_, name, ours) => {
    expect(sorted(ours())).toEqual(sorted(enumIn(schema(name))))
  })

  test('game-state LIST_FILTER are the game list\'s status filters exactly', () => {
    const filter = description.paths['/api/v1/games'].get.parameters.find(p => p.name === 'status')
    expect(sorted(Object.values(gameState.LIST_FILTER))).toEqual(sorted(enumIn(filter)))
  })

  test('SEATS are the seats a new online game may ask for', () => {
    const seats = enumIn(schema('CreateOnlineGame').properties.seat)
    expect(sorted(text.SEATS.map(s => s.value))).toEqual(sorted(seats))
  })

  test('OFFER_NAMES name every kind of offer a state carries', () => {
    expect(sorted(Object.keys(text.OFFER_NAMES))).toEqual(sorted(Object.keys(schema('OffersView').properties)))
  })

  test('the colours are the AI\'s `player` values: BLACK the least, WHITE the most', () => {
    const player = schema('AiRequest').properties.player
    expect([gameState.BLACK, gameState.WHITE]).toEqual([player.minimum, player.maximum])
  })
})

describe('limits', () => {
  test('a display name is at most as long as the service takes', () => {
    expect(text.NAME_MAX_CHARS).toBe(schema('Rename').properties.name.maxLength)
  })

  test('every time control offered is one the service accepts', () => {
    const {initialMs, incrementMs} = schema('TimeControlRequest').properties
    for (const {control} of text.TIME_CONTROLS.filter(t => t.control)) {
      expect(control.initialMs).toBeGreaterThanOrEqual(initialMs.minimum)
      expect(control.initialMs).toBeLessThanOrEqual(initialMs.maximum)
      expect(control.incrementMs).toBeGreaterThanOrEqual(incrementMs.minimum)
      expect(control.incrementMs).toBeLessThanOrEqual(incrementMs.maximum)
    }
  })
})
