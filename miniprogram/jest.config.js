// Jest runs the unit tests (tests/unit) and the end-to-end tests (tests/e2e)
// in jsdom, which miniprogram-simulate renders into.
module.exports = {
  testEnvironment: 'jsdom',
  testMatch: ['<rootDir>/tests/**/*.test.js'],
  setupFiles: ['<rootDir>/tests/support/setup.js'],
  testTimeout: 30000,
}
