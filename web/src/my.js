// "My pastes": Delete buttons for a signed-in tenant's listing (the session
// cookie authorises the DELETE), and for an anonymous browser the list of
// pastes whose delete tokens it remembers.

import { $, $$, el, localiseTimes, say, show } from './dom.js';
import { forget, remembered } from './tokens.js';

export function initMy() {
  const section = $('section.my');
  if (!section) return;
  if (section.dataset.signedIn === 'true') {
    for (const button of $$('button.delete', section)) armDelete(button, null);
  } else {
    listLocal();
  }
  localiseTimes();
}

function listLocal() {
  const table = $('#my-local');
  const pastes = remembered();
  if (pastes.length === 0) {
    show($('#my-local-empty'));
    return;
  }
  const body = $('tbody', table);
  for (const paste of pastes) {
    const button = el('button', { type: 'button', class: 'delete', 'data-id': paste.id }, 'Delete');
    armDelete(button, paste.token);
    const row = el('tr', { 'data-id': paste.id });
    const link = el('td');
    link.append(el('a', { href: `/${paste.id}` }, paste.id));
    const action = el('td');
    action.append(button);
    row.append(link, timeCell(paste.created), timeCell(paste.expires, 'never'), action);
    body.append(row);
  }
  show(table);
}

function timeCell(iso, otherwise = '') {
  const cell = el('td');
  if (iso) cell.append(el('time', { datetime: iso }, iso));
  else cell.textContent = otherwise;
  return cell;
}

/** A Delete button that asks for a second click, then deletes. */
function armDelete(button, token) {
  let armed = false;
  button.addEventListener('click', async () => {
    if (!armed) {
      armed = true;
      button.textContent = 'Click again to delete';
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
    say(status, `Deleted ${id}.`);
    return;
  }
  button.disabled = false;
  const json = response ? await response.json().catch(() => null) : null;
  const reason = json?.error?.message || (response ? `${response.status} ${response.statusText}` : 'network error');
  say(status, `Could not delete ${id}: ${reason}`, 'error');
}
