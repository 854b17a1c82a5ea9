// The paste page: highlighting and line links for server-rendered text, the
// burn reveal, in-browser decryption of encrypted pastes, the actions
// (copy, download, new paste from this, delete), soft wrap and shortcuts,
// and rendered Markdown (its module is loaded only for Markdown pastes).

import { codeText, enableLineLinks, renderCode } from './code.js';
import { $, copyText, decodeText, describeError, downloadBytes, el, flash, formatBytes, localiseTimes, say, show } from './dom.js';
import { t } from './i18n.js';
import {
  decodeBase64Url,
  decodeKey,
  decrypt,
  decryptWithFinalKey,
  deriveFinalKey,
  encodeBase64Url,
  EnvelopeError,
  inspect,
  proofOf,
  splitFiles,
} from './envelope.js';
import { enhanceFiles, showSealedFiles } from './files.js';
import { buildFragment, parseFragment } from './fragment.js';
import { displayName, languageForFileName, resolveLanguage } from './highlight.js';
import { loadRest, renderLong } from './longlog.js';
import { setupShare } from './share.js';
import { setupShortcuts, setupWrap } from './shortcuts.js';
import { forget, remember, tokenFor } from './tokens.js';

/** Media a browser only displays: shown inline from decrypted or revealed bytes. */
const INLINE_IMAGES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/avif', 'image/bmp'];
const INLINE_MEDIA = ['audio/mpeg', 'audio/ogg', 'audio/wav', 'audio/webm', 'video/mp4', 'video/webm', 'video/ogg'];

export const CLONE_KEY = 'snip.clone';

/** The largest Markdown paste shown rendered. */
const MAX_MARKDOWN_BYTES = 1024 * 1024;

function essence(type) {
  return (type || '').split(';')[0].trim().toLowerCase();
}

/** An opened envelope's metadata as the page keeps it. */
function plainMeta(meta) {
  return { lang: meta.lang || null, name: meta.name || null, type: meta.type || '', files: meta.files || null };
}

export async function initView() {
  const article = $('#paste');
  if (!article) return;
  const page = new PastePage(article);
  await page.start();
}

class PastePage {
  constructor(article) {
    this.article = article;
    this.id = article.dataset.id;
    this.meta = {
      lang: article.dataset.lang || null,
      name: article.dataset.name || null,
      type: article.dataset.type || null,
    };
    this.status = $('#status');
    this.fragment = parseFragment();
    /** How to get the paste's text for copy and clone. */
    this.text = null;
  }

  async start() {
    localiseTimes(this.article);
    this.refreshWrap = setupWrap();
    setupShortcuts(this.status);
    setupShare(this.article);
    this.takeDeleteLink();
    this.setupDelete();
    try {
      if (this.article.hasAttribute('data-burn') && $('#reveal')) {
        // Not revealed yet (a revealed burn paste comes back as a plain view).
        this.setupBurn();
      } else if (this.article.hasAttribute('data-encrypted') && this.proofParams()) {
        await this.openProved(`/raw/${this.id}`, {});
      } else if (this.article.hasAttribute('data-encrypted')) {
        await this.openEncrypted(() => this.fetchRaw(`/raw/${this.id}`));
      } else {
        await this.enhanceServerText();
      }
    } catch (error) {
      say(this.status, describeError(error), 'error');
    }
    this.awaitKey();
  }

  /**
   * An encrypted paste opened from a link without its key: adding the key
   * to the address (hashchange, no reload) opens it.
   */
  awaitKey() {
    if (!this.article.hasAttribute('data-encrypted') || this.fragment.key) return;
    const onHash = async () => {
      const fragment = parseFragment();
      if (!fragment.key) return;
      window.removeEventListener('hashchange', onHash);
      this.fragment = fragment;
      say(this.status, '');
      const reveal = $('#reveal');
      if (reveal) {
        reveal.querySelector('button').disabled = false;
        show($('.reveal-password', reveal));
        return;
      }
      try {
        if (this.proofParams()) await this.openProved(`/raw/${this.id}`, {});
        else await this.openEncrypted(() => this.fetchRaw(`/raw/${this.id}`));
      } catch (error) {
        say(this.status, describeError(error), 'error');
      }
    };
    window.addEventListener('hashchange', onHash);
  }

