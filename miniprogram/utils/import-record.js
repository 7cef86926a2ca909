/**
 * Import of a game record (what export produces: JSON, version gomoku-1.0)
 * from a file sent in a chat (wx.chooseMessageFile) or from the clipboard.
 * Both resolve with the parsed record, or with null after telling the player
 * why there is none (nothing chosen, not JSON); the server judges the record
 * itself when it is imported. (The clipboard may also hold an invite to a
 * game, which home recognises first: clipboardText.)
 */

/** Larger files are not records: export writes a few KB even for a full 19×19 game. */
const MAX_BYTES = 64 * 1024

function _parse(raw, where) {
  let record = null
  try {
    record = JSON.parse(raw)
  } catch (e) {
    record = null
  }
  if (!record || typeof record !== 'object' || Array.isArray(record)) {
    wx.showToast({title: `${where}里没有棋谱（JSON）`, icon: 'none'})
    return null
  }
  return record
}

/** Let the player pick a .json file from a chat; resolves with its record or null. */
function recordFromChatFile() {
  return new Promise(resolve => {
    wx.chooseMessageFile({
      count: 1,
      type: 'file',
      extension: ['json'],
      success: res => resolve((res.tempFiles || [])[0] || null),
      // Closing the picker is not an error.
      fail: () => resolve(null),
    })
  }).then(file => {
    if (!file) return null
    if (file.size > MAX_BYTES) {
      wx.showToast({title: '文件太大，不是棋谱', icon: 'none'})
      return null
    }
    return new Promise(resolve => {
      wx.getFileSystemManager().readFile({
        filePath: file.path,
        encoding: 'utf8',
        success: res => resolve(_parse(res.data, '文件')),
        fail: () => {
          wx.showToast({title: '读取文件失败', icon: 'none'})
          resolve(null)
        },
      })
    })
  })
}

/** The text on the clipboard ('' when it cannot be read). */
function clipboardText() {
  return new Promise(resolve => {
    wx.getClipboardData({success: res => resolve(res.data), fail: () => resolve('')})
  })
}

/** The record in text read from the clipboard, or null. */
function recordFromClipboardText(clip) {
  return _parse(clip, '剪贴板')
}

/** The record on the clipboard, or null. */
function recordFromClipboard() {
  return clipboardText().then(recordFromClipboardText)
}

module.exports = {MAX_BYTES, recordFromChatFile, recordFromClipboard, clipboardText, recordFromClipboardText}
