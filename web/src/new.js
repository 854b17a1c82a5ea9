// The new-paste page: editor keys, language auto-detection, encryption,
// attachments (picker, drag and drop, clipboard), several files as tabs
// (each with its own name and language; shown only from the second file
// on, so one file is edited as it always was) and the share panel (its QR
// code module is loaded only once a paste is created).
// Without JavaScript the same form still posts to the server.

import { $, $$, copyText, describeError, el, flash, formatBytes, say, show } from './dom.js';
import { t } from './i18n.js';
import { encodeBase64Url, encodeKey, encryptProved, generateKey, verifierOf } from './envelope.js';
import { detectLanguage, displayName, LANGUAGES, languageForFileName, resolveLanguage } from './highlight.js';
import { fillShare, summary } from './share.js';
import { remember } from './tokens.js';
import { Cancelled, upload } from './upload.js';
import { CLONE_KEY } from './view.js';

/** Files up to this size that decode as UTF-8 text go into the editor. */
const MAX_EDITOR_FILE = 2 * 1024 * 1024;
/** Attached images shown before upload. */
const PREVIEW_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/avif', 'image/bmp'];
const TEXT_TYPES = /^(text\/|application\/(json|xml|javascript|x-sh|x-yaml|toml|sql|x-httpd-php)|image\/svg\+xml$)/;

/** A file being edited: its text (or attached bytes), name and chosen language. */
function blankTab() {
  return { text: '', name: '', lang: '', attachment: null };
}

/** A tab's language: the chosen one, else its name's, else a confident guess from its text. */
function tabLanguage(tab) {
  if (tab.lang) return tab.lang;
  const fromName = languageForFileName(tab.name.trim());
  if (fromName) return fromName;
  const guess = detectLanguage(tab.text);
  return guess.relevance >= 5 && guess.language !== 'plaintext' ? guess.language : undefined;
}

export function initNew() {
  const form = $('#new');
  if (!form) return;
  new Editor(form).start();
}

class Editor {
  constructor(form) {
    this.form = form;
    this.area = $('#content', form);
    this.lang = $('#lang', form);
    this.name = $('#name', form);
    this.status = $('#form-status');
    this.maxSize = Number(form.dataset.maxSize) || Infinity;
    this.detected = null;
    this.attachment = null;
    this.leaveEditor = false;
    /** The files being edited; the current one's are in the form's fields. */
    this.tabs = [blankTab()];
    this.current = 0;
  }

  start() {
    for (const node of $$('.js-only')) show(node);
    this.fillLanguages();
    this.keys();
    this.detection();
    this.encryption();
    this.files();
    this.tabsUi();
    this.cloneFromSession();
    this.form.addEventListener('submit', (event) => {
      event.preventDefault();
      this.create();
    });
    $('#another').addEventListener('click', () => this.reset());
  }

  fillLanguages() {
    const auto = this.lang.querySelector('option[value=""]');
    const options = LANGUAGES.map(([id, name]) => new Option(name, id));
    this.lang.replaceChildren(auto, ...options);
    this.lang.value = '';
  }

  keys() {
    const { area } = this;
    this.form.addEventListener('keydown', (event) => {
      if ((event.ctrlKey || event.metaKey) && event.key === 'Enter') {
        event.preventDefault();
        this.form.requestSubmit();
      }
    });
    area.addEventListener('keydown', (event) => {
      if (event.key === 'Escape') {
        // Esc, then Tab: leave the editor (keyboard users are never trapped).
        this.leaveEditor = true;
        return;
      }
      if (event.key === 'Tab' && !this.leaveEditor && !event.ctrlKey && !event.metaKey && !event.altKey) {
        event.preventDefault();
        this.indent(event.shiftKey);
      }
      if (event.key !== 'Shift') this.leaveEditor = false;
    });
  }

  insertText(text) {
    const { area } = this;
    area.focus();
    // execCommand keeps the browser's undo history; setRangeText is the fallback.
    if (!document.execCommand('insertText', false, text)) {
      area.setRangeText(text, area.selectionStart, area.selectionEnd, 'end');
      area.dispatchEvent(new Event('input', { bubbles: true }));
    }
  }

