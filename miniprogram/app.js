/**
 * The app: games live on the server, the app only keeps its session token
 * (services/api.js). Opening the app makes sure a session exists so the
 * first page's requests do not wait for it.
 */
const api = require('./services/api')

App({
  onLaunch() {
    // Warm-up only: every API call ensures the session again and reports its own errors.
    api.ensureSession().catch(() => {})
  },
})
