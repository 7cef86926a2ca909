/**
 * The invite of a game against a friend, in its three forms: the share card
 * (title, the path that opens the game and takes the free seat, and an image
 * of the board), the sentence 复制邀请 puts on the clipboard, and the
 * inviter's name, which both carry.
 *
 * The image is drawn on an offscreen 2d canvas (`wx.createOffscreenCanvas`)
 * and written to a temporary file (`wx.canvasToTempFilePath`). That takes a
 * moment, and onShareAppMessage must answer at once, so the card carries a
 * `promise` of the card with its image: WeChat waits up to 3 s for it and
 * otherwise sends the card without one (its default, a shot of the page).
 * The drawing itself, `drawCard`, uses only the standard 2d context and no
 * name outside itself, so the screenshot script runs the very same function
 * in Chromium to show the image.
 */
const text = require('./text')
const {EMPTY, BLACK, WHITE, isWaiting} = require('./game-state')

/** The image's size in px: 5:4, the shape WeChat shows a card's image in. */
const CARD_WIDTH = 500
const CARD_HEIGHT = 400

/** The path an invite opens: the game page, the game, and the flag that takes the free seat. */
function invitePath(id) {
  return `/pages/game/game?id=${encodeURIComponent(id)}&join=1`
}

/**
 * Who invites to an online game: the viewer's name when seated; on a game
 * waiting for its second player, the one seated (as the joiner sees it); ''
 * otherwise (a spectator invites nobody).
 */
function inviterOf(game) {
  if (!game) return ''
  if (game.you) return text.seatName(game, game.you)
  return isWaiting(game) ? text.seatName(game, BLACK) || text.seatName(game, WHITE) : ''
}

/** What the image shows: the board's size and stones, and the settings in words. */
function cardModel(game, inviter) {
  const size = game.boardSize || (game.board ? game.board.length : 15)
  const stones = []
  ;(game.board || []).forEach((row, r) => row.forEach((cell, c) => {
    if (cell !== EMPTY) stones.push([r, c, cell])
  }))
  return {
    size,
    stones,
    inviter: inviter || '',
    rule: text.ruleLabel(game.rule),
    time: text.shortTimeText(game.timeControl) || '不限时',
  }
}

/**
 * Draw the card on a 2d context of CARD_WIDTH × CARD_HEIGHT px: the board on
 * the left (its grid, star points and stones; the centre stone alone on an
 * empty board), the invite in large type on the right. Self-contained (see
 * the module comment).
 */
