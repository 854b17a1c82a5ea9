// Long pastes whole: the lines past the server-rendered first screen (or
// past the first lines of a long decrypted paste) are held as text in
// blocks and put into the page only while they are near the viewport, so a
// paste of any size the server accepts can be read to its last line while
// the page keeps a bounded number of elements. Line links reach every line
// (selectLines asks for the block through setLineRevealer), and a find box
// (Ctrl+F while it exists) searches the whole text.

import { $, el, escapeHtml, formatBytes, say, trustedHtml } from './dom.js';
import { t } from './i18n.js';
import { parseFragment } from './fragment.js';
import { selectLines, setGutter, setLineRevealer, textLines } from './code.js';
import { highlightLines } from './highlight.js';

/** Lines per block: the unit that is put into or taken out of the page. */
export const BLOCK_LINES = 500;

/** The most lines rendered at once when a long text is shown from memory. */
export const HEAD_LINES = 10_000;

/** How far beyond the viewport blocks are kept in the page. */
const MARGIN = '1500px 0px';

/** The most matches the find box counts. */
const MAX_MATCHES = 100_000;

/** One line of markup, as the server renders it (code.js's renderCode too). */
function lineMarkup(n, html) {
  return `<span class="line" id="L${n}"><a class="ln" href="#L${n}">${n}</a><span class="lc">${html}</span>\n</span>`;
}

/**
 * The rest of a code block: lines from `firstLine` on, appended as text
 * arrives, rendered block by block while near the viewport.
 */
export class LongText {
  constructor(pre, firstLine, midLine = null) {
    this.pre = pre;
    /** The element of the last line shown, when the text starts by continuing it. */
    this.midLine = midLine;
    this.code = pre.querySelector('code');
    this.firstLine = firstLine;
    /** Text of every block (lines joined by \n), and its element. */
    this.blocks = [];
    this.pending = [];
    this.partial = '';
    this.lineHeight = pre.querySelector('.line')?.getBoundingClientRect().height || 19.5;
    this.language = pre.dataset.language && pre.dataset.language !== 'plaintext' ? pre.dataset.language : null;
    this.observer = new IntersectionObserver((entries) => this.onVisible(entries), { rootMargin: MARGIN });
    setLineRevealer(pre, (first) => this.reveal(first));
    pre.dataset.long = 'loading';
  }

  /** Appends a piece of text (any split, no \r\n handling needed by the caller). */
  add(chunk) {
    const text = this.partial + chunk;
    const end = text.lastIndexOf('\n');
    if (end < 0) {
      this.partial = text;
      return;
    }
    this.partial = text.slice(end + 1);
    const lines = text.slice(0, end).split('\n');
    if (this.midLine) {
      // The rest of the line the page ends in the middle of.
      const first = lines.shift();
      this.midLine.append(first.endsWith('\r') ? first.slice(0, -1) : first);
      this.midLine = null;
    }
    for (const line of lines) {
      this.pending.push(line.endsWith('\r') ? line.slice(0, -1) : line);
      if (this.pending.length === BLOCK_LINES) this.flush();
    }
  }

  /** The text has all arrived. */
  finish() {
    if (this.midLine) {
      this.midLine.append(this.partial);
      this.partial = '';
    }
    if (this.partial) this.pending.push(this.partial.endsWith('\r') ? this.partial.slice(0, -1) : this.partial);
    this.partial = '';
    if (this.pending.length) this.flush();
    this.pre.dataset.long = 'done';
    setGutter(this.pre, this.lastLine());
  }

  /** The last line's number. */
  lastLine() {
    if (!this.blocks.length) return this.firstLine - 1;
    const last = this.blocks[this.blocks.length - 1];
    return last.first + last.count - 1;
  }

  flush() {
    const first = this.lastLine() + 1;
    const count = this.pending.length;
    const node = el('span', { class: 'block', 'data-first': String(first) });
    node.style.height = `${count * this.lineHeight}px`;
    this.blocks.push({ first, count, text: this.pending.join('\n'), node, shown: false });
    this.pending = [];
    this.code.append(node);
    this.observer.observe(node);
    setGutter(this.pre, first + count - 1);
  }

