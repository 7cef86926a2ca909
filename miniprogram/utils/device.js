/**
 * What the pages need to know of the phone: the window's width in CSS px
 * (the board sizes itself in whole pixels from it).
 */
function windowWidth() {
  try {
    if (typeof wx.getWindowInfo === 'function') return wx.getWindowInfo().windowWidth || 375
    return wx.getSystemInfoSync().windowWidth || 375
  } catch (e) {
    return 375
  }
}

module.exports = {windowWidth}
