// snip's web GUI entry point. Every page works without it; this module
// enhances the page named by <body data-page>.

import { initEmbed } from './embed.js';
import { initMy } from './my.js';
import { initNew } from './new.js';
import { initTheme } from './theme.js';
import { initView } from './view.js';
import { localiseTimes } from './dom.js';

const page = document.body.dataset.page;
// The embed's theme is its URL's (?theme=), not this browser's choice.
if (page !== 'embed') initTheme();
if (page === 'embed') initEmbed();
else if (page === 'new') initNew();
else if (page === 'view') initView();
else if (page === 'my') initMy();
else localiseTimes();
