#!/usr/bin/env node
/**
 * Compile check for the mini-program, run first by `npm test`.
 *
 * - The official compilers (wcc for .wxml/.wxs, wcsc for .wxss, from the
 *   miniprogram-compiler package) must accept every file; a syntax error is
 *   reported as file:line.
 * - What the compilers let pass is checked here: every .json parses,
 *   app.json's pages exist, usingComponents and <import>/<include>/<wxs src>
 *   targets resolve, each page and component is one folder of same-named
 *   .js/.json/.wxml/.wxss files, and every tappable element has an aria-label.
 * - Last, the official miniprogram-ci builds the whole project the way the
 *   developer tool does at import and upload (`getCompiledResult`): the JSON
 *   schemas of app.json, theme.json and every page and component, pages and
 *   components present, the JS through its compiler. It normally asks WeChat's
 *   servers for the project's attributes, signed with the upload key; here the
 *   attributes are the package's own `DefaultProjectAttr` and the key is a
 *   throwaway RSA key made for this run, and every request it would still make
 *   (the list of allowed file types) goes to a closed loopback port, so the
 *   check runs offline and the same on every machine.
 *
 * Prints one line per problem and exits 1 if there is any.
 */
const crypto = require('crypto')
const fs = require('fs')
const path = require('path')
const {spawnSync} = require('child_process')

const ROOT = path.resolve(__dirname, '..')
const BIN = path.join(path.dirname(require.resolve('miniprogram-compiler/package.json')), 'bin', 'linux')
const SKIP = new Set(['node_modules', 'tests', 'scripts', '.git'])
const PART_EXTS = ['.js', '.json', '.wxml', '.wxss']

const problems = []
const problem = (file, line, msg) => problems.push(`${path.relative(ROOT, file)}${line ? `:${line}` : ''}: ${msg}`)

function walk(dir, out = []) {
  for (const name of fs.readdirSync(dir)) {
    if (SKIP.has(name)) continue
    const full = path.join(dir, name)
    if (fs.statSync(full).isDirectory()) walk(full, out)
    else out.push(full)
  }
  return out
}

function lineOf(source, index) {
  return source.slice(0, index).split('\n').length
}

function readJson(file) {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'))
  } catch (e) {
    problem(file, 0, `invalid JSON: ${e.message}`)
    return null
  }
}

// The tarball drops the compilers' execute bit.
for (const tool of ['wcc', 'wcsc']) fs.chmodSync(path.join(BIN, tool), 0o755)

const files = walk(ROOT)
const wxml = files.filter(f => f.endsWith('.wxml'))
const wxss = files.filter(f => f.endsWith('.wxss'))
const wxs = files.filter(f => f.endsWith('.wxs'))
const json = files.filter(f => f.endsWith('.json'))

// 1. JSON parses.
const parsed = {}
for (const f of json) parsed[f] = readJson(f)

// 2. Pages exist, each a folder of same-named files; components likewise.
function checkUnit(base, from, what) {
  for (const ext of PART_EXTS) {
    if (!fs.existsSync(base + ext)) problem(from, 0, `${what} ${path.relative(ROOT, base)} has no ${ext} file`)
  }
  if (path.basename(base) !== path.basename(path.dirname(base))) {
    problem(from, 0, `${what} ${path.relative(ROOT, base)} should be named after its folder`)
  }
}

const appJson = parsed[path.join(ROOT, 'app.json')]
if (!appJson) problem(path.join(ROOT, 'app.json'), 0, 'missing or invalid')
const units = []
for (const page of (appJson && appJson.pages) || []) {
  const base = path.join(ROOT, page)
  checkUnit(base, path.join(ROOT, 'app.json'), 'page')
  units.push(base)
}
for (const f of ['app.js', 'app.json', 'app.wxss', 'project.config.json', 'sitemap.json']) {
  if (!fs.existsSync(path.join(ROOT, f))) problem(path.join(ROOT, f), 0, 'missing')
}

// 3. usingComponents resolve (absolute from the root, or relative to the user).
const seen = new Set()
while (units.length) {
  const base = units.pop()
  if (seen.has(base)) continue
  seen.add(base)
  const conf = parsed[`${base}.json`] || {}
  for (const [tag, target] of Object.entries(conf.usingComponents || {})) {
    const dest = target.startsWith('/') ? path.join(ROOT, target) : path.resolve(path.dirname(base), target)
    if (!fs.existsSync(`${dest}.json`)) {
      problem(`${base}.json`, 0, `usingComponents "${tag}": ${target} does not resolve`)
      continue
    }
    checkUnit(dest, `${base}.json`, 'component')
    if (!(parsed[`${dest}.json`] || {}).component) problem(`${dest}.json`, 0, 'component json lacks "component": true')
    units.push(dest)
  }
}

