// Sharing a paste: its link (with an encrypted paste's key), a Copy button,
// the link's QR code (its module is loaded only when shown) and a summary of
// who can read it for how long. The new-paste page's share panel and the
// paste page's Share dialog are both filled here.

import { $, copyText, el, flash, localTime, show } from './dom.js';
import { buildFragment, parseFragment } from './fragment.js';
import { t } from './i18n.js';

/** One line each: when it expires, whether it burns, is encrypted, and who can read it. */
export function summary(json, encrypted, withPassword, visibility = 'unlisted') {
  const lines = [];
  if (json.expires_at) {
    const { absolute, relative } = localTime(new Date(json.expires_at));
    lines.push(relative ? t('share-expires-relative', { relative, absolute }) : t('share-expires', { absolute }));
  } else {
    lines.push(t('share-never-expires'));
  }
  lines.push(json.burn ? t('share-burns') : t('share-stays'));
  if (encrypted) {
    lines.push(withPassword ? t('share-encrypted-password') : t('share-encrypted'));
  } else {
    lines.push(t('share-not-encrypted'));
  }
  lines.push(
    {
      team: t('share-team'),
      me: t('share-me'),
    }[visibility] ?? t('share-unlisted'),
  );
  return lines;
}

/**
 * Fills a share panel's parts ({url, copy, list, qr}: the link's field,
 * its Copy button, the summary's list and the QR code's canvas).
 */
export function fillShare({ url, copy, list, qr }, link, lines) {
  url.value = link;
  list.replaceChildren(...lines.map((line) => el('li', {}, line)));
  copy.onclick = async () => flash(copy, (await copyText(link)) ? t('copied') : t('copy-failed'));
  drawQrOf(qr, link);
}

/** The link's QR code, from a module fetched now (most pages never need it). */
async function drawQrOf(canvas, link) {
  try {
    const { drawQr } = await import('./qr.js');
    drawQr(canvas, link);
    show(canvas);
  } catch {
    // Too long for a QR code, or the module did not load: the link is still there.
    show(canvas, false);
  }
}

/**
 * The paste page's Share dialog for `link`, summarised by `lines`; Esc,
 * Close or a click beside it closes it, and focus returns to `opener`.
 */
export function openShareDialog(link, lines, opener) {
  $('#share-dialog')?.remove();
  const url = el('input', { id: 'share-url', dir: 'ltr', readonly: true });
  const copy = el('button', { type: 'button', class: 'primary', id: 'share-copy' }, t('copy'));
  const row = el('div', { class: 'url-row' });
  row.append(el('label', { for: 'share-url', class: 'sr-only' }, t('link')), url, copy);
  const list = el('ul', { class: 'summary', id: 'share-summary' });
  const qr = el('canvas', { id: 'share-qr', role: 'img', 'aria-label': t('qr-code'), hidden: true });
  const share = el('div', { class: 'share' });
  share.append(list, qr);
  const close = el('button', { type: 'button', id: 'share-close' }, t('close'));
  const panel = el('div', { class: 'panel share-panel' });
  panel.append(el('h2', { id: 'share-title' }, t('share-title')), row, share, close);
  const overlay = el('div', { class: 'overlay', id: 'share-dialog', role: 'dialog', 'aria-modal': 'true', 'aria-labelledby': 'share-title' });
  overlay.append(panel);
  const done = () => {
    overlay.remove();
    document.removeEventListener('keydown', onKey, true);
    opener?.focus();
  };
  const onKey = (event) => {
    if (event.key === 'Escape') {
      event.preventDefault();
      event.stopPropagation();
      done();
    }
  };
  document.addEventListener('keydown', onKey, true);
  overlay.addEventListener('click', (event) => {
    if (event.target === overlay) done();
  });
  close.addEventListener('click', done);
  document.body.append(overlay);
  fillShare({ url, copy, list, qr }, link, lines);
  url.focus();
  url.select();
}

/**
 * The paste page's Share button (and its shortcut, s): the page's own link
 * with the key this browser has (and the selected lines), its QR code and
 * the summary the new-paste page shows. Not for burn pastes: their link
 * opens once.
 */
export function setupShare(article) {
  const button = $('#share');
  if (!button || article.hasAttribute('data-burn')) return;
  show(button);
  button.addEventListener('click', () => {
    const { key, lines } = parseFragment();
    const link = `${location.origin}${location.pathname}${buildFragment({ key, lines })}`;
    const encrypted = article.hasAttribute('data-encrypted');
    const withPassword = Number(article.dataset.proofIterations) > 0;
    const json = { expires_at: article.dataset.expires || null, burn: false };
    openShareDialog(link, summary(json, encrypted, withPassword, article.dataset.visibility || 'unlisted'), button);
  });
}
