// The embed view (templates/embed.html), which other sites frame: each
// block's server-rendered lines highlighted in place, keeping their numbers
// (a range of lines starts past 1). Nothing else: no keys, no fragment, no
// theme switch (the URL's ?theme= decides).

import { chooseLanguage, setGutter } from './code.js';
import { $$, trustedHtml } from './dom.js';
import { ensureLanguage, highlightLines, MAX_HIGHLIGHT_BYTES } from './highlight.js';

/** Highlights one block; leaves it plain when no language fits. */
async function highlightBlock(pre) {
  const spans = $$('.lc', pre);
  const text = spans.map((span) => span.textContent).join('\n');
  setGutter(pre, Number(pre.dataset.first || 1) + spans.length - 1);
  const { language } = chooseLanguage(text, pre.dataset.lang, pre.dataset.name);
  if (!language || language === 'plaintext' || text.length > MAX_HIGHLIGHT_BYTES) return;
  if (!(await ensureLanguage(language))) return;
  let lines;
  try {
    lines = highlightLines(text, language);
  } catch {
    return;
  }
  if (lines.length !== spans.length) return;
  spans.forEach((span, i) => {
    span.innerHTML = trustedHtml(lines[i]);
  });
  pre.classList.add('hljs');
  pre.dataset.language = language;
}

export async function initEmbed() {
  for (const pre of $$('pre.code')) await highlightBlock(pre);
}
