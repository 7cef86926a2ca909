#!/usr/bin/env node
/**
 * `npm test`: the compile check, then the unit tests, then the end-to-end
 * tests against the real server, and finally one plain line
 * `N passed, N failed` with the totals of the Jest suites (the line CI
 * reads). Exits non-zero if anything failed.
 */
const fs = require('fs')
const os = require('os')
const path = require('path')
const {spawnSync} = require('child_process')

const ROOT = path.resolve(__dirname, '..')
const JEST = require.resolve('jest/bin/jest')

function step(title, cmd, args) {
  console.log(`\n== ${title}`)
  const res = spawnSync(cmd, args, {cwd: ROOT, stdio: 'inherit'})
  return res.status === 0
}

function jest(title, testDir) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mp-jest-'))
  const out = path.join(dir, 'result.json')
  const ok = step(title, process.execPath, [JEST, '--runInBand', '--json', `--outputFile=${out}`, testDir])
  let passed = 0
  let failed = 0
  try {
    const r = JSON.parse(fs.readFileSync(out, 'utf8'))
    passed = r.numPassedTests
    // A suite that fails to load has no failed test of its own: count it.
    failed = r.numFailedTests + r.testResults.filter(t => t.status === 'failed' && !t.assertionResults.some(a => a.status === 'failed')).length
  } catch (e) {
    failed = 1
  }
  fs.rmSync(dir, {recursive: true, force: true})
  if (!ok && failed === 0) failed = 1
  return {ok, passed, failed}
}

const checkOk = step('compile check', process.execPath, [path.join(__dirname, 'check.js')])
const unit = jest('unit tests', 'tests/unit')
const e2e = jest('end-to-end tests (real gomoku-server)', 'tests/e2e')

console.log('')
if (!checkOk) console.log('compile check FAILED')
console.log(`${unit.passed + e2e.passed} passed, ${unit.failed + e2e.failed} failed`)
process.exit(checkOk && unit.ok && e2e.ok ? 0 : 1)
