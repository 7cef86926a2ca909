/**
 * Where the game service lives: the one place to change it.
 *
 * The WeChat developer tool on this computer reaches the default. To preview on
 * a phone, start the server on a LAN address (`--addr 0.0.0.0:8080`) and put
 * that computer's LAN address here, e.g. 'http://192.168.1.20:8080'.
 */
module.exports = {
  /** Base URL of the gomoku service, without a trailing slash. */
  baseUrl: 'http://127.0.0.1:8080',
  /** Milliseconds before a request is given up (the strongest AI thinks ≤ 2 s). */
  timeout: 15000,
}