  /**
   * A delete link (#delete=TOKEN): remember the token, then drop it from the
   * address bar. A token this browser already holds for the paste is never
   * replaced: anyone can craft a link with a wrong one, and taking it would
   * cost the paste's creator their Delete button.
   */
  takeDeleteLink() {
    if (!this.fragment.deleteToken) return;
    const held = tokenFor(this.id);
    if (held === null) {
      remember(this.id, this.fragment.deleteToken, this.article.dataset.expires || null);
    } else if (held !== this.fragment.deleteToken) {
      say(
        this.status,
        t('delete-token-differs'),
        'error',
      );
    }
    this.fragment.deleteToken = null;
    history.replaceState(history.state, '', buildFragment(this.fragment) || location.pathname);
  }

  setupDelete() {
    const button = $('#delete');
    const token = tokenFor(this.id);
    // A burn paste is gone once revealed: there is nothing to delete.
    if (!button || !token || this.article.hasAttribute('data-burn')) return;
    show(button);
    let armed = false;
    button.addEventListener('click', async () => {
      if (!armed) {
        armed = true;
        button.textContent = t('delete-confirm');
        setTimeout(() => {
          armed = false;
          button.textContent = t('delete');
        }, 5000);
        return;
      }
      button.disabled = true;
      const response = await fetch(`/${this.id}`, {
        method: 'DELETE',
        headers: { 'x-delete-token': token, accept: 'application/json' },
      }).catch(() => null);
      if (response && (response.status === 204 || response.status === 404)) {
        forget(this.id);
        const done = el('section', { class: 'notice done' });
        done.append(el('h1', {}, t('deleted')), el('p', {}, `${t('deleted-text')} `));
        done.lastChild.append(el('a', { href: '/' }, t('create-new-paste')));
        this.article.replaceChildren(done);
      } else if (response && response.status === 403) {
        forget(this.id);
        button.hidden = true;
        say(this.status, t('delete-token-refused'), 'error');
      } else {
        button.disabled = false;
        say(this.status, t('delete-failed'), 'error');
      }
    });
  }

  async fetchRaw(url, init) {
    const response = await fetch(url, init);
    if (response.status === 404) {
      throw new Error(t('paste-gone'));
    }
    if (!response.ok) throw new Error(t('server-answered', { status: `${response.status} ${response.statusText}` }));
    return { bytes: new Uint8Array(await response.arrayBuffer()), type: response.headers.get('content-type') };
  }

  /** Server-rendered text: highlight it and wire the line links. */
  async enhanceServerText() {
    if ($('#content.files')) {
      await enhanceFiles($('#content.files'));
      return;
    }
    const pre = $('#code');
    // Images, media and other files have no text to copy or edit.
    if (!pre) return;
    const rawUrl = `/raw/${this.id}`;
    this.setupActions({
      text: async () => {
        const response = await fetch(rawUrl);
        return response.ok ? response.text() : codeText(pre);
      },
    });
    const { language, detected } = await renderCode(pre, codeText(pre), this.meta.lang, this.meta.name);
    this.showLanguage(language, detected);
    enableLineLinks(pre);
    this.refreshWrap();
    // A cut-off view has only part of the text: render the whole Markdown.
    const size = Number(this.article.dataset.size) || 0;
    if (this.isMarkdown(size)) {
      await this.showMarkdown(pre, $('#truncated') ? await (await fetch(rawUrl)).text() : codeText(pre));
    }
    if ($('#truncated')) await loadRest(pre, $('#truncated'), rawUrl);
  }

  /**
   * Rendered only when the paste says it is Markdown (its language or file
   * name): a detected guess is not reason enough to change how text looks.
   * A very large one stays source: rendering it would stall the tab.
   */
  isMarkdown(size) {
    const declared = resolveLanguage(this.meta.lang) || languageForFileName(this.meta.name);
    return declared === 'markdown' && size <= MAX_MARKDOWN_BYTES;
  }

