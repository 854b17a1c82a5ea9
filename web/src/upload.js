// Sending a paste with progress and a way to cancel: fetch reports no upload
// progress, XMLHttpRequest does. Large uploads show a progress bar and a
// Cancel button beside the form's status line.

import { el, formatBytes } from './dom.js';
import { t } from './i18n.js';

/** Bodies at least this large show the progress bar and Cancel. */
export const SHOW_PROGRESS_BYTES = 256 * 1024;

/** Thrown when the reader cancelled the upload. */
export class Cancelled extends Error {
  constructor() {
    super(t('upload-cancelled'));
    this.name = 'Cancelled';
  }
}

/**
 * POSTs `body` to `url` with `headers`; resolves to {ok, status,
 * statusText, json}. A network failure rejects with a TypeError (as fetch
 * does); Cancel rejects with `Cancelled`. `size` (bytes) decides whether
 * the progress bar shows; it goes after `anchor`.
 */
export function upload(url, { body, headers, size, anchor }) {
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open('POST', url);
    for (const [name, value] of Object.entries(headers)) request.setRequestHeader(name, value);
    request.responseType = 'text';
    let panel = null;
    if (size >= SHOW_PROGRESS_BYTES && anchor) {
      const bar = el('progress', { id: 'upload-progress', max: String(size), value: '0', 'aria-label': t('upload-progress') });
      const label = el('span', { id: 'upload-sent' }, `0 of ${formatBytes(size)}`);
      const cancel = el('button', { type: 'button', id: 'upload-cancel' }, t('cancel'));
      cancel.addEventListener('click', () => request.abort());
      panel = el('p', { class: 'upload', id: 'upload' });
      panel.append(bar, label, cancel);
      anchor.after(panel);
      request.upload.addEventListener('progress', (event) => {
        bar.value = event.loaded;
        label.textContent = t('progress-of', { done: formatBytes(event.loaded), total: formatBytes(event.total || size) });
      });
    }
    const done = () => panel?.remove();
    request.addEventListener('load', () => {
      done();
      let json = null;
      try {
        json = JSON.parse(request.responseText);
      } catch {
        json = null;
      }
      resolve({ ok: request.status >= 200 && request.status < 300, status: request.status, statusText: request.statusText, json });
    });
    request.addEventListener('error', () => {
      done();
      reject(new TypeError('network error'));
    });
    request.addEventListener('abort', () => {
      done();
      reject(new Cancelled());
    });
    request.send(body);
  });
}