  blockOf(n) {
    const index = Math.floor((n - this.firstLine) / BLOCK_LINES);
    return index >= 0 && index < this.blocks.length ? this.blocks[index] : null;
  }

  onVisible(entries) {
    for (const entry of entries) {
      const block = this.blocks[Math.floor((Number(entry.target.dataset.first) - this.firstLine) / BLOCK_LINES)];
      if (!block) continue;
      if (entry.isIntersecting) this.fill(block);
      else this.empty(block);
    }
  }

  /** Puts a block's lines into the page. */
  fill(block) {
    if (block.shown) return;
    block.shown = true;
    const lines = block.text.split('\n');
    let html = null;
    if (this.language) {
      try {
        html = highlightLines(block.text, this.language);
      } catch {
        html = null;
      }
    }
    if (!html || html.length !== lines.length) html = lines.map(escapeHtml);
    let markup = '';
    for (let i = 0; i < lines.length; i++) markup += lineMarkup(block.first + i, html[i]);
    block.node.style.height = '';
    block.node.innerHTML = trustedHtml(markup);
    // The selected lines (#L…) that fall in this block.
    const range = parseFragment().lines;
    if (range) {
      const from = Math.max(range[0], block.first);
      const to = Math.min(range[1], block.first + block.count - 1);
      for (let n = from; n <= to; n++) block.node.querySelector(`#L${n}`)?.classList.add('hl');
    }
  }

  /** Takes a block's lines out of the page, keeping its height. */
  empty(block) {
    if (!block.shown) return;
    const height = block.node.getBoundingClientRect().height;
    // A selection or focus inside stays put.
    if (block.node.contains(document.activeElement) || block.node.contains(getSelection()?.anchorNode)) return;
    block.shown = false;
    block.node.replaceChildren();
    block.node.style.height = `${height}px`;
  }

  /** Makes sure line `n` is in the page (a line link or a find match asks). */
  reveal(n) {
    const block = this.blockOf(n);
    if (block) this.fill(block);
  }

  /** Calls `each(lineNumber, text)` for every line held, in order. */
  forEachLine(each) {
    for (const block of this.blocks) {
      const lines = block.text.split('\n');
      for (let i = 0; i < lines.length; i++) if (each(block.first + i, lines[i]) === false) return;
    }
  }
}

/**
 * A find box over the whole text (server-rendered lines and the rest):
 * Enter and the arrows go from match to match; Ctrl+F focuses it (a second
 * Ctrl+F, inside it, is the browser's own).
 */
export function setupFind(pre, long) {
  const input = el('input', { type: 'search', id: 'find', placeholder: t('find-placeholder'), autocomplete: 'off', 'aria-label': t('find-label') });
  const previous = el('button', { type: 'button', id: 'find-previous', 'aria-label': t('find-previous') }, '↑');
  const next = el('button', { type: 'button', id: 'find-next', 'aria-label': t('find-next') }, '↓');
  const count = el('output', { id: 'find-count', 'aria-live': 'polite' });
  const form = el('form', { class: 'find', role: 'search', id: 'find-form' });
  form.append(input, previous, next, count);
  pre.before(form);
  let query = '';
  let matches = [];
  let current = -1;
  const search = () => {
    query = input.value.toLowerCase();
    matches = [];
    current = -1;
    if (!query) {
      count.textContent = '';
      return;
    }
    const look = (n, text) => {
      if (text.toLowerCase().includes(query)) matches.push(n);
      return matches.length < MAX_MATCHES;
    };
    for (const node of pre.querySelectorAll(':scope > code > .line .lc')) {
      if (look(Number(node.parentElement.id.slice(1)), node.textContent) === false) break;
    }
    if (matches.length < MAX_MATCHES) long.forEachLine(look);
    count.textContent = matches.length ? '' : t('find-none');
  };
  const go = (step) => {
    if (input.value.toLowerCase() !== query) search();
    if (!matches.length) return;
    current = (current + step + matches.length) % matches.length;
    const n = matches[current];
    count.textContent = t(matches.length >= MAX_MATCHES ? 'find-position-more' : 'find-position', { n: current + 1, count: matches.length });
    selectLines(pre, [n, n], true);
    const line = pre.querySelector(`#L${n} .lc`);
    if (line) markMatch(line, query);
  };
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    go(1);
  });
  input.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && event.shiftKey) {
      event.preventDefault();
      go(-1);
    }
  });
  input.addEventListener('input', () => search());
  previous.addEventListener('click', () => go(-1));
  next.addEventListener('click', () => go(1));
  document.addEventListener('keydown', (event) => {
    if ((event.ctrlKey || event.metaKey) && !event.altKey && event.key.toLowerCase() === 'f' && document.activeElement !== input) {
      event.preventDefault();
      input.focus();
      input.select();
    }
  });
  return form;
}

