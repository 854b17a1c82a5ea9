// snip's web GUI entry point. Every page works without it; this module
// enhances the page named by <body data-page>.

import { initEmbed } from './embed.js';
import { initMy } from './my.js';
import { initNew } from './new.js';
import { initTheme } from './theme.js';
import { initView } from './view.js';
import { localiseTimes } from './dom.js';
import { loadMessages } from './i18n.js';
import { initLanguageMenu } from './language.js';
import { CATALOGUES } from 'snip:locales';

const page = document.body.dataset.page;
// The embed's theme is its URL's (?theme=), not this browser's choice.
if (page !== 'embed') initTheme();
initLanguageMenu();
// Every message the script shows is in the page's language: they come first.
loadMessages(CATALOGUES).then(() => {
  if (page === 'embed') initEmbed();
  else if (page === 'new') initNew();
  else if (page === 'view') initView();
  else if (page === 'my') initMy();
  else localiseTimes();
});