  indent(outdent) {
    const { area } = this;
    const { value, selectionStart: start, selectionEnd: end } = area;
    const unit = /^\t/m.test(value) ? '\t' : '    ';
    const selected = value.slice(start, end);
    if (!outdent && !selected.includes('\n')) {
      this.insertText(unit);
      return;
    }
    const lineStart = value.lastIndexOf('\n', start - 1) + 1;
    const block = value.slice(lineStart, end);
    const changed = outdent ? block.replace(/^(\t| {1,4})/gm, '') : block.replace(/^(?=.)/gm, unit);
    if (changed === block) return;
    area.setSelectionRange(lineStart, end);
    this.insertText(changed);
    area.setSelectionRange(lineStart, lineStart + changed.length);
  }

  /** The language sent with the paste: the choice, else the file name's, else the detected one. */
  effectiveLanguage() {
    if (this.lang.value) return this.lang.value;
    return languageForFileName(this.name.value.trim()) || this.detected;
  }

  detection() {
    const auto = this.lang.querySelector('option[value=""]');
    let timer;
    const run = () => {
      const fromName = languageForFileName(this.name.value.trim());
      if (fromName) {
        this.detected = fromName;
      } else {
        const guess = detectLanguage(this.area.value);
        this.detected = guess.relevance >= 5 && guess.language !== 'plaintext' ? guess.language : null;
      }
      auto.textContent = this.detected ? t('auto-detected', { language: displayName(this.detected) }) : t('auto-detect');
    };
    const later = () => {
      clearTimeout(timer);
      timer = setTimeout(run, 350);
    };
    this.area.addEventListener('input', later);
    this.name.addEventListener('input', later);
    this.rerunDetection = run;
  }

  encryption() {
    const box = $('#encrypt');
    const password = $('#password');
    const sync = () => show(password.closest('.password'), box.checked);
    if (!window.isSecureContext || !globalThis.crypto?.subtle) {
      box.disabled = true;
      box.closest('label').title = t('encryption-needs-https');
    }
    box.addEventListener('change', sync);
    sync();
  }

  files() {
    const picker = $('#file');
    picker.addEventListener('change', async () => {
      const chosen = Array.from(picker.files);
      picker.value = '';
      await this.takeFiles(chosen);
    });
    const zone = this.form;
    let depth = 0;
    zone.addEventListener('dragenter', (event) => {
      if (!event.dataTransfer?.types?.includes('Files')) return;
      depth++;
      zone.classList.add('dragging');
    });
    zone.addEventListener('dragleave', () => {
      depth = Math.max(0, depth - 1);
      if (!depth) zone.classList.remove('dragging');
    });
    zone.addEventListener('dragover', (event) => {
      if (event.dataTransfer?.types?.includes('Files')) event.preventDefault();
    });
    zone.addEventListener('drop', (event) => {
      depth = 0;
      zone.classList.remove('dragging');
      const dropped = Array.from(event.dataTransfer?.files || []);
      if (!dropped.length) return;
      event.preventDefault();
      this.takeFiles(dropped);
    });
    this.area.addEventListener('paste', (event) => {
      const pasted = Array.from(event.clipboardData?.files || []);
      if (!pasted.length) return;
      event.preventDefault();
      this.takeFiles(pasted);
    });
    $('#paste-clipboard').addEventListener('click', () => this.pasteFromClipboard());
    $('#attachment-remove').addEventListener('click', () => this.dropAttachment());
  }

  async pasteFromClipboard() {
    try {
      if (navigator.clipboard?.read) {
        for (const item of await navigator.clipboard.read()) {
          const image = item.types.find((t) => t.startsWith('image/'));
          if (image) {
            const blob = await item.getType(image);
            const ext = image.split('/')[1].replace('jpeg', 'jpg');
            this.takeFile(new File([blob], `pasted.${ext}`, { type: image }));
            return;
          }
        }
      }
      const text = await navigator.clipboard.readText();
      if (text) {
        this.dropAttachment();
        this.insertText(text);
      } else {
        say(this.status, t('clipboard-empty'), 'info');
      }
    } catch {
      say(this.status, t('clipboard-refused'), 'error');
    }
  }

  /**
   * One file goes into the current tab, as it always did. Several: the
   * first into the current tab if it is empty, every other into a new tab.
   */
  async takeFiles(list) {
    if (list.length === 1) {
      await this.takeFile(list[0]);
      return;
    }
    let rest = list;
    if (!this.attachment && this.area.value === '') {
      await this.takeFile(list[0]);
      rest = list.slice(1);
    }
    for (const file of rest) {
      this.addTab();
      await this.takeFile(file);
    }
    say(this.status, t('files-added', { count: list.length }), 'ok');
  }

