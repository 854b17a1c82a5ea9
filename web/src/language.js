// The language menu in every page's footer: a plain form posting to /lang
// (which works without this script). With it, choosing a language posts the
// form at once and reloads this very page: the reload keeps the fragment
// (an encrypted paste's key), which is never sent to the server.

import { $ } from './dom.js';

export function initLanguageMenu() {
  const form = $('#language-form');
  if (!form) return;
  const select = $('#language-select', form);
  $('#language-change', form).hidden = true;
  select.addEventListener('change', async () => {
    const body = new URLSearchParams(new FormData(form));
    try {
      await fetch(form.action, { method: 'POST', body, redirect: 'manual', credentials: 'same-origin' });
      location.reload();
    } catch {
      form.submit();
    }
  });
}
