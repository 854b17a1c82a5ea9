// Code blocks: lines with numbered anchors, highlighting, and line selection
// (#L12, shift-click for #L12-L20), the same markup the server renders.

import { $$, escapeHtml, trustedHtml } from './dom.js';
import { buildFragment, parseFragment } from './fragment.js';
import {
  detectLanguage,
  ensureLanguage,
  highlightLines,
  languageForFileName,
  MAX_DETECT_CHARS,
  MAX_HIGHLIGHT_BYTES,
  resolveLanguage,
} from './highlight.js';
import { looksLikeLog } from './logtext.js';

/** Detection below this relevance is a guess not worth showing. */
const MIN_RELEVANCE = 5;

/** Splits text into lines like Rust's str::lines (no empty last line, CRLF stripped). */
export function textLines(text) {
  const body = text.endsWith('\n') ? text.slice(0, -1) : text;
  if (body === '' && text === '') return [];
  return body.split('\n').map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line));
}

/** The text of a server-rendered code block. */
export function codeText(pre) {
  return $$('.lc', pre)
    .map((node) => node.textContent)
    .join('\n');
}

/**
 * The language to highlight `text` as: `lang` (a name or alias), else the
 * one `fileName`'s extension suggests, else plain text for a log, else the
 * detected one if detection is sure enough. Returns {language, detected}.
 */
export function chooseLanguage(text, lang, fileName) {
  const language = resolveLanguage(lang) || languageForFileName(fileName);
  if (language) return { language, detected: false };
  if (looksLikeLog(text)) return { language: 'plaintext', detected: true };
  if (text.length <= MAX_DETECT_CHARS * 5) {
    const guess = detectLanguage(text);
    if (guess.relevance >= MIN_RELEVANCE) return { language: guess.language, detected: true };
  }
  return { language: null, detected: false };
}

/**
 * Renders `text` into `pre` (a `pre.code`), highlighted as `lang` or, when
 * none is given, as the detected language. Its lines' anchors are
 * `linePrefix` and the number (`L12`; a several-file paste's `file-NAME-L12`).
 * Returns the language used (or null).
 */
export async function renderCode(pre, text, lang, fileName, linePrefix = 'L') {
  const lines = textLines(text);
  const joined = lines.join('\n');
  const { language, detected } = chooseLanguage(joined, lang, fileName);
  let htmlLines = null;
  if (language && language !== 'plaintext' && joined.length <= MAX_HIGHLIGHT_BYTES && (await ensureLanguage(language))) {
    try {
      htmlLines = highlightLines(joined, language);
    } catch {
      htmlLines = null;
    }
  }
  if (!htmlLines || htmlLines.length !== lines.length) {
    htmlLines = lines.map(escapeHtml);
  }
  const prefix = escapeHtml(linePrefix);
  let markup = '';
  for (let i = 0; i < htmlLines.length; i++) {
    const n = i + 1;
    markup += `<span class="line" id="${prefix}${n}"><a class="ln" href="#${prefix}${n}">${n}</a><span class="lc">${htmlLines[i]}</span>\n</span>`;
  }
  let code = pre.querySelector('code');
  if (!code) {
    code = document.createElement('code');
    pre.append(code);
  }
  code.innerHTML = trustedHtml(markup);
  setGutter(pre, lines.length);
  pre.classList.add('hljs');
  if (language) pre.dataset.language = language;
  return { language, detected };
}

/**
 * Sizes the line-number gutter for `count` lines, so that numbers never
 * shift the text as they gain a digit (at line 10, 100, 1000…).
 */
export function setGutter(pre, count) {
  const digits = Math.max(3, String(count).length);
  pre.style.setProperty('--ln-w', `calc(${digits}ch + 1.4em + 1px)`);
}

/** Per code block: a function that renders lines not in the page yet (a long paste's rest). */
const revealers = new WeakMap();

/** `reveal(first, last)` puts lines first..last of `pre` into the page when they are asked for. */
export function setLineRevealer(pre, reveal) {
  revealers.set(pre, reveal);
}

/** Marks lines first..last and optionally scrolls the first into view. */
export function selectLines(pre, range, scroll) {
  for (const node of $$('.line.hl', pre)) node.classList.remove('hl');
  if (!range) return;
  const [first, last] = range;
  revealers.get(pre)?.(first, last);
  for (let n = first; n <= last; n++) {
    const line = pre.querySelector(`#L${n}`);
    if (!line) break;
    line.classList.add('hl');
  }
  const target = pre.querySelector(`#L${first}`);
  if (scroll && target) target.scrollIntoView({ block: first === last ? 'center' : 'start' });
}

/**
 * Clicks on line numbers select lines and write them into the fragment
 * (keeping the key of an encrypted paste); the fragment's lines are
 * selected on load and when it changes.
 */
export function enableLineLinks(pre) {
  let anchor = null;
  pre.addEventListener('click', (event) => {
    const link = event.target.closest('a.ln');
    if (!link || !pre.contains(link)) return;
    event.preventDefault();
    const n = Number(link.textContent);
    const range = event.shiftKey && anchor !== null ? [Math.min(anchor, n), Math.max(anchor, n)] : [n, n];
    if (!event.shiftKey) anchor = n;
    const fragment = parseFragment();
    fragment.lines = range;
    fragment.deleteToken = null;
    history.replaceState(history.state, '', buildFragment(fragment) || location.pathname + location.search);
    selectLines(pre, range, false);
  });
  const fromFragment = (scroll) => {
    const { lines } = parseFragment();
    if (lines) anchor = lines[0];
    selectLines(pre, lines, scroll);
  };
  window.addEventListener('hashchange', () => fromFragment(true));
  fromFragment(true);
}
