// snip's web GUI entry point. Every page works without it; this module
// enhances the page named by <body data-page>.

import { initNew } from './new.js';
import { initTheme } from './theme.js';
import { initView } from './view.js';
import { localiseTimes } from './dom.js';

initTheme();
const page = document.body.dataset.page;
if (page === 'new') initNew();
else if (page === 'view') initView();
else localiseTimes();
