// "My pastes": Delete buttons for a signed-in tenant's listing (the session
// cookie authorises the DELETE), and the pastes this browser created (from
// the delete tokens it remembers) with their names, sizes and expiry read
// from the server; a paste the server no longer has (burned, deleted,
// expired) is forgotten. Signed in, the browser's own pastes that are not
// the tenant's (made anonymously) are listed below the tenant's.

import { $, $$, el, formatBytes, localiseTimes, say, show } from './dom.js';
import { t } from './i18n.js';
import { forget, keepsKeys, remembered, setKeepKeys } from './tokens.js';

/** Metadata requests in flight at once. */
const PARALLEL = 4;

export async function initMy() {
  const section = $('section.my');
  if (!section) return;
  localiseTimes();
  if (section.dataset.signedIn === 'true') {
    for (const button of $$('button.delete', section)) armDelete(button, null);
    const listed = new Set($$('#my-pastes tr[data-id]', section).map((row) => row.dataset.id));
    const own = remembered().filter((paste) => !listed.has(paste.id));
    if (own.length) {
      const heading = el('h2', { id: 'my-browser-title' }, t('my-browser-title'));
      const table = localTable();
      section.insertBefore(heading, $('#my-status'));
      section.insertBefore(table, $('#my-status'));
      await listLocal(table, own);
    }
  } else {
    const pastes = remembered();
    if (pastes.length === 0) show($('#my-local-empty'));
    else await listLocal($('#my-local'), pastes);
  }
  keyChoice(section);
}

/** An empty table of the browser's own pastes, as my_local.html has it. */
function localTable() {
  const table = el('table', { class: 'pastes', id: 'my-browser' });
  const head = el('tr');
  for (const title of ['column-paste', 'column-size', 'column-created', 'column-expires']) head.append(el('th', {}, t(title)));
  const action = el('th');
  action.append(el('span', { class: 'sr-only' }, t('delete')));
  head.append(action);
  const thead = el('thead');
  thead.append(head);
  table.append(thead, el('tbody'));
  return table;
}

/** Fills `table` with `pastes` as the server describes them; gone ones are forgotten. */
async function listLocal(table, pastes) {
  const body = $('tbody', table);
  const rows = pastes.map((paste) => {
    const row = el('tr', { 'data-id': paste.id });
    body.append(row);
    return row;
  });
  show(table);
  let next = 0;
  const worker = async () => {
    while (next < pastes.length) {
      const i = next++;
      await fillRow(rows[i], pastes[i]);
    }
  };
  await Promise.all(Array.from({ length: PARALLEL }, worker));
  localiseTimes(table);
  table.dataset.state = 'done';
  if (!$('tr', body)) {
    show(table, false);
    show($('#my-local-empty'));
  }
}

async function fillRow(row, paste) {
  const response = await fetch(`/api/pastes/${paste.id}`, { headers: { accept: 'application/json' } }).catch(() => null);
  if (response && response.status === 404) {
    forget(paste.id);
    row.remove();
    return;
  }
  const info = response && response.ok ? await response.json().catch(() => null) : null;
  const link = el('td');
  const href = paste.key ? `/${paste.id}#${paste.key}` : `/${paste.id}`;
  const title = info?.name || (info?.encrypted ? t('encrypted-paste-id', { id: paste.id }) : paste.id);
  link.append(el('a', { href }, title));
  const button = el('button', { type: 'button', class: 'delete', 'data-id': paste.id }, t('delete'));
  armDelete(button, paste.token);
  const action = el('td');
  action.append(button);
  const expires = info ? info.expires_at : paste.expires;
  row.append(
    link,
    el('td', {}, info ? formatBytes(info.size) : ''),
    timeCell(info?.created_at || paste.created),
    timeCell(expires, t('never')),
    action,
  );
}

function timeCell(iso, otherwise = '') {
  const cell = el('td');
  if (iso) cell.append(el('time', { datetime: iso }, iso));
  else cell.textContent = otherwise;
  return cell;
}

/** The choice to remember keys of encrypted pastes (off by default), explained. */
function keyChoice(section) {
  const box = el('input', { type: 'checkbox', id: 'keep-keys' });
  box.checked = keepsKeys();
  const label = el('label', { for: 'keep-keys' }, ` ${t('keep-keys')}`);
  const line = el('p', { class: 'keep-keys' });
  line.append(box, label);
  const hint = el(
    'p',
    { class: 'hint', id: 'keep-keys-hint' },
    t('keep-keys-hint'),
  );
  box.setAttribute('aria-describedby', 'keep-keys-hint');
  box.addEventListener('change', () => setKeepKeys(box.checked));
  section.insertBefore(line, $('#my-status'));
  section.insertBefore(hint, $('#my-status'));
}

/** A Delete button that asks for a second click, then deletes. */
function armDelete(button, token) {
  let armed = false;
  button.addEventListener('click', async () => {
    if (!armed) {
      armed = true;
      button.textContent = t('delete-confirm');
      return;
    }
    await remove(button, token);
  });
}

async function remove(button, token) {
  const id = button.dataset.id;
  const status = $('#my-status');
  button.disabled = true;
  const headers = { accept: 'application/json' };
  if (token) headers['x-delete-token'] = token;
  const response = await fetch(`/${id}`, { method: 'DELETE', headers }).catch(() => null);
  if (response && (response.status === 204 || response.status === 404)) {
    forget(id);
    button.closest('tr').remove();
    say(status, t('deleted-id', { id }));
    return;
  }
  button.disabled = false;
  const json = response ? await response.json().catch(() => null) : null;
  const reason = json?.error?.message || (response ? `${response.status} ${response.statusText}` : t('server-no-answer'));
  say(status, t('delete-failed-id', { id, reason }), 'error');
}
