/**
 * Loading and rendering the app's pages and components with
 * miniprogram-simulate, and measuring what a page sends through setData.
 */
const fs = require('fs')
const path = require('path')
const simulate = require('miniprogram-simulate')

const ROOT = path.resolve(__dirname, '..', '..')

const loaded = {}

/**
 * Load a component by its path under the root, e.g. 'components/board/board',
 * once: its own components are loaded first and handed over by id. Under
 * jest a second load of the same file would register nothing (the module
 * registry keeps the first require), so pages that share the board share one
 * registration.
 */
function load(relPath, tagName) {
  if (loaded[relPath]) return loaded[relPath]
  const json = JSON.parse(fs.readFileSync(path.join(ROOT, `${relPath}.json`), 'utf8'))
  const using = {}
  Object.keys(json.usingComponents || {}).forEach(tag => {
    const target = json.usingComponents[tag]
    const full = target.startsWith('/') ? path.join(ROOT, target) : path.resolve(ROOT, path.dirname(relPath), target)
    using[tag] = load(path.relative(ROOT, full), tag)
  })
  loaded[relPath] = simulate.load(path.join(ROOT, relPath), tagName, {rootPath: ROOT, usingComponents: using})
  return loaded[relPath]
}

/** Ids of every component and page loaded so far, by path. */
function loadedIds() {
  return Object.assign({}, loaded)
}

/** Load a page ('home', 'game', 'replay'). */
function loadPage(name) {
  return load(`pages/${name}/${name}`, name)
}

/** UTF-8 bytes of a setData payload as the framework serialises it (JSON). */
function payloadBytes(payload) {
  return Buffer.byteLength(JSON.stringify(payload), 'utf8')
}

/**
 * Render a page, record its setData payloads, and run onLoad(query) and
 * onShow() as the framework does. Returns the simulate component with
 * `setDataLog` (array of payloads).
 */
async function openPage(id, query = {}) {
  const {page, ready} = launchPage(id, query)
  await ready
  return page
}

/**
 * openPage without waiting: {page, ready}, where `ready` settles when
 * onLoad's and onShow's promises have — for a page that asks something
 * (a name) before it has finished loading.
 */
function launchPage(id, query = {}) {
  const comp = simulate.render(id)
  comp.attach(document.createElement('parent-wrapper'))
  const inst = comp.instance
  const setData = inst.setData
  comp.setDataLog = []
  inst.setData = function (payload, cb) {
    comp.setDataLog.push(payload)
    return setData.call(this, payload, cb)
  }
  // The framework calls onShow right after onLoad, without waiting for it.
  const loading = inst.onLoad ? inst.onLoad(query) : null
  const showing = inst.onShow ? inst.onShow() : null
  return {page: comp, ready: Promise.all([loading, showing]).then(() => comp)}
}

/**
 * DOM elements under `node` with class `cls`, as simulate prefixes it with
 * the owning component's tag (e.g. board → 'board--board__cell').
 */
function byClass(node, tag, cls) {
  const dom = node.dom || node
  return Array.from(dom.querySelectorAll(`.${tag}--${cls}`))
}

/** The trimmed texts of those elements. */
function textsOf(node, tag, cls) {
  return byClass(node, tag, cls).map(el => el.textContent.trim())
}

module.exports = {ROOT, simulate, load, loadedIds, loadPage, openPage, launchPage, payloadBytes, byClass, textsOf}