/** Selects the first occurrence of `query` (lower case) in a line's text, so it shows. */
function markMatch(node, query) {
  const text = node.textContent;
  const at = text.toLowerCase().indexOf(query);
  if (at < 0) return;
  // Walk the text nodes (highlighting splits the text into spans).
  const walker = document.createTreeWalker(node, NodeFilter.SHOW_TEXT);
  let offset = 0;
  let start = null;
  const range = document.createRange();
  for (let t = walker.nextNode(); t; t = walker.nextNode()) {
    const length = t.data.length;
    if (!start && at < offset + length) {
      range.setStart(t, at - offset);
      start = t;
    }
    if (start && at + query.length <= offset + length) {
      range.setEnd(t, at + query.length - offset);
      const selection = getSelection();
      selection.removeAllRanges();
      selection.addRange(range);
      return;
    }
    offset += length;
  }
}

/**
 * A server-rendered view cut short (`#truncated` says at which byte the rest
 * starts): fetches the rest from `rawUrl` with a Range request and streams
 * it into the page.
 */
export async function loadRest(pre, notice, rawUrl) {
  const offset = Number(notice.dataset.next);
  const shownLines = pre.querySelectorAll(':scope > code > .line').length;
  if (!Number.isInteger(offset) || offset <= 0) return;
  const midLine = notice.hasAttribute('data-mid-line') ? pre.querySelector(':scope > code > .line:last-child .lc') : null;
  const long = new LongText(pre, shownLines + 1, midLine);
  setupFind(pre, long);
  const status = el('span', { role: 'status' });
  notice.replaceChildren(status);
  say(status, t('rest-loading'));
  let response;
  try {
    response = await fetch(rawUrl, { headers: { range: `bytes=${offset}-` } });
  } catch {
    say(status, t('rest-no-answer', { url: rawUrl }));
    return;
  }
  if (!response.ok || !response.body) {
    say(status, t('rest-refused', { status: String(response.status), url: rawUrl }));
    return;
  }
  // 200 instead of 206: the server sent everything, skip what the page shows.
  let skip = response.status === 206 ? 0 : offset;
  const total = Number(pre.closest('[data-size]')?.dataset.size) || 0;
  let received = offset;
  const decoder = new TextDecoder();
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    let bytes = value;
    if (skip) {
      const cut = Math.min(skip, bytes.length);
      bytes = bytes.subarray(cut);
      skip -= cut;
    }
    received += bytes.length;
    long.add(decoder.decode(bytes, { stream: true }));
    if (total) say(status, t('rest-progress', { done: formatBytes(received), total: formatBytes(total) }));
  }
  long.add(decoder.decode());
  long.finish();
  notice.hidden = true;
  afterLoad(pre);
}

/** Once every line is held: a link to a line past the first screen goes there. */
function afterLoad(pre) {
  const { lines } = parseFragment();
  if (lines) selectLines(pre, lines, true);
}

/**
 * Renders a long text held in memory (a decrypted or revealed paste): the
 * first HEAD_LINES lines by `render` (highlighted), the rest block by block.
 */
export async function renderLong(pre, text, render) {
  let cut = -1;
  for (let i = 0, at = 0; i < HEAD_LINES; i++) {
    at = text.indexOf('\n', at);
    if (at < 0) break;
    cut = at;
    at += 1;
  }
  const rest = cut < 0 ? '' : text.slice(cut + 1);
  if (!rest) return render(text);
  const result = await render(text.slice(0, cut + 1));
  const long = new LongText(pre, textLines(text.slice(0, cut + 1)).length + 1);
  setupFind(pre, long);
  long.add(rest);
  long.finish();
  afterLoad(pre);
  return result;
}
