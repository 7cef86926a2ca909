// Runs before every test file: loads miniprogram-simulate (which defines the
// global Component and a placeholder wx) and then the Page → Component shim.
require('miniprogram-simulate')
require('./page-shim')