  /** The tab strip, Add file and Remove this file. */
  tabsUi() {
    $('#add-file').addEventListener('click', () => {
      this.addTab();
      this.area.focus();
    });
    $('#remove-file').addEventListener('click', () => this.removeTab(this.current));
    this.name.addEventListener('input', () => this.drawTabs());
  }

  /** Keeps the form's fields in the current tab. */
  saveTab() {
    const tab = this.tabs[this.current];
    tab.text = this.area.value;
    tab.name = this.name.value;
    tab.lang = this.lang.value;
    tab.attachment = this.attachment;
  }

  /** Puts tab `index` into the form's fields. */
  openTab(index) {
    this.current = index;
    const tab = this.tabs[index];
    this.dropAttachment();
    this.area.value = tab.text;
    this.name.value = tab.name;
    this.lang.value = tab.lang;
    if (tab.attachment) this.showAttachment(tab.attachment);
    this.detected = null;
    this.rerunDetection();
    this.drawTabs();
  }

  addTab() {
    this.saveTab();
    this.tabs.push(blankTab());
    this.openTab(this.tabs.length - 1);
  }

  removeTab(index) {
    if (this.tabs.length < 2) return;
    this.saveTab();
    this.tabs.splice(index, 1);
    this.openTab(Math.min(index, this.tabs.length - 1));
    this.area.focus();
  }

  /** The tab strip: hidden for one file, one tab per file from two on. */
  drawTabs() {
    const strip = $('#tabs');
    show(strip, this.tabs.length > 1);
    const list = $('#tab-list');
    list.replaceChildren();
    if (this.tabs.length < 2) return;
    this.tabs.forEach((tab, index) => {
      const name = index === this.current ? this.name.value.trim() : tab.name.trim();
      const selected = index === this.current;
      const button = el('button', { type: 'button', role: 'tab', 'aria-selected': String(selected), tabindex: selected ? '0' : '-1' }, name || t('file-n', { n: index + 1 }));
      button.addEventListener('click', () => {
        if (index === this.current) return;
        this.saveTab();
        this.openTab(index);
      });
      button.addEventListener('keydown', (event) => {
        const step = { ArrowRight: 1, ArrowLeft: -1 }[event.key];
        if (!step) return;
        event.preventDefault();
        this.saveTab();
        this.openTab((this.current + step + this.tabs.length) % this.tabs.length);
        $('[role=tab][aria-selected=true]', list)?.focus();
      });
      list.append(button);
    });
    $('#remove-file').textContent = this.name.value.trim() ? t('remove-named', { name: this.name.value.trim() }) : t('remove-file-n', { n: this.current + 1 });
  }

  async takeFile(file) {
    if (file.size > this.maxSize) {
      say(this.status, `${file.name} is ${formatBytes(file.size)}; this server takes at most ${formatBytes(this.maxSize)}.`, 'error');
      return;
    }
    const bytes = new Uint8Array(await file.arrayBuffer());
    const looksText = file.type === '' || TEXT_TYPES.test(file.type);
    let text = null;
    if (looksText && file.size <= MAX_EDITOR_FILE) {
      try {
        text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
      } catch {
        text = null;
      }
    }
    if (!this.name.value.trim() || this.attachment) this.name.value = file.name;
    if (text !== null) {
      this.dropAttachment();
      this.area.value = text;
      this.area.dispatchEvent(new Event('input', { bubbles: true }));
      const lang = languageForFileName(file.name);
      if (lang) this.lang.value = lang;
      this.drawTabs();
      say(this.status, t('file-loaded', { name: file.name }), 'ok');
      this.area.focus();
      return;
    }
    this.showAttachment({ bytes, type: file.type || 'application/octet-stream', name: file.name });
    this.drawTabs();
    say(this.status, '');
  }

  /** A file that is not text, in place of the editor. */
  showAttachment(attachment) {
    this.attachment = attachment;
    const { bytes, type, name } = attachment;
    $('#attachment-name').textContent = t('attachment-name', { name, type: type === 'application/octet-stream' ? t('binary') : type, size: formatBytes(bytes.length) });
    this.previewImage(bytes, type);
    show($('#attachment'));
    show(this.area, false);
    this.area.required = false;
    this.lang.disabled = true;
  }