  /** Markdown: rendered (sanitised) by default, with a Rendered/Source toggle. */
  async showMarkdown(pre, text) {
    const { renderMarkdown } = await import('./markdown.js');
    const rendered = el('div', { class: 'markdown', id: 'rendered' });
    rendered.append(renderMarkdown(text));
    const toggle = el('div', { class: 'view-toggle', role: 'group', 'aria-label': t('show') });
    const asRendered = el('button', { type: 'button', id: 'show-rendered', 'aria-pressed': 'true' }, t('rendered'));
    const asSource = el('button', { type: 'button', id: 'show-source', 'aria-pressed': 'false' }, t('source'));
    toggle.append(asRendered, asSource);
    pre.before(toggle, rendered);
    const wrap = $('#wrap');
    const choose = (source) => {
      show(rendered, !source);
      show(pre, source);
      asRendered.setAttribute('aria-pressed', String(!source));
      asSource.setAttribute('aria-pressed', String(source));
      if (wrap) show(wrap, source);
    };
    asRendered.addEventListener('click', () => choose(false));
    asSource.addEventListener('click', () => choose(true));
    // A link to lines (#L12) is about the source.
    choose(Boolean(parseFragment().lines));
    window.addEventListener('hashchange', () => {
      if (parseFragment().lines) choose(true);
    });
  }

  /** An encrypted paste, once decrypted: say so, with the size of what it holds. */
  markDecrypted(size) {
    const meta = $('.meta', this.article);
    if (!meta || $('.badge', meta)) return;
    const first = meta.firstElementChild;
    if (first) first.textContent = formatBytes(size);
    meta.insertBefore(el('span', { class: 'badge', title: t('decrypted-title') }, t('decrypted-badge')), first);
  }

  showLanguage(language, detected) {
    const slot = $('.meta .lang', this.article);
    if (!slot || !language) return;
    slot.textContent = detected ? t('language-detected', { language: displayName(language) }) : displayName(language);
  }

  /** Copy, download and clone for content held in memory or on the server. */
  setupActions({ text, bytes }) {
    const copy = $('#copy');
    const clone = $('#clone');
    const download = $('#download');
    if (text) {
      show(copy);
      show(clone);
      copy.onclick = async () => {
        flash(copy, (await copyText(await text())) ? t('copied') : t('copy-failed'));
      };
      clone.onclick = async () => {
        const value = await text();
        try {
          sessionStorage.setItem(
            CLONE_KEY,
            JSON.stringify({
              text: value,
              lang: this.meta.lang,
              name: this.meta.name,
              encrypt: this.article.hasAttribute('data-encrypted'),
            }),
          );
        } catch {
          say(this.status, t('clone-too-large'), 'error');
          return;
        }
        location.href = '/new';
      };
    }
    if (bytes && download) {
      show(download);
      download.removeAttribute('href');
      download.setAttribute('role', 'button');
      download.tabIndex = 0;
      const save = (event) => {
        event.preventDefault();
        downloadBytes(bytes, this.meta.name || `${this.id}.${text ? 'txt' : 'bin'}`);
      };
      download.onclick = save;
      download.onkeydown = (event) => {
        if (event.key === 'Enter' || event.key === ' ') save(event);
      };
    }
  }

