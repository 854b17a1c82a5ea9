// Delete tokens of the pastes this browser created, kept in localStorage.
// They never leave the browser except in the DELETE request itself. Only
// when the reader turns it on (off by default) are the keys of its
// encrypted pastes kept beside them, so that My pastes links open them.

const KEY = 'snip.tokens';
const MAX_ENTRIES = 1000;

function load() {
  try {
    const value = JSON.parse(localStorage.getItem(KEY) || '{}');
    return value && typeof value === 'object' ? value : {};
  } catch {
    return {};
  }
}

function save(all) {
  try {
    localStorage.setItem(KEY, JSON.stringify(all));
  } catch {
    // Storage full or disabled: the creator still has the delete link on screen.
  }
}

const KEEP_KEYS = 'snip.keep-keys';

/** Whether the keys of encrypted pastes made here are remembered. */
export function keepsKeys() {
  try {
    return localStorage.getItem(KEEP_KEYS) === '1';
  } catch {
    return false;
  }
}

/** Turns remembering keys on or off; off forgets every key held. */
export function setKeepKeys(on) {
  try {
    if (on) localStorage.setItem(KEEP_KEYS, '1');
    else localStorage.removeItem(KEEP_KEYS);
  } catch {
    return;
  }
  if (!on) {
    const all = load();
    for (const entry of Object.values(all)) if (entry) delete entry.key;
    save(all);
  }
}

/**
 * Remembers a paste's delete token (dropping expired entries), and its
 * encryption key when `key` is given and keeping keys is on.
 */
export function remember(id, token, expiresAt, key = null) {
  const all = load();
  const now = Date.now();
  for (const [key, entry] of Object.entries(all)) {
    if (entry.expires && Date.parse(entry.expires) < now) delete all[key];
  }
  all[id] = { token, expires: expiresAt || null, created: new Date(now).toISOString() };
  if (key && keepsKeys()) all[id].key = key;
  const ids = Object.keys(all);
  if (ids.length > MAX_ENTRIES) {
    ids.sort((a, b) => (all[a].created < all[b].created ? -1 : 1));
    for (const old of ids.slice(0, ids.length - MAX_ENTRIES)) delete all[old];
  }
  save(all);
}

/** The token remembered for `id`, or null. */
export function tokenFor(id) {
  const entry = load()[id];
  return entry && typeof entry.token === 'string' ? entry.token : null;
}

export function forget(id) {
  const all = load();
  delete all[id];
  save(all);
}

/** Every remembered paste that has not expired, newest first: {id, token, created, expires, key}. */
export function remembered() {
  const now = Date.now();
  return Object.entries(load())
    .filter(([, entry]) => entry && typeof entry.token === 'string')
    .filter(([, entry]) => !entry.expires || Date.parse(entry.expires) >= now)
    .map(([id, entry]) => ({
      id,
      token: entry.token,
      created: entry.created || null,
      expires: entry.expires || null,
      key: typeof entry.key === 'string' ? entry.key : null,
    }))
    .sort((a, b) => ((a.created || '') < (b.created || '') ? 1 : -1));
}
