// The files of a several-file paste, each under its own heading and anchor
// (#file-NAME), with its own line anchors (#file-NAME-L12): the server's
// page of a plain paste (templates/files.html), highlighted here in each
// file's language, and the same sections built here for the files of an
// opened envelope. Every file has its own Copy, and its own line selection
// (a click on a line number, shift-click for a range: #file-NAME-L12-L20),
// kept in the fragment after an encrypted paste's key.

import { $, $$, copyText, decodeText, downloadBytes, el, flash, formatBytes, show } from './dom.js';
import { t } from './i18n.js';
import { codeText, renderCode } from './code.js';
import { buildFragment, parseFragment } from './fragment.js';
import { displayName } from './highlight.js';

/** The most of one file a page shows, as the server's view (256 KiB, 10 000 lines). */
const MAX_SHOWN_BYTES = 256 * 1024;
const MAX_SHOWN_LINES = 10_000;

/** Highlights every file the server rendered into `container` and wires its copy and lines. */
export async function enhanceFiles(container) {
  for (const section of $$('.file', container)) {
    const pre = $('pre.code', section);
    if (!pre) continue;
    await renderCode(pre, codeText(pre), pre.dataset.lang || null, null, pre.dataset.prefix);
    const raw = section.dataset.raw;
    setupCopy(section, async () => {
      // The page may show only a file's head; its raw link has all of it.
      const response = raw ? await fetch(raw).catch(() => null) : null;
      return response?.ok ? response.text() : codeText(pre);
    });
  }
  wireLines(container);
}

/**
 * Shows the files of an opened envelope (`files`: name, size, lang, type
 * and bytes, in order) in `container`, as the server shows a plain
 * several-file paste, with a Download per file (the zip of them all is
 * the server's, which holds only ciphertext here).
 */
export async function showSealedFiles(container, files) {
  container.replaceChildren();
  container.classList.add('files');
  for (const file of files) {
    const id = `file-${file.name}`;
    const section = el('section', { class: 'file', id, 'aria-labelledby': `${id}-h` });
    const bar = el('div', { class: 'bar' });
    const heading = el('h2', { class: 'title', id: `${id}-h` });
    heading.append(el('a', { href: buildFragment({ ...parseFragment(), lines: null, deleteToken: null, target: encodeURIComponent(id) }) }, file.name));
    const actions = el('nav', { class: 'actions', 'aria-label': t('file-actions', { name: file.name }) });
    const download = el('button', { type: 'button', class: 'download-file' }, t('download'));
    download.addEventListener('click', () => downloadBytes(file.bytes, file.name, file.type || 'application/octet-stream'));
    actions.append(download);
    bar.append(heading, actions);
    const meta = el('p', { class: 'meta' });
    meta.append(el('span', {}, formatBytes(file.size)), el('span', { class: 'lang' }, file.lang ? displayName(file.lang) : ''));
    section.append(bar, meta);
    container.append(section);
    const text = isText(file.type) ? decodeText(file.bytes) : null;
    if (text === null) {
      section.append(el('p', { class: 'notice' }, t('sealed-file-not-shown', { type: file.type || t('binary'), size: formatBytes(file.size) })));
      continue;
    }
    const { shown, cut } = head(text);
    const prefix = `${id}-L`;
    const pre = el('pre', { class: 'code', dir: 'ltr', 'data-prefix': prefix, tabindex: '0' });
    if (file.lang) pre.dataset.lang = file.lang;
    section.append(pre);
    await renderCode(pre, shown, file.lang || null, file.name, prefix);
    if (cut) {
      section.append(el('p', { class: 'notice' }, t('sealed-file-truncated', { lines: MAX_SHOWN_LINES, size: formatBytes(MAX_SHOWN_BYTES) })));
    }
    const copy = el('button', { type: 'button', class: 'copy-file', hidden: true }, t('copy'));
    actions.prepend(copy);
    setupCopy(section, async () => text);
  }
  wireLines(container);
}

