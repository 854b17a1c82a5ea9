// Rendered Markdown, loaded only for Markdown pastes. marked turns the text
// into HTML, with any raw HTML in the paste shown as text (parsing it, even
// inertly, would make the browser report every blocked handler and style
// as a CSP violation), and DOMPurify keeps only plain document markup: no
// script, no event handlers, no style, no forms or frames, no javascript:
// URLs, and no element ids that could shadow the page's own. Images from other origins
// are never fetched: each becomes a link the reader may choose to open
// (the page's CSP would refuse to load them inline anyway). Task lists keep
// their boxes (disabled checkboxes, nothing else of a form), and fenced code
// naming its language is highlighted.

import DOMPurify from 'dompurify';
import { Marked } from 'marked';
import { el, escapeHtml, trustedHtml } from './dom.js';
import { t } from './i18n.js';
import { ensureLanguage, highlightLines, resolveLanguage } from './highlight.js';

const markdown = new Marked({
  async: false,
  gfm: true,
  renderer: {
    html({ text, block }) {
      return block ? `<p>${escapeHtml(text.trim())}</p>\n` : escapeHtml(text);
    },
  },
});

const ALLOWED_TAGS = [
  'a', 'abbr', 'b', 'blockquote', 'br', 'code', 'dd', 'del', 'details', 'div', 'dl', 'dt', 'em',
  'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'hr', 'i', 'img', 'ins', 'kbd', 'li', 'mark', 'ol', 'p', 'pre',
  'q', 's', 'samp', 'small', 'span', 'strong', 'sub', 'summary', 'sup', 'table', 'tbody', 'td',
  'tfoot', 'th', 'thead', 'tr', 'u', 'ul', 'input',
];
const ALLOWED_ATTR = ['href', 'src', 'alt', 'title', 'align', 'colspan', 'rowspan', 'start', 'open', 'type', 'checked', 'disabled', 'class'];
/** The only classes kept: a fenced block's language (marked writes it; raw HTML is shown as text). */
const LANGUAGE_CLASS = /^language-[\w+#.-]{1,40}$/;
/** Link targets a reader may follow: the web, mail, and places on this page or site. */
const ALLOWED_URI_REGEXP = /^(?:https?:|mailto:|#|\/(?!\/)|\.{0,2}\/|[^:/?#]+(?:[/?#]|$))/i;

/** Whether an image may load: only from this server, over its own scheme. */
function local(src) {
  try {
    const url = new URL(src, location.href);
    return url.origin === location.origin && url.protocol === location.protocol;
  } catch {
    return false;
  }
}

/** A stand-in for an image that is not fetched: a link to it, if it is on the web. */
function placeholder(img) {
  const src = img.getAttribute('src') || '';
  const alt = img.getAttribute('alt') || 'image';
  let url = null;
  try {
    url = new URL(src, location.href);
  } catch {
    url = null;
  }
  if (url && (url.protocol === 'https:' || url.protocol === 'http:')) {
    const link = el('a', { class: 'remote-image', href: url.href, target: '_blank', rel: 'noopener noreferrer nofollow' });
    link.textContent = t('remote-image', { host: url.host, alt });
    return link;
  }
  return el('span', { class: 'remote-image' }, t('image-not-shown', { alt }));
}

/** A sanitised fragment of the rendered `text`, ready to insert. */
export function renderMarkdown(text) {
  const html = markdown.parse(text);
  const fragment = DOMPurify.sanitize(html, {
    ALLOWED_TAGS,
    ALLOWED_ATTR,
    ALLOWED_URI_REGEXP,
    ALLOW_DATA_ATTR: false,
    RETURN_DOM_FRAGMENT: true,
  });
  for (const img of fragment.querySelectorAll('img')) {
    if (!local(img.getAttribute('src') || '')) img.replaceWith(placeholder(img));
  }
  for (const link of fragment.querySelectorAll('a[href]')) {
    if (!link.classList.contains('remote-image')) link.setAttribute('rel', 'noopener noreferrer nofollow');
  }
  for (const input of fragment.querySelectorAll('input')) {
    if (input.getAttribute('type') !== 'checkbox' || !input.closest('li')) {
      input.remove();
      continue;
    }
    input.setAttribute('disabled', '');
    input.setAttribute('aria-label', input.hasAttribute('checked') ? t('task-done') : t('task-not-done'));
  }
  for (const node of fragment.querySelectorAll('[class]')) {
    const keep = node.tagName === 'CODE' && node.parentElement?.tagName === 'PRE' && LANGUAGE_CLASS.test(node.className);
    if (!keep && !node.classList.contains('remote-image')) node.removeAttribute('class');
  }
  const imported = document.importNode(fragment, true);
  highlightFences(imported);
  return imported;
}

/** Highlights fenced code that names a known language (in the background). */
async function highlightFences(root) {
  // Both lists are taken now: the fragment is emptied into the page soon.
  const blocks = Array.from(root.querySelectorAll('pre'));
  for (const code of Array.from(root.querySelectorAll('pre > code[class^="language-"]'))) {
    const language = resolveLanguage(code.className.slice('language-'.length));
    if (!language || !(await ensureLanguage(language))) continue;
    try {
      code.innerHTML = trustedHtml(highlightLines(code.textContent, language).join('\n'));
      code.classList.add('hljs');
    } catch {
      // Left as plain text.
    }
  }
  for (const pre of blocks) pre.dataset.highlighted = 'done';
}