function drawCard(ctx, card) {
  const W = 500
  const H = 400
  const font = '"PingFang SC", "Noto Sans CJK SC", sans-serif'
  ctx.fillStyle = '#f6efe2'
  ctx.fillRect(0, 0, W, H)
  // The board: a wooden square with the grid inset by half a cell.
  const side = 340
  const x0 = 30
  const y0 = 30
  ctx.fillStyle = '#dcb374'
  ctx.fillRect(x0, y0, side, side)
  const n = card.size
  const cell = side / n
  const at = i => x0 + cell / 2 + i * cell
  ctx.strokeStyle = '#5a3d12'
  ctx.lineWidth = 1
  for (let i = 0; i < n; i++) {
    ctx.beginPath()
    ctx.moveTo(at(0), y0 + cell / 2 + i * cell)
    ctx.lineTo(at(n - 1), y0 + cell / 2 + i * cell)
    ctx.moveTo(at(i), y0 + cell / 2)
    ctx.lineTo(at(i), y0 + cell / 2 + (n - 1) * cell)
    ctx.stroke()
  }
  const mid = (n - 1) / 2
  const edge = n >= 13 ? 3 : 2
  const stars = [[mid, mid], [edge, edge], [edge, n - 1 - edge], [n - 1 - edge, edge], [n - 1 - edge, n - 1 - edge]]
  ctx.fillStyle = '#5a3d12'
  stars.forEach(([r, c]) => {
    ctx.beginPath()
    ctx.arc(at(c), y0 + cell / 2 + r * cell, Math.max(2, cell * 0.12), 0, Math.PI * 2)
    ctx.fill()
  })
  const stones = card.stones.length ? card.stones : [[Math.floor(mid), Math.floor(mid), BLACK]]
  stones.forEach(([r, c, p]) => {
    const cx = at(c)
    const cy = y0 + cell / 2 + r * cell
    const radius = cell * 0.46
    const g = ctx.createRadialGradient(cx - radius * 0.3, cy - radius * 0.35, radius * 0.1, cx, cy, radius)
    g.addColorStop(0, p === BLACK ? '#6b6b6b' : '#ffffff')
    g.addColorStop(1, p === BLACK ? '#000000' : '#c9c9c9')
    ctx.fillStyle = g
    ctx.beginPath()
    ctx.arc(cx, cy, radius, 0, Math.PI * 2)
    ctx.fill()
  })
  // The invite: who, the game, the rule and time, each on its own line.
  const x = 385
  ctx.textBaseline = 'alphabetic'
  ctx.fillStyle = '#3b2a14'
  ctx.font = `bold 26px ${font}`
  const who = card.inviter.length > 4 ? `${card.inviter.slice(0, 4)}…` : card.inviter
  ctx.fillText(who || '好友', x, 90)
  ctx.font = `20px ${font}`
  ctx.fillStyle = '#6b5636'
  ctx.fillText('邀你下棋', x, 122)
  ctx.fillStyle = '#8b5a2b'
  ctx.fillRect(x, 150, 90, 2)
  ctx.fillStyle = '#3b2a14'
  ctx.font = `bold 24px ${font}`
  ctx.fillText(card.rule, x, 196)
  ctx.fillText(`${n}路`, x, 236)
  ctx.fillText(card.time, x, 276)
  ctx.fillStyle = '#8b5a2b'
  ctx.font = `bold 22px ${font}`
  ctx.fillText('点开加入 ›', x, 350)
}

/** Drawn images by game and move count, so a second share does not draw again. */
const _images = new Map()

/** A temporary file of the card's image; rejects where the phone cannot draw offscreen. */
function cardImage(game, inviter) {
  const key = `${game.id}:${game.moveCount || 0}:${inviter}`
  if (!_images.has(key)) {
    const drawn = new Promise((resolve, reject) => {
      if (typeof wx.createOffscreenCanvas !== 'function') throw new Error('no offscreen canvas')
      const canvas = wx.createOffscreenCanvas({type: '2d', width: CARD_WIDTH, height: CARD_HEIGHT})
      drawCard(canvas.getContext('2d'), cardModel(game, inviter))
      wx.canvasToTempFilePath({
        canvas,
        fileType: 'png',
        success: res => resolve(res.tempFilePath),
        fail: reject,
      })
    })
    // A failed drawing is not kept: the next share tries again.
    drawn.catch(() => _images.delete(key))
    _images.set(key, drawn)
  }
  return _images.get(key)
}

/**
 * The share card of `game` (onShareAppMessage's answer): {title, path} at
 * once and, for an online game, a `promise` of the same with its image
 * (without the image if it cannot be drawn). A game only this phone can see
 * shares the home page.
 */
function shareCard(game, inviter = inviterOf(game)) {
  if (!game || !text.isOnline(game)) return {title: '来下一盘五子棋', path: '/pages/home/home'}
  const card = {title: text.shareTitle(game, inviter), path: invitePath(game.id)}
  const promise = cardImage(game, inviter).then(imageUrl => Object.assign({imageUrl}, card), () => card)
  return Object.assign({promise}, card)
}

/** 复制邀请: the sentence to paste in a chat, with the game's code (see text.inviteSentence). */
function inviteText(game, inviter = inviterOf(game)) {
  return text.inviteSentence(game, inviter)
}

module.exports = {CARD_WIDTH, CARD_HEIGHT, invitePath, inviterOf, cardModel, drawCard, shareCard, inviteText}