  /** An attached image is shown before it is sent (from memory, never uploaded for it). */
  previewImage(bytes, type) {
    $('#attachment-preview')?.remove();
    if (this.previewUrl) URL.revokeObjectURL(this.previewUrl);
    this.previewUrl = null;
    if (!PREVIEW_TYPES.includes(type)) return;
    this.previewUrl = URL.createObjectURL(new Blob([bytes], { type }));
    $('#attachment-name').after(el('img', { id: 'attachment-preview', src: this.previewUrl, alt: t('attachment-preview') }));
  }

  dropAttachment() {
    if (!this.attachment) return;
    this.previewImage(null, null);
    this.attachment = null;
    show($('#attachment'), false);
    show(this.area);
    this.area.required = true;
    this.lang.disabled = false;
  }

  cloneFromSession() {
    let clone = null;
    try {
      clone = JSON.parse(sessionStorage.getItem(CLONE_KEY) || 'null');
      sessionStorage.removeItem(CLONE_KEY);
    } catch {
      clone = null;
    }
    if (!clone || typeof clone.text !== 'string') return;
    this.area.value = clone.text;
    if (typeof clone.name === 'string') this.name.value = clone.name;
    const lang = resolveLanguage(clone.lang);
    if (lang) this.lang.value = lang;
    if (clone.encrypt && !$('#encrypt').disabled) {
      $('#encrypt').checked = true;
      $('#encrypt').dispatchEvent(new Event('change'));
    }
    this.rerunDetection();
    say(this.status, t('cloned'), 'info');
  }

  async create() {
    if (this.tabs.length > 1) {
      await this.createFiles();
      return;
    }
    const encrypted = $('#encrypt').checked;
    const password = $('#password').value;
    const name = this.name.value.trim();
    const text = this.area.value;
    if (!this.attachment && text === '') {
      say(this.status, t('nothing-to-paste'), 'error');
      this.area.focus();
      return;
    }
    if (this.detected === null && !this.attachment) this.rerunDetection();
    const lang = this.attachment ? null : this.effectiveLanguage();
    const { params, visibility } = this.lifetimeParams();
    const content = this.attachment ? this.attachment.bytes : new TextEncoder().encode(text);
    if (content.length > this.maxSize) {
      say(this.status, t('paste-too-large', { size: formatBytes(content.length), max: formatBytes(this.maxSize) }), 'error');
      return;
    }
    await this.submit(async () => {
      if (encrypted) {
        const meta = { lang: lang || undefined, name: name || undefined, type: this.attachment?.type };
        const { body, key } = await this.seal(content, meta, params, password);
        return { body, key, contentType: 'application/octet-stream', size: body.length };
      }
      if (this.attachment) {
        const body = new FormData();
        body.append('file', new Blob([content], { type: this.attachment.type }), name || this.attachment.name);
        return { body, size: content.length };
      }
      if (lang) params.set('lang', lang);
      if (name) params.set('name', name);
      return { body: content, contentType: 'text/plain; charset=utf-8', size: content.length };
    }, params, { encrypted, password, visibility });
  }

  /**
   * Uploads a new paste (`contentType` null for a form) and shows its link,
   * with the key of an encrypted one, or says why the server refused it.
   */
  async send(params, { body, contentType, size }, { key, encrypted, withPassword, visibility }) {
    say(this.status, t('uploading'));
    const headers = { accept: 'application/json' };
    if (contentType) headers['content-type'] = contentType;
    const response = await upload(`/?${params}`, { body, headers, size, anchor: this.status });
    const { json } = response;
    if (!response.ok) {
      const message = json?.error?.message || `${response.status} ${response.statusText}`;
      const prefix = { 413: 'create-too-large', 429: 'create-slow-down', 507: 'create-server-full' }[response.status] || 'create-refused';
      say(this.status, t(prefix, { message }), 'error');
      return;
    }
    remember(json.id, json.delete_token, json.expires_at, key ? encodeKey(key) : null);
    const link = key ? `${json.url}#${encodeKey(key)}` : json.url;
    this.showResult(json, link, encrypted, withPassword, visibility);
  }

  /**
   * Seals `content` and `meta` under a fresh key (and the password), adding
   * to `params` what the server needs: readers must prove the key (and
   * password) before it serves or burns the ciphertext (docs/envelope.md,
   * "Proof of key").
   */
  async seal(content, meta, params, password) {
    say(this.status, password ? t('encrypting-password') : t('encrypting'));
    const key = generateKey();
    const sealed = await encryptProved(content, meta, key, { password: password || null });
    params.set('encrypted', 'true');
    params.set('verifier', encodeBase64Url(await verifierOf(sealed.proof)));
    return { body: sealed.envelope, key };
  }

