// The URL fragment: never sent to the server, so it carries what only the
// link holder may know. Items are joined by "&":
//   KEY            the 43-character encryption key (encrypted pastes)
//   L12 / L12-L20  the selected lines
//   delete=TOKEN   a delete link
//   file-NAME…     a file of a several-file paste, or its lines
//                  (file-NAME-L12, file-NAME-L12-L20; NAME percent-encoded):
//                  always last, since a name may hold "&"
// e.g. /k7m3q9xw2hd4p#3q2…Zk&L4-L9, /k7m3q9xw2hd4p#3q2…Zk&file-main.rs-L4-L9

const LINES = /^L(\d{1,7})(?:-L(\d{1,7}))?$/;

export function parseFragment(hash = location.hash) {
  const result = { key: null, lines: null, deleteToken: null, target: null };
  let text = hash.replace(/^#/, '');
  const file = text.startsWith('file-') ? 0 : text.indexOf('&file-');
  if (file === 0) {
    result.target = text;
    text = '';
  } else if (file > 0) {
    result.target = text.slice(file + 1);
    text = text.slice(0, file);
  }
  for (const item of text.split('&')) {
    if (!item) continue;
    const lines = LINES.exec(item);
    if (lines) {
      const a = Number(lines[1]);
      const b = lines[2] ? Number(lines[2]) : a;
      result.lines = [Math.min(a, b), Math.max(a, b)];
    } else if (item.startsWith('delete=')) {
      result.deleteToken = decodeURIComponent(item.slice('delete='.length));
    } else if (/^[A-Za-z0-9_-]{20,}$/.test(item)) {
      result.key = item;
    }
  }
  return result;
}

export function buildFragment({ key, lines, deleteToken, target }) {
  const items = [];
  if (key) items.push(key);
  if (lines) items.push(lines[0] === lines[1] ? `L${lines[0]}` : `L${lines[0]}-L${lines[1]}`);
  if (deleteToken) items.push(`delete=${encodeURIComponent(deleteToken)}`);
  if (target) items.push(target);
  return items.length ? `#${items.join('&')}` : '';
}
