// The page's language in the browser: the messages of locales/LANG.ftl (the
// catalogue the server's templates read too), loaded as a content-hashed
// chunk of their own for the language of <html lang>, and formatters of
// numbers, sizes and times for it. Nothing here holds a message's text.

import { FluentBundle, FluentNumber, FluentResource } from '@fluent/bundle';

/** The page's language: its <html lang>, as the server chose it. */
export let lang = globalThis.document?.documentElement.lang || 'en';

/** The pseudo-locale (en-XA): English with its letters accented, as the server's. */
const PSEUDO = 'en-XA';
const FROM = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';
const TO = 'áƀçðéƒĝĥíĵķĺɱñóþǫŕšţûṽŵẋýžÁƁÇÐÉƑĜĤÍĴĶĹṀÑÓÞǪŔŠŢÛṼŴẊÝŽ';
const pseudo = (text) => text.replace(/[A-Za-z]/g, (c) => [...TO][FROM.indexOf(c)]);

let bundle = null;

/**
 * Loads the page's messages from `catalogues` (tag → a loader of the
 * catalogue's text, `snip:locales`); every `t` after it is in the page's
 * language.
 */
export async function loadMessages(catalogues) {
  const load = catalogues[lang === PSEUDO ? 'en' : lang] || catalogues.en;
  const { default: source } = await load();
  useMessages(lang, source);
}

/** Speaks `tag`, from the text of its catalogue (`source`). */
export function useMessages(tag, source) {
  lang = tag;
  const next = new FluentBundle(tag, {
    useIsolating: ['ar'].includes(tag),
    transform: tag === PSEUDO ? pseudo : (text) => text,
  });
  next.addResource(new FluentResource(source));
  bundle = next;
}

/**
 * Text the browser's Intl wrote (dates, relative times): as it is, or in the
 * pseudo-locale accented too, since Intl knows no pseudo-locale.
 */
export function localised(text) {
  return lang === PSEUDO ? pseudo(text) : text;
}

/** The message `id` with `args` (its id if there is no such message). */
export function t(id, args) {
  const message = bundle?.getMessage(id);
  if (!message?.value) return id;
  return bundle.formatPattern(message.value, args);
}

/** A number for people in the page's language. */
export function formatNumber(n, options) {
  return new Intl.NumberFormat(lang, options).format(n);
}

/**
 * A size for people, by the server's rule (core::units::format_size and
 * i18n::Lang::size): binary units, one decimal unless whole, so a size just
 * over a limit never reads the same as the limit.
 */
export function formatBytes(n) {
  // Ungrouped, as the server writes it (1023 bytes).
  if (n < 1024) return t('size-bytes', { n: new FluentNumber(n, { useGrouping: false }) });
  let value = n;
  let unit = 'kib';
  for (const u of ['kib', 'mib', 'gib', 'tib']) {
    value /= 1024;
    unit = u;
    if (value < 1024) break;
  }
  const digits = Number.isInteger(value) ? 0 : 1;
  const number = formatNumber(value, { minimumFractionDigits: digits, maximumFractionDigits: digits, useGrouping: false });
  return t(`size-${unit}`, { n: number });
}
