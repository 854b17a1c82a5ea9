// The files of a several-file paste (templates/files.html): each file's
// text highlighted in its own language, with its own line anchors
// (#file-NAME-L12), which the server already renders and links.

import { $$ } from './dom.js';
import { codeText, renderCode } from './code.js';

/** Highlights every file shown in `container` and marks the line the address names. */
export async function enhanceFiles(container) {
  for (const pre of $$('.file pre.code', container)) {
    await renderCode(pre, codeText(pre), pre.dataset.lang || null, null, pre.dataset.prefix);
  }
  // Rendering replaced the line the address named, and with it :target.
  markTarget(container);
  window.addEventListener('hashchange', () => markTarget(container));
}

/** Marks the line named by the address (and only it) and scrolls to it. */
function markTarget(container) {
  for (const line of $$('.line.hl', container)) line.classList.remove('hl');
  let id;
  try {
    id = decodeURIComponent(location.hash.slice(1));
  } catch {
    return;
  }
  const line = id ? document.getElementById(id) : null;
  if (!line || !line.classList.contains('line') || !container.contains(line)) return;
  line.classList.add('hl');
  line.scrollIntoView({ block: 'center' });
}
