// The theme switch in every page's header: auto (the system's
// prefers-color-scheme), light or dark, remembered in localStorage. The
// stylesheet does the rest from <html data-theme>.

import { $, show } from './dom.js';

const KEY = 'snip.theme';
const CHOICES = ['auto', 'light', 'dark'];

function stored() {
  try {
    const value = localStorage.getItem(KEY);
    return CHOICES.includes(value) ? value : 'auto';
  } catch {
    return 'auto';
  }
}

function apply(choice) {
  if (choice === 'auto') delete document.documentElement.dataset.theme;
  else document.documentElement.dataset.theme = choice;
}

export function initTheme() {
  const choice = stored();
  apply(choice);
  const select = $('#theme');
  if (!select) return;
  select.value = choice;
  show(select.closest('.theme'));
  select.addEventListener('change', () => {
    apply(select.value);
    try {
      if (select.value === 'auto') localStorage.removeItem(KEY);
      else localStorage.setItem(KEY, select.value);
    } catch {
      // Storage refused (private mode): the choice lasts for this page.
    }
  });
}
