/**
 * Export of a finished or running game: the server's record is saved as a
 * .json file under wx.env.USER_DATA_PATH, copied to the clipboard, and, where
 * the WeChat version has it, offered to a chat with wx.shareFileMessage.
 */
const api = require('../services/api')

function _writeFile(filePath, data) {
  return new Promise((resolve, reject) => {
    wx.getFileSystemManager().writeFile({
      filePath,
      data,
      encoding: 'utf8',
      success: () => resolve(filePath),
      fail: err => reject(Object.assign(new Error((err && err.errMsg) || 'writeFile:fail'), {code: 'FILE_WRITE_FAILED'})),
    })
  })
}

function _copy(data) {
  return new Promise(resolve => {
    // The clipboard is a convenience: the file is already saved, so a refusal is not an error.
    wx.setClipboardData({data, success: () => resolve(true), fail: () => resolve(false)})
  })
}

function _offerShare(filePath, fileName, copied) {
  return new Promise(resolve => {
    const where = copied ? '已保存并复制到剪贴板' : '已保存'
    if (typeof wx.shareFileMessage !== 'function') {
      wx.showToast({title: `棋谱${where}`, icon: 'success'})
      resolve(false)
      return
    }
    wx.showModal({
      title: '导出棋谱',
      content: `棋谱${where}，要发送到聊天吗？`,
      confirmText: '发送',
      cancelText: '不用了',
      success: res => {
        if (!res.confirm) { resolve(false); return }
        wx.shareFileMessage({filePath, fileName, success: () => resolve(true), fail: () => resolve(false)})
      },
      fail: () => resolve(false),
    })
  })
}

/**
 * Fetch the record of game `id`, save it and copy it; resolves with
 * {record, text, filePath}. Rejects with the request's error.
 */
function exportGame(id) {
  return api.exportGame(id).then(record => {
    const text = JSON.stringify(record, null, 2)
    const fileName = `gomoku-${record.id || id}.json`
    const filePath = `${wx.env.USER_DATA_PATH}/${fileName}`
    return _writeFile(filePath, text)
      .then(() => _copy(text))
      .then(copied => _offerShare(filePath, fileName, copied))
      .then(() => ({record, text, filePath}))
  })
}

module.exports = {exportGame}
