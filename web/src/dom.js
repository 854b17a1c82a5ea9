// Small DOM helpers. Nothing here ever parses a string as HTML.

import { formatBytes, lang, localised, t } from './i18n.js';

export { formatBytes };

/** The first element matching `selector`, or null. */
export const $ = (selector, root = document) => root.querySelector(selector);
export const $$ = (selector, root = document) => Array.from(root.querySelectorAll(selector));

/** Creates an element with attributes and text (set as text, never as HTML). */
export function el(tag, attrs = {}, text) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === false || value === null || value === undefined) continue;
    node.setAttribute(key, value === true ? '' : String(value));
  }
  if (text !== undefined) node.textContent = text;
  return node;
}

export function show(node, visible = true) {
  if (node) node.hidden = !visible;
}

/**
 * What went wrong, in words for people, in the page's language: a request
 * that got no answer (the browser's "Failed to fetch" TypeError) says so
 * plainly.
 */
export function describeError(error) {
  if (error instanceof TypeError && /fetch|network|load failed/i.test(error.message)) {
    return t('no-answer');
  }
  // The envelope's errors (envelope.js) have a code, and a message for people.
  if (error?.name === 'EnvelopeError') return t(`envelope-${error.code}`);
  return error?.message || String(error);
}

/** Shows a message in a status region (`kind`: info, ok, error). */
export function say(region, message, kind = 'info') {
  if (!region) return;
  region.textContent = message;
  region.dataset.kind = kind;
  region.hidden = !message;
}

/** Escapes text for HTML; used only to build markup from our own templates. */
export function escapeHtml(text) {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);
}

let policy;
/**
 * The one Trusted Types policy (the CSP allows only `snip`). Its input is
 * always markup built by snip from escaped text or by highlight.js (which
 * escapes), never a string from a paste.
 */
export function trustedHtml(html) {
  if (policy === undefined) {
    policy = globalThis.trustedTypes ? globalThis.trustedTypes.createPolicy('snip', { createHTML: (s) => s }) : null;
  }
  return policy ? policy.createHTML(html) : html;
}

/** Copies text to the clipboard; falls back to a selected text field. */
export async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const area = el('textarea', { class: 'offscreen', readonly: true });
    area.value = text;
    document.body.append(area);
    area.select();
    let ok = false;
    try {
      ok = document.execCommand('copy');
    } catch {
      ok = false;
    }
    area.remove();
    return ok;
  }
}

/** A button's label changes briefly to confirm an action ("Copied"). */
export function flash(button, label, ms = 1500) {
  const original = button.dataset.label || button.textContent;
  button.dataset.label = original;
  button.textContent = label;
  clearTimeout(button._flash);
  button._flash = setTimeout(() => {
    button.textContent = original;
  }, ms);
}

/** "23 Nov 2026, 10:35" in the reader's time zone and the page's language, and a relative hint. */
export function localTime(date) {
  const absolute = new Intl.DateTimeFormat(lang, { dateStyle: 'medium', timeStyle: 'short' }).format(date);
  const seconds = Math.round((date.getTime() - Date.now()) / 1000);
  const steps = [
    [60, 'second'],
    [60, 'minute'],
    [24, 'hour'],
    [7, 'day'],
    [4.35, 'week'],
    [12, 'month'],
    [Infinity, 'year'],
  ];
  let value = seconds;
  let unit = 'second';
  for (const [size, name] of steps) {
    unit = name;
    if (Math.abs(value) < size) break;
    value /= size;
  }
  const relative = new Intl.RelativeTimeFormat(lang, { numeric: 'auto' }).format(Math.round(value), unit);
  return { absolute: localised(absolute), relative: localised(relative) };
}

/** Rewrites every <time datetime> (rendered in UTC by the server) into local time. */
export function localiseTimes(root = document) {
  for (const node of $$('time[datetime]', root)) {
    const date = new Date(node.getAttribute('datetime'));
    if (Number.isNaN(date.getTime())) continue;
    const { absolute, relative } = localTime(date);
    node.textContent = node.dataset.relative === 'only' ? relative : `${absolute} (${relative})`;
    node.title = date.toISOString();
  }
}

/** Starts a download of bytes held in memory. */
export function downloadBytes(bytes, name, type = 'application/octet-stream') {
  const url = URL.createObjectURL(new Blob([bytes], { type }));
  const a = el('a', { href: url, download: name || 'paste' });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60000);
}

/** Bytes as UTF-8 text, or null if they are not UTF-8. */
export function decodeText(bytes) {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
}
