/**
 * Starts the real gomoku-server for end-to-end tests: on 127.0.0.1:0 with a
 * SQLite file, reading the bound address from its one stdout line
 * `listening on <ip:port>`. The binary comes from GOMOKU_SERVER_BIN, or
 * <repo>/target/debug/gomoku-server.
 */
const fs = require('fs')
const os = require('os')
const path = require('path')
const {spawn, spawnSync} = require('child_process')

const REPO = path.resolve(__dirname, '..', '..', '..')
const BIN = process.env.GOMOKU_SERVER_BIN || path.join(REPO, 'target', 'debug', 'gomoku-server')

function requireBinary() {
  if (!fs.existsSync(BIN)) {
    throw new Error(
      `gomoku-server binary not found at ${BIN}. Build it first (cargo build --bin gomoku-server ` +
      'in the repository root) or set GOMOKU_SERVER_BIN to its path.',
    )
  }
  return BIN
}

/** A fresh temporary SQLite file path (the server creates the file). */
function tempDatabase() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gomoku-mp-'))
  return {dir, file: path.join(dir, 'gomoku.db')}
}

/**
 * Start the server on `dbFile` at `addr` (a free port by default; the
 * address of an earlier run to restart it where the phones expect it), with
 * `flags` added to its command line; resolves with {baseUrl, addr, stop(),
 * kill()} once it listens. `stop()` sends SIGTERM, `kill()` SIGKILL (a
 * crash); both resolve when the process has exited.
 */
function startServer(dbFile, {startTimeoutMs = 30000, addr = '127.0.0.1:0', flags = []} = {}) {
  const bin = requireBinary()
  const args = ['--addr', addr, '--database-url', `sqlite://${dbFile}`, '--write-rate-limit', '0'].concat(flags)
  const child = spawn(bin, args, {stdio: ['ignore', 'pipe', 'pipe'], env: Object.assign({}, process.env, {RUST_LOG: process.env.RUST_LOG || 'warn'})})
  let stdout = ''
  let stderr = ''
  const exited = new Promise(resolve => child.once('exit', (code, signal) => resolve({code, signal})))

  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`gomoku-server did not print "listening on" within ${startTimeoutMs} ms.\nstderr:\n${stderr}`))
    }, startTimeoutMs)
    child.stderr.on('data', d => { stderr = (stderr + d).slice(-8000) })
    child.stdout.on('data', d => {
      stdout += d
      const m = /listening on (\S+)/.exec(stdout)
      if (!m) return
      clearTimeout(timer)
      const signal = sig => {
        if (child.exitCode === null && child.signalCode === null) child.kill(sig)
        return exited
      }
      resolve({
        baseUrl: `http://${m[1]}`,
        addr: m[1],
        process: child,
        stop: () => signal('SIGTERM'),
        kill: () => signal('SIGKILL'),
      })
    })
    exited.then(({code, signal}) => {
      clearTimeout(timer)
      reject(new Error(`gomoku-server exited (code ${code}, signal ${signal}) before listening.\nstderr:\n${stderr}`))
    })
  })
}

/**
 * Whether the server binary plays online games (issue 12): a throwaway
 * server answers `POST /games {"mode": "online"}` with 201. Asked once, in a
 * child process (tests/support/probe-online.js), so a test file can decide
 * at load time which of its tests run.
 */
let _probed = null

/** What probe-online.js prints for the binary (once per process: it starts a server). */
function _probe() {
  if (_probed === null) {
    if (!fs.existsSync(BIN)) return ''
    const res = spawnSync(process.execPath, [path.join(__dirname, 'probe-online.js')], {encoding: 'utf8', timeout: 60000})
    _probed = res.status === 0 ? res.stdout : ''
  }
  return _probed
}

function serverPlaysOnline() {
  return /^online$/m.test(_probe())
}

/** Whether the binary has the rematch and the offers' `{action}` bodies (issue 24). */
function serverHasRematch() {
  return /^rematch$/m.test(_probe())
}

/** Which parts of issue 26 the binary has: {pools, opening, puzzles} (see probe-online.js). */
function serverHas26() {
  const out = _probe()
  return {pools: /^pools$/m.test(out), opening: /^opening$/m.test(out), puzzles: /^puzzles$/m.test(out)}
}

module.exports = {BIN, REPO, requireBinary, tempDatabase, startServer, serverPlaysOnline, serverHasRematch, serverHas26}