  /** Shows bytes held in memory (a revealed or decrypted paste) by their type. */
  async showContent(bytes, meta) {
    this.meta = { ...this.meta, ...meta };
    const container = $('#content');
    if (meta.files) {
      // Several files sealed in one envelope: each under its own heading,
      // as the server shows a plain several-file paste.
      $('.title', this.article).textContent = t('files-count', { count: meta.files.length });
      await showSealedFiles(container, splitFiles(meta, bytes));
      return;
    }
    container.replaceChildren();
    const type = essence(meta.type);
    const name = meta.name || this.id;
    if (meta.name) $('.title', this.article).textContent = meta.name;
    if (INLINE_IMAGES.includes(type) || INLINE_MEDIA.includes(type)) {
      const url = URL.createObjectURL(new Blob([bytes], { type }));
      const figure = el('figure', { class: 'media' });
      if (type.startsWith('image/')) figure.append(el('img', { src: url, alt: name }));
      else figure.append(el(type.startsWith('audio/') ? 'audio' : 'video', { src: url, controls: true }));
      container.append(figure);
      this.setupActions({ bytes });
      return;
    }
    const text = type === '' || type.startsWith('text/') ? decodeText(bytes) : null;
    if (text === null) {
      const notice = el('p', { class: 'notice' }, t('sealed-paste-is-file', { name, size: formatBytes(bytes.length) }));
      container.append(notice);
      this.setupActions({ bytes });
      return;
    }
    const pre = el('pre', { class: 'code', dir: 'ltr', id: 'code', tabindex: '0' });
    container.append(pre);
    const { language, detected } = await renderLong(pre, text, (head) => renderCode(pre, head, meta.lang, meta.name));
    this.showLanguage(language, detected);
    enableLineLinks(pre);
    this.setupActions({ text: async () => text, bytes });
    this.refreshWrap();
    if (this.isMarkdown(bytes.length)) await this.showMarkdown(pre, text);
  }

