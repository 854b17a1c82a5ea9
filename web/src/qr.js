// The share panel's QR code, loaded only when a paste has been created. It
// encodes the whole link, the #fragment with an encrypted paste's key
// included, and is drawn on a canvas: no markup is built from the link.

import qrcode from 'qrcode-generator';

/** Modules of quiet zone around the code, as the standard asks. */
const QUIET = 4;

/** Draws the QR code of `text` on `canvas`; returns the number of modules per side. */
export function drawQr(canvas, text) {
  // Type 0: the smallest version that holds the text; M recovers 15% damage.
  const qr = qrcode(0, 'M');
  qr.addData(text, 'Byte');
  qr.make();
  const count = qr.getModuleCount();
  const scale = Math.max(2, Math.floor(352 / (count + 2 * QUIET)));
  const size = (count + 2 * QUIET) * scale;
  canvas.width = size;
  canvas.height = size;
  const context = canvas.getContext('2d');
  // Always dark on white, whatever the theme: scanners expect it.
  context.fillStyle = '#ffffff';
  context.fillRect(0, 0, size, size);
  context.fillStyle = '#000000';
  for (let row = 0; row < count; row++) {
    for (let col = 0; col < count; col++) {
      if (qr.isDark(row, col)) context.fillRect((col + QUIET) * scale, (row + QUIET) * scale, scale, scale);
    }
  }
  canvas.dataset.modules = String(count);
  return count;
}
