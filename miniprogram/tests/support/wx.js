/**
 * A `wx` for tests: what the app's JS calls, recorded so tests can assert on
 * it. Storage and files live in memory; toasts, modals, action sheets,
 * navigations, shares, sounds played, vibrations and the question asked
 * before the page is left are recorded; the files a
 * chat "sends" are put in `rec.chatFiles` for wx.chooseMessageFile to offer;
 * the window is `rec.windowWidth` px wide; wx.request goes to the transport a
 * test gives (tests/support/http.js sends it over real HTTP), and
 * wx.connectSocket to the socket maker it gives (a scripted one by default,
 * tests/support/fake-socket.js; tests/support/socket.js opens a real
 * WebSocket). `rec.setNetwork(isConnected)` plays wx.onNetworkStatusChange.
 *
 * install(transport, options) puts it on the global `wx` (over
 * miniprogram-simulate's placeholder) and returns it.
 */
const {fakeSocket} = require('./fake-socket')

const USER_DATA_PATH = 'wxfile://usr'

/**
 * @param {function} transport         wx.request's stand-in
 * @param {object} [options]
 * @param {function} [options.socket]   wx.connectSocket's stand-in (options) → SocketTask
 */
function createWx(transport, {socket = fakeSocket} = {}) {
  const rec = {
    toasts: [],
    modals: [],
    navigations: [],
    titles: [],
    shares: [],
    requests: [],
    storage: new Map(),
    files: new Map(),
    clipboard: '',
    // What the next showModal answers; tests flip it.
    modalAnswer: true,
    // What showActionSheet answers: the index tapped, or null for cancel.
    sheetAnswer: 0,
    sheets: [],
    // The alertText of each action sheet shown, in step with `sheets`.
    sheetAlerts: [],
    // The question asked before the page is left (wx.enableAlertBeforeUnload), or null.
    leaveAlert: null,
    sounds: [],
    vibrations: 0,
    // Files offered by chooseMessageFile: [{name, path, size}]; contents in `files`.
    chatFiles: [],
    windowWidth: 375,
    // Every SocketTask made, in order.
    sockets: [],
    networkListeners: [],
    // 'shown' or 'hidden' after wx.showShareMenu / wx.hideShareMenu.
    shareMenu: null,
    setNetwork(isConnected) {
      rec.networkListeners.slice().forEach(cb => cb({isConnected, networkType: isConnected ? 'wifi' : 'none'}))
    },
  }

  const wx = {
    env: {USER_DATA_PATH},
    rec,
    request(options) {
      rec.requests.push({method: options.method || 'GET', url: options.url, data: options.data})
      return transport(options)
    },
    getStorageSync: key => (rec.storage.has(key) ? JSON.parse(rec.storage.get(key)) : ''),
    setStorageSync: (key, value) => { rec.storage.set(key, JSON.stringify(value)) },
    removeStorageSync: key => { rec.storage.delete(key) },
    showToast: options => { rec.toasts.push(options.title) },
    showActionSheet: options => {
      rec.sheets.push(options.itemList)
      rec.sheetAlerts.push(options.alertText || '')
      const tapIndex = rec.sheetAnswer
      setTimeout(() => {
        if (tapIndex === null) options.fail && options.fail({errMsg: 'showActionSheet:fail cancel'})
        else options.success && options.success({tapIndex})
      }, 0)
    },
    showModal: options => {
      rec.modals.push({title: options.title, content: options.content})
      const confirm = rec.modalAnswer
      setTimeout(() => options.success && options.success({confirm, cancel: !confirm}), 0)
    },
    navigateTo: options => { rec.navigations.push({type: 'navigateTo', url: options.url}) },
    redirectTo: options => { rec.navigations.push({type: 'redirectTo', url: options.url}) },
    reLaunch: options => { rec.navigations.push({type: 'reLaunch', url: options.url}) },
    navigateBack: () => { rec.navigations.push({type: 'navigateBack'}) },
    getWindowInfo: () => ({windowWidth: rec.windowWidth, windowHeight: 700, pixelRatio: 2}),
    createInnerAudioContext: () => {
      const ctx = {
        src: '',
        play() { rec.sounds.push(ctx.src) },
        stop() {},
        destroy() { ctx.destroyed = true },
      }
      return ctx
    },
    vibrateShort: () => { rec.vibrations += 1 },
    chooseMessageFile: options => {
      const files = rec.chatFiles.slice(0, options.count || 1)
      setTimeout(() => {
        if (!files.length) options.fail && options.fail({errMsg: 'chooseMessageFile:fail cancel'})
        else options.success && options.success({tempFiles: files})
      }, 0)
    },
    setNavigationBarTitle: options => { rec.titles.push(options.title) },
    stopPullDownRefresh: () => {},
    setClipboardData: options => {
      rec.clipboard = options.data
      setTimeout(() => options.success && options.success({}), 0)
    },
    getClipboardData: options => {
      setTimeout(() => options.success && options.success({data: rec.clipboard}), 0)
    },
    getFileSystemManager: () => ({
      writeFile: options => {
        if (!String(options.filePath).startsWith(`${USER_DATA_PATH}/`)) {
          setTimeout(() => options.fail && options.fail({errMsg: 'writeFile:fail permission denied'}), 0)
          return
        }
        rec.files.set(options.filePath, options.data)
        setTimeout(() => options.success && options.success({}), 0)
      },
      readFile: options => {
        const has = rec.files.has(options.filePath)
        setTimeout(() => {
          if (has) options.success && options.success({data: rec.files.get(options.filePath)})
          else options.fail && options.fail({errMsg: 'readFile:fail no such file'})
        }, 0)
      },
    }),
    connectSocket: options => {
      const task = socket(options)
      rec.sockets.push(task)
      return task
    },
    onNetworkStatusChange: cb => { rec.networkListeners.push(cb) },
    offNetworkStatusChange: cb => {
      const i = rec.networkListeners.indexOf(cb)
      if (i >= 0) rec.networkListeners.splice(i, 1)
    },
    enableAlertBeforeUnload: options => { rec.leaveAlert = options.message },
    disableAlertBeforeUnload: () => { rec.leaveAlert = null },
    showShareMenu: () => { rec.shareMenu = 'shown' },
    hideShareMenu: () => { rec.shareMenu = 'hidden' },
    shareFileMessage: options => {
      rec.shares.push({filePath: options.filePath, fileName: options.fileName})
      setTimeout(() => options.success && options.success({}), 0)
    },
  }
  return wx
}

function install(transport, options) {
  const wx = createWx(transport, options)
  global.wx = wx
  return wx
}

/** The last `navigateTo`/`redirectTo` url's query as an object. */
function lastQuery(wx) {
  const nav = wx.rec.navigations[wx.rec.navigations.length - 1]
  const q = {}
  const search = nav.url.split('?')[1] || ''
  search.split('&').filter(Boolean).forEach(pair => {
    const [k, v] = pair.split('=')
    q[decodeURIComponent(k)] = decodeURIComponent(v)
  })
  return q
}

module.exports = {createWx, install, lastQuery, USER_DATA_PATH}