// 4. WXML: import/include/wxs targets exist; tappable elements carry aria-label.
for (const f of wxml) {
  const source = fs.readFileSync(f, 'utf8')
  const refs = /<(import|include|wxs)\b[^>]*?\bsrc="([^"]+)"/g
  let m
  while ((m = refs.exec(source))) {
    let target = m[2].startsWith('/') ? path.join(ROOT, m[2]) : path.resolve(path.dirname(f), m[2])
    if (m[1] !== 'wxs' && !target.endsWith('.wxml')) target += '.wxml'
    if (!fs.existsSync(target)) problem(f, lineOf(source, m.index), `<${m[1]} src="${m[2]}"> does not exist`)
  }
  const tags = /<([a-z][\w-]*)\b([^>]*?)\/?>/g
  while ((m = tags.exec(source))) {
    if (/\b(bind|catch)(:)?tap=/.test(m[2]) && !/\baria-label=/.test(m[2])) {
      problem(f, lineOf(source, m.index), `<${m[1]}> is tappable but has no aria-label`)
    }
  }
}

// 5. The official compilers.
function run(tool, args) {
  return spawnSync(path.join(BIN, tool), args, {cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024})
}

for (const f of wxml) {
  const res = run('wcc', ['-d', path.relative(ROOT, f)].concat(wxs.map(w => path.relative(ROOT, w))))
  if (res.error) problem(f, 0, `wcc could not run: ${res.error.message}`)
  else if (res.status !== 0) problem(f, 0, `wcc: ${(res.stderr || res.stdout).trim()}`)
}
// All together with the .wxs modules, the way the developer tool builds the app.
const all = run('wcc', ['-d'].concat(wxml.map(f => path.relative(ROOT, f)), wxs.map(f => path.relative(ROOT, f))))
if (all.status !== 0) problem(path.join(ROOT, 'app.json'), 0, `wcc (whole app): ${(all.stderr || all.stdout).trim()}`)

for (const f of wxss) {
  const res = run('wcsc', ['-d', path.relative(ROOT, f)])
  const out = `${res.stderr || ''}${res.stdout || ''}`
  const err = /ERR: ([^\n]+)/.exec(out)
  if (res.error) problem(f, 0, `wcsc could not run: ${res.error.message}`)
  else if (res.status !== 0 || err) problem(f, 0, `wcsc: ${err ? err[1] : out.trim()}`)
}

/**
 * 6. miniprogram-ci's build of the whole project. Resolves with the number of
 * files it produced; a problem it finds becomes one line of the report.
 */
async function ciBuild() {
  const ci = require('miniprogram-ci')
  // Nothing listens on port 9 of the loopback: the requests it still makes fail at once.
  ci.proxy('http://127.0.0.1:9')
  const {privateKey} = crypto.generateKeyPairSync('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: {type: 'pkcs1', format: 'pem'},
    publicKeyEncoding: {type: 'spki', format: 'pem'},
  })
  const projectConfig = parsed[path.join(ROOT, 'project.config.json')] || {}
  const project = new ci.Project({
    appid: projectConfig.appid,
    type: 'miniProgram',
    projectPath: ROOT,
    privateKey,
    ignores: ['node_modules/**/*', 'tests/**/*', 'scripts/**/*'],
    attr: async () => ci.DefaultProjectAttr,
  })
  const result = await ci.getCompiledResult({project, setting: {useProjectConfig: true}, onProgressUpdate: () => {}})
  for (const page of (appJson && appJson.pages) || []) {
    if (!result[`${page}.wxml`] || !result[`${page}.js`]) problem(path.join(ROOT, 'app.json'), 0, `miniprogram-ci: page ${page} missing from the build`)
  }
  return Object.keys(result).length
}

/** miniprogram-ci writes its progress and its failed requests to the console: keep them for a failure. */
function quietly(run) {
  const log = []
  const saved = {log: console.log, info: console.info, warn: console.warn, error: console.error}
  for (const k of Object.keys(saved)) console[k] = (...args) => log.push(args.join(' '))
  return run().finally(() => Object.assign(console, saved)).catch(err => {
    const where = err && err.path ? path.join(ROOT, err.path) : path.join(ROOT, 'project.config.json')
    problem(where, 0, `miniprogram-ci: ${(err && err.message) || err}`)
    return 0
  })
}

quietly(ciBuild).then(built => {
  const counted = `${wxml.length} wxml, ${wxss.length} wxss, ${wxs.length} wxs, ${json.length} json; miniprogram-ci built ${built} files`
  if (problems.length) {
    problems.forEach(p => console.error(p))
    console.error(`compile check: ${problems.length} problem(s) in ${counted}`)
    process.exit(1)
  }
  console.log(`compile check: ok (${counted})`)
  // miniprogram-ci leaves its compiler process and timers running.
  process.exit(0)
})
