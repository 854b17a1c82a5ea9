// The paste page's comforts: the soft-wrap toggle (remembered) and keyboard
// shortcuts like wastebin's, with a help overlay on "?". Keys typed into a
// field (the password prompt) are never taken.

import { $, copyText, el, say, show } from './dom.js';
import { t } from './i18n.js';

const WRAP_KEY = 'snip.wrap';

/** The shortcuts (and their messages), for the handler and the help overlay alike. */
const KEYS = [
  ['r', 'shortcut-raw'],
  ['c', 'shortcut-copy'],
  ['l', 'shortcut-link'],
  ['s', 'shortcut-share'],
  ['n', 'shortcut-new'],
  ['w', 'shortcut-wrap'],
  ['?', 'shortcut-help'],
];

function wrapWanted() {
  try {
    return localStorage.getItem(WRAP_KEY) === '1';
  } catch {
    return false;
  }
}

/** Wires the Wrap button to the current code block (`#code`), which may be replaced later. */
export function setupWrap() {
  const button = $('#wrap');
  if (!button) return () => {};
  const apply = (on) => {
    const pre = $('#code');
    show(button, Boolean(pre));
    if (!pre) return;
    pre.classList.toggle('wrap', on);
    button.setAttribute('aria-pressed', String(on));
  };
  button.addEventListener('click', () => {
    const on = button.getAttribute('aria-pressed') !== 'true';
    apply(on);
    try {
      localStorage.setItem(WRAP_KEY, on ? '1' : '0');
    } catch {
      // Storage refused: the choice lasts for this page.
    }
  });
  const refresh = () => apply(wrapWanted());
  refresh();
  return refresh;
}

function typing(target) {
  return Boolean(target?.closest?.('input, textarea, select, [contenteditable]:not([contenteditable=false])'));
}

/** Clicks a visible button or link of the page; false when there is none. */
function press(selector) {
  const node = $(selector);
  if (!node || node.hidden) return false;
  node.click();
  return true;
}

function toggleHelp() {
  const open = $('#shortcuts');
  if (open) {
    open.remove();
    return;
  }
  const list = el('dl');
  for (const [key, what] of KEYS) {
    const term = el('dt');
    term.append(el('kbd', {}, key));
    list.append(term, el('dd', {}, t(what)));
  }
  const close = el('button', { type: 'button' }, t('close'));
  const panel = el('div', { class: 'panel' });
  panel.append(el('h2', { id: 'shortcuts-title' }, t('shortcuts-title')), list, close);
  const overlay = el('div', { class: 'overlay', id: 'shortcuts', role: 'dialog', 'aria-modal': 'true', 'aria-labelledby': 'shortcuts-title' });
  overlay.append(panel);
  overlay.addEventListener('click', (event) => {
    if (event.target === overlay) overlay.remove();
  });
  close.addEventListener('click', () => overlay.remove());
  document.body.append(overlay);
  close.focus();
}

/** Keyboard shortcuts of the paste page; `status` receives their feedback. */
export function setupShortcuts(status) {
  document.addEventListener('keydown', (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey || event.defaultPrevented || typing(event.target)) return;
    if (event.key === 'Escape') {
      $('#shortcuts')?.remove();
      return;
    }
    if ($('#shortcuts') && event.key !== '?') return;
    let handled = true;
    switch (event.key) {
      case 'r':
        handled = press('.actions a[href^="/raw/"]');
        break;
      case 'c':
        handled = press('#copy');
        break;
      case 'l':
        // The whole address: an encrypted paste's key is in the fragment.
        copyText(location.href).then((ok) => say(status, ok ? t('link-copied') : t('link-not-copied'), ok ? 'ok' : 'error'));
        break;
      case 's':
        handled = press('#share');
        break;
      case 'n':
        location.href = '/new';
        break;
      case 'w':
        handled = press('#wrap');
        break;
      case '?':
        toggleHelp();
        break;
      default:
        handled = false;
    }
    if (handled) event.preventDefault();
  });
}
