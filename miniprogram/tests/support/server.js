/**
 * Starts the real gomoku-server for end-to-end tests: on 127.0.0.1:0 with a
 * SQLite file, reading the bound address from its one stdout line
 * `listening on <ip:port>`. The binary comes from GOMOKU_SERVER_BIN, or
 * <repo>/target/debug/gomoku-server.
 */
const fs = require('fs')
const os = require('os')
const path = require('path')
const {spawn} = require('child_process')

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
 * Start the server on `dbFile`; resolves with {baseUrl, stop()} once it
 * listens. `stop()` sends SIGTERM and resolves when the process has exited.
 */
function startServer(dbFile, {startTimeoutMs = 30000} = {}) {
  const bin = requireBinary()
  const args = ['--addr', '127.0.0.1:0', '--database-url', `sqlite://${dbFile}`, '--write-rate-limit', '0']
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
      resolve({
        baseUrl: `http://${m[1]}`,
        process: child,
        stop() {
          if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
          return exited
        },
      })
    })
    exited.then(({code, signal}) => {
      clearTimeout(timer)
      reject(new Error(`gomoku-server exited (code ${code}, signal ${signal}) before listening.\nstderr:\n${stderr}`))
    })
  })
}

module.exports = {BIN, REPO, requireBinary, tempDatabase, startServer}