  /** Burn after reading: nothing is read until the reader asks. */
  setupBurn() {
    const form = $('#reveal');
    // Several files: the form's own post answers the page of its files
    // (or, past the page's bounds, their zip).
    if (this.article.hasAttribute('data-files')) return;
    const encrypted = this.article.hasAttribute('data-encrypted');
    const passwordRow = $('.reveal-password', form);
    if (passwordRow) {
      show(passwordRow);
    }
    if (encrypted && !this.fragment.key) {
      show(passwordRow, false);
      form.querySelector('button').disabled = true;
      say(
        this.status,
        t('burn-no-key'),
        'error',
      );
    }
    const revealed = () => {
      show($('.burn', this.article), false);
      show($('.bar', this.article));
      // Nothing is left on the server to delete.
      show($('#delete'), false);
      const gone = el('p', { class: 'notice warn' }, t('burn-destroyed'));
      this.article.insertBefore(gone, $('#content'));
    };
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      const button = form.querySelector('button');
      button.disabled = true;
      if (encrypted && this.proofParams()) {
        // The key (and password, typed into the card) is proven first: a
        // wrong one is refused by the server and the paste stays intact.
        const field = $('#reveal-password');
        const label = button.textContent;
        button.textContent = field ? t('checking-password') : t('checking-key');
        try {
          const opened = await this.openProved(`/${this.id}/reveal`, { method: 'POST' }, revealed, field ? field.value : undefined);
          if (opened === false) {
            say(this.status, t('wrong-password-intact'), 'error');
            button.textContent = label;
            button.disabled = false;
            field.select();
            field.focus();
          }
        } catch (error) {
          show($('.burn', this.article), false);
          say(this.status, describeError(error), 'error');
        }
        return;
      }
      button.textContent = t('revealing');
      let bytes;
      try {
        bytes = await this.fetchRaw(`/${this.id}/reveal`, { method: 'POST', headers: { accept: '*/*' } });
      } catch (error) {
        show($('.burn', this.article), false);
        say(this.status, describeError(error), 'error');
        return;
      }
      revealed();
      if (encrypted) {
        await this.openEncrypted(async () => bytes);
      } else {
        await this.showContent(bytes.bytes, { ...this.meta, type: bytes.type });
      }
    });
  }

  /** The public parameters of the paste's proof of key, or null if it needs none. */
  proofParams() {
    const { proofIterations, proofSalt } = this.article.dataset;
    if (proofIterations === undefined || proofSalt === undefined) return null;
    return { iterations: Number(proofIterations), salt: decodeBase64Url(proofSalt) };
  }

  /** The fragment's key, or an error saying what is wrong with the link. */
  linkKey() {
    if (!this.fragment.key) {
      throw new Error(t('no-key'));
    }
    try {
      return decodeKey(this.fragment.key);
    } catch {
      throw new Error(t('bad-key'));
    }
  }

  /**
   * Reads a paste that is served only with a proof of key (docs/envelope.md):
   * derives the final key (asking for the password first when it needs
   * one), sends its proof with the read, then decrypts. A wrong password is
   * refused by the server without reading or burning, so it may be retried.
   * `onRead` runs once the server has served (for a burn paste: destroyed) it.
   * With a `password` given (the burn card's field), that one is tried and
   * the result is false when the server refuses it; else the password form
   * asks for it.
   */
  async openProved(url, init, onRead = () => {}, password = undefined) {
    const key = this.linkKey();
    const { iterations, salt } = this.proofParams();
    const attempt = async (password) => {
      say(this.status, password === null ? t('checking-key') : t('checking-password'));
      const finalKey = await deriveFinalKey(key, password, salt, iterations);
      const proof = encodeBase64Url(await proofOf(finalKey));
      const response = await fetch(url, {
        ...init,
        headers: { accept: 'application/json', 'x-snip-proof': proof },
      });
      if (response.status === 403) return false;
      if (response.status === 404) {
        throw new Error(t('paste-gone'));
      }
      if (!response.ok) throw new Error(t('server-answered', { status: `${response.status} ${response.statusText}` }));
      const bytes = new Uint8Array(await response.arrayBuffer());
      onRead();
      show($('#unlock'), false);
      say(this.status, t('decrypting'));
      let opened;
      try {
        opened = await decryptWithFinalKey(bytes, finalKey);
      } catch (error) {
        throw new Error(error instanceof EnvelopeError ? t('cannot-decrypt', { reason: t(`envelope-${error.code}`) }) : String(error));
      }
      say(this.status, '');
      const { meta, content } = opened;
      this.markDecrypted(content.length);
      await this.showContent(content, plainMeta(meta));
      return true;
    };
    if (iterations === 0) {
      if (!(await attempt(null))) {
        throw new Error(t('key-refused-intact'));
      }
      return;
    }
    if (password !== undefined) return attempt(password);
    this.askPassword(attempt, t('wrong-password-intact'));
    return undefined;
  }

  /** Shows the password form; `attempt(password)` is false for a wrong one, which may be retried. */
  askPassword(attempt, wrongMessage) {
    say(this.status, '');
    const form = $('#unlock');
    const input = $('#password');
    show(form);
    input.focus();
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      const button = form.querySelector('button');
      button.disabled = true;
      try {
        if (!(await attempt(input.value))) {
          say(this.status, wrongMessage, 'error');
          input.select();
          input.focus();
        }
      } catch (error) {
        say(this.status, describeError(error), 'error');
      } finally {
        button.disabled = false;
      }
    });
  }

  /** Decrypts with the fragment's key, asking for the password when the envelope needs one. */
  async openEncrypted(load) {
    const key = this.linkKey();
    say(this.status, t('decrypting'));
    const { bytes } = await load();
    let info;
    try {
      info = inspect(bytes);
    } catch (error) {
      throw new Error(error instanceof EnvelopeError ? t('cannot-decrypt', { reason: t(`envelope-${error.code}`) }) : String(error));
    }
    const attempt = async (password) => {
      try {
        const { meta, content } = await decrypt(bytes, key, password);
        say(this.status, '');
        show($('#unlock'), false);
        this.markDecrypted(content.length);
        await this.showContent(content, plainMeta(meta));
        return true;
      } catch (error) {
        if (error instanceof EnvelopeError && error.code === 'auth_failed' && password) return false;
        if (error instanceof EnvelopeError && error.code === 'auth_failed') {
          throw new Error(t('key-refused'));
        }
        throw new Error(error instanceof EnvelopeError ? t('cannot-decrypt', { reason: t(`envelope-${error.code}`) }) : String(error));
      }
    };
    if (!info.passwordRequired) {
      await attempt(null);
      return;
    }
    this.askPassword(async (password) => {
      say(this.status, t('decrypting'));
      return attempt(password);
    }, t('wrong-password'));
  }
}