  /** The options every new paste sends (lifetime, burn, visibility). */
  lifetimeParams() {
    const params = new URLSearchParams();
    const ttl = $('#ttl').value;
    if (ttl) params.set('ttl', ttl);
    if ($('#burn').checked) params.set('burn', 'true');
    const visibility = $('#visibility')?.value || 'unlisted';
    if (visibility !== 'unlisted') params.set('visibility', visibility);
    return { params, visibility };
  }

  /**
   * Several tabs make one several-file paste: a form of one `file` part per
   * tab, or encrypted one envelope listing them (docs/envelope.md). Each
   * needs content and a name of its own.
   */
  async createFiles() {
    this.saveTab();
    const files = [];
    for (const [index, tab] of this.tabs.entries()) {
      const name = tab.name.trim();
      const problem =
        !tab.attachment && tab.text === ''
          ? 'file-empty'
          : name === ''
            ? 'file-unnamed'
            : files.some((file) => file.name === name)
              ? 'file-name-taken'
              : null;
      if (problem) {
        this.openTab(index);
        say(this.status, t(problem, { n: index + 1, name }), 'error');
        (problem === 'file-empty' ? this.area : this.name).focus();
        return;
      }
      const bytes = tab.attachment ? tab.attachment.bytes : new TextEncoder().encode(tab.text);
      const type = tab.attachment ? tab.attachment.type : 'text/plain; charset=utf-8';
      files.push({ name, size: bytes.length, lang: tab.attachment ? undefined : tabLanguage(tab), type, bytes });
    }
    const size = files.reduce((sum, file) => sum + file.size, 0);
    if (size > this.maxSize) {
      say(this.status, t('files-too-large', { size: formatBytes(size), max: formatBytes(this.maxSize) }), 'error');
      return;
    }
    const encrypted = $('#encrypt').checked;
    const password = $('#password').value;
    const { params, visibility } = this.lifetimeParams();
    await this.submit(async () => {
      if (!encrypted) {
        const body = new FormData();
        for (const file of files) body.append('file', new Blob([file.bytes], { type: file.type }), file.name);
        return { body, size };
      }
      const content = new Uint8Array(size);
      let at = 0;
      for (const file of files) {
        content.set(file.bytes, at);
        at += file.size;
      }
      const list = files.map(({ name, size, lang, type }) => ({ name, size, lang, type }));
      const { body, key } = await this.seal(content, { files: list }, params, password);
      return { body, key, contentType: 'application/octet-stream', size };
    }, params, { encrypted, password, visibility });
  }

  /**
   * Sends what `prepare()` makes (`{ body, contentType, key, size }`:
   * `contentType` absent for a form, `key` for an encrypted paste) with the
   * submit button disabled meanwhile, and says why it failed if it did.
   */
  async submit(prepare, params, { encrypted, password, visibility }) {
    const button = $('button[type=submit]', this.form);
    button.disabled = true;
    try {
      const { body, contentType = null, key = null, size } = await prepare();
      await this.send(params, { body, contentType, size }, { key, encrypted, withPassword: Boolean(password && encrypted), visibility });
    } catch (error) {
      if (error instanceof Cancelled) say(this.status, error.message);
      else say(this.status, t('create-failed', { reason: describeError(error) }), 'error');
    } finally {
      button.disabled = false;
    }
  }

  showResult(json, link, encrypted, withPassword, visibility) {
    say(this.status, '');
    show(this.form, false);
    const result = $('#result');
    show(result);
    const url = $('#result-url');
    $('#open-url').href = link;
    $('#delete-url').value = `${json.url}#delete=${encodeURIComponent(json.delete_token)}`;
    fillShare(
      { url, copy: $('#copy-url'), list: $('#result-summary'), qr: $('#qr') },
      link,
      summary(json, encrypted, withPassword, visibility),
    );
    const copyDelete = $('#copy-delete');
    copyDelete.onclick = async () => flash(copyDelete, (await copyText($('#delete-url').value)) ? t('copied') : t('copy-failed'));
    url.focus();
    url.select();
  }

  reset() {
    this.form.reset();
    this.dropAttachment();
    this.tabs = [blankTab()];
    this.current = 0;
    this.drawTabs();
    this.detected = null;
    this.lang.querySelector('option[value=""]').textContent = t('auto-detect');
    $('#encrypt').dispatchEvent(new Event('change'));
    show($('#result'), false);
    show(this.form);
    this.area.focus();
  }
}
