// Syntax highlighting with highlight.js: the common languages are bundled
// (auto-detection runs over them), every other language is a lazily loaded
// chunk served by snip itself.

import hljs from 'highlight.js/lib/common';
import { CATALOGUE, LAZY } from 'snip:languages';

hljs.configure({ ignoreUnescapedHTML: true });

/** Above these sizes text is shown plain: highlighting would stall the page. */
export const MAX_HIGHLIGHT_BYTES = 512 * 1024;
export const MAX_DETECT_CHARS = 20000;

/** [id, display name, aliases] of every language, sorted by name. */
export const LANGUAGES = CATALOGUE;

const byAlias = new Map();
for (const [id, , aliases] of CATALOGUE) {
  byAlias.set(id, id);
  for (const alias of aliases) if (!byAlias.has(alias)) byAlias.set(alias, id);
}
byAlias.set('text', 'plaintext');
byAlias.set('txt', 'plaintext');
byAlias.set('plain', 'plaintext');

/** The language id for a name or alias ("rs", "Rust", "c++"), or null. */
export function resolveLanguage(name) {
  if (!name) return null;
  return byAlias.get(String(name).toLowerCase()) || null;
}

/** The language id a file name's extension suggests, or null. */
export function languageForFileName(name) {
  if (!name) return null;
  const base = name.toLowerCase();
  if (base === 'dockerfile') return 'dockerfile';
  if (base === 'makefile') return 'makefile';
  const dot = base.lastIndexOf('.');
  return dot > 0 ? resolveLanguage(base.slice(dot + 1)) : null;
}

export function displayName(id) {
  const entry = CATALOGUE.find(([lang]) => lang === id);
  return entry ? entry[1] : id;
}

/** Makes sure a language is registered, loading its chunk when needed. */
export async function ensureLanguage(id) {
  if (!id || hljs.getLanguage(id)) return Boolean(id);
  const load = LAZY[id];
  if (!load) return false;
  try {
    const module = await load();
    hljs.registerLanguage(id, module.default);
    return true;
  } catch {
    return false;
  }
}

/** Guesses the language of `text` among the bundled ones: {language, relevance}. */
export function detectLanguage(text) {
  const sample = text.length > MAX_DETECT_CHARS ? text.slice(0, MAX_DETECT_CHARS) : text;
  if (!sample.trim()) return { language: null, relevance: 0 };
  const result = hljs.highlightAuto(sample);
  return { language: result.language || null, relevance: result.relevance || 0 };
}

/**
 * Highlights `text` as `language` and returns one HTML string per line, each
 * with its spans balanced. highlight.js escapes the text itself, so the
 * strings contain only its own span tags around escaped text.
 */
export function highlightLines(text, language) {
  const html = hljs.highlight(text, { language, ignoreIllegals: true }).value;
  return splitLines(html);
}

/** Splits highlight.js output at newlines, closing and reopening open spans. */
export function splitLines(html) {
  const lines = [];
  const open = [];
  const token = /<span class="[^"<>]*">|<\/span>|\n/g;
  let line = '';
  let last = 0;
  let match;
  while ((match = token.exec(html))) {
    line += html.slice(last, match.index);
    last = token.lastIndex;
    const t = match[0];
    if (t === '\n') {
      lines.push(line + '</span>'.repeat(open.length));
      line = open.join('');
    } else if (t === '</span>') {
      open.pop();
      line += t;
    } else {
      open.push(t);
      line += t;
    }
  }
  lines.push(line + html.slice(last));
  return lines;
}