/** A file's Copy button (in its actions) copies what `text()` gives. */
function setupCopy(section, text) {
  const copy = $('.copy-file', section);
  if (!copy) return;
  show(copy);
  copy.addEventListener('click', async () => {
    flash(copy, (await copyText(await text())) ? t('copied') : t('copy-failed'));
  });
}

function isText(type) {
  const essence = (type || '').split(';')[0].trim().toLowerCase();
  return essence === '' || essence.startsWith('text/') || essence === 'application/json';
}

/** The part of `text` a page shows: at most MAX_SHOWN_LINES lines and MAX_SHOWN_BYTES bytes (about). */
function head(text) {
  let end = Math.min(text.length, MAX_SHOWN_BYTES);
  let lines = 0;
  for (let at = text.indexOf('\n'); at !== -1 && at < end; at = text.indexOf('\n', at + 1)) {
    lines += 1;
    if (lines === MAX_SHOWN_LINES) {
      end = at + 1;
      break;
    }
  }
  return { shown: text.slice(0, end), cut: end < text.length };
}

/** The file (section) and line range the fragment names, if any. */
function targetOf(container) {
  const { target } = parseFragment();
  if (!target) return null;
  let id;
  try {
    id = decodeURIComponent(target);
  } catch {
    return null;
  }
  // A name may itself end in "-L3": the shortest name that is a file wins.
  for (const pattern of [/^(file-.+?)-L(\d{1,7})(?:-L(\d{1,7}))?$/, /^(file-.+)-L(\d{1,7})(?:-L(\d{1,7}))?$/]) {
    const range = pattern.exec(id);
    const section = range && document.getElementById(range[1]);
    if (!section || !section.classList.contains('file') || !container.contains(section)) continue;
    const a = Number(range[2]);
    const b = range[3] ? Number(range[3]) : a;
    if (document.getElementById(`${range[1]}-L${Math.min(a, b)}`)) return { section, lines: [Math.min(a, b), Math.max(a, b)] };
  }
  const node = document.getElementById(id);
  return node && container.contains(node) ? { section: node, lines: null } : null;
}

/** Marks lines first..last of `section` (and no others in `container`). */
function selectLines(container, section, lines) {
  for (const line of $$('.line.hl', container)) line.classList.remove('hl');
  if (!lines) return null;
  let first = null;
  for (let n = lines[0]; n <= lines[1]; n++) {
    const line = document.getElementById(`${section.id}-L${n}`);
    if (!line || !section.contains(line)) break;
    line.classList.add('hl');
    first ??= line;
  }
  return first;
}

/**
 * Line selection in every file: a click on a line number selects it, a
 * shift-click the range from the last one clicked in that file; the
 * fragment (after any key) names the range, and names it again on load.
 */
function wireLines(container) {
  const anchors = new WeakMap();
  container.addEventListener('click', (event) => {
    const link = event.target.closest('a.ln');
    const section = link?.closest('.file');
    if (!link || !section || !container.contains(section)) return;
    event.preventDefault();
    const n = Number(link.textContent);
    const anchor = anchors.get(section);
    const lines = event.shiftKey && anchor !== undefined ? [Math.min(anchor, n), Math.max(anchor, n)] : [n, n];
    if (!event.shiftKey) anchors.set(section, n);
    const name = encodeURIComponent(section.id);
    const target = lines[0] === lines[1] ? `${name}-L${lines[0]}` : `${name}-L${lines[0]}-L${lines[1]}`;
    const fragment = { ...parseFragment(), lines: null, deleteToken: null, target };
    history.replaceState(history.state, '', buildFragment(fragment) || location.pathname);
    selectLines(container, section, lines);
  });
  const fromFragment = () => {
    const found = targetOf(container);
    if (!found) {
      selectLines(container, null, null);
      return;
    }
    if (found.lines) anchors.set(found.section, found.lines[0]);
    const first = selectLines(container, found.section, found.lines);
    (first || found.section).scrollIntoView({ block: first ? 'center' : 'start' });
  };
  fromFragment();
  window.addEventListener('hashchange', fromFragment);
}
