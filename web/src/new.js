// The new-paste page: editor keys, language auto-detection, encryption,
// attachments (picker, drag and drop, clipboard) and the share panel (its
// QR code module is loaded only once a paste is created).
// Without JavaScript the same form still posts to the server.

import { $, $$, copyText, describeError, el, flash, formatBytes, say, show } from './dom.js';
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
  }

  start() {
    for (const node of $$('.js-only')) show(node);
    this.fillLanguages();
    this.keys();
    this.detection();
    this.encryption();
    this.files();
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
      auto.textContent = this.detected ? `Auto-detect: ${displayName(this.detected)}` : 'Auto-detect';
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
      box.closest('label').title = 'Encryption needs HTTPS (or http://localhost)';
    }
    box.addEventListener('change', sync);
    sync();
  }

  files() {
    const picker = $('#file');
    picker.addEventListener('change', () => {
      if (picker.files.length) this.takeFile(picker.files[0]);
      picker.value = '';
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
      const file = event.dataTransfer?.files?.[0];
      if (!file) return;
      event.preventDefault();
      this.takeFile(file);
    });
    this.area.addEventListener('paste', (event) => {
      const file = event.clipboardData?.files?.[0];
      if (!file) return;
      event.preventDefault();
      this.takeFile(file);
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
        say(this.status, 'The clipboard is empty.', 'info');
      }
    } catch {
      say(this.status, 'The browser did not allow reading the clipboard; press Ctrl+V (⌘V) in the editor instead.', 'error');
    }
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
      say(this.status, `Loaded ${file.name} into the editor.`, 'ok');
      this.area.focus();
      return;
    }
    this.attachment = { bytes, type: file.type || 'application/octet-stream', name: file.name };
    $('#attachment-name').textContent = `${file.name} (${file.type || 'binary'}, ${formatBytes(file.size)})`;
    this.previewImage(bytes, file.type);
    show($('#attachment'));
    show(this.area, false);
    this.area.required = false;
    this.lang.disabled = true;
    say(this.status, '');
  }

  /** An attached image is shown before it is sent (from memory, never uploaded for it). */
  previewImage(bytes, type) {
    $('#attachment-preview')?.remove();
    if (this.previewUrl) URL.revokeObjectURL(this.previewUrl);
    this.previewUrl = null;
    if (!PREVIEW_TYPES.includes(type)) return;
    this.previewUrl = URL.createObjectURL(new Blob([bytes], { type }));
    $('#attachment-name').after(el('img', { id: 'attachment-preview', src: this.previewUrl, alt: 'Preview of the attached image' }));
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
    say(this.status, 'Copied from the paste you were viewing: edit it and create a new paste.', 'info');
  }

  async create() {
    const button = $('button[type=submit]', this.form);
    const encrypted = $('#encrypt').checked;
    const password = $('#password').value;
    const name = this.name.value.trim();
    const text = this.area.value;
    if (!this.attachment && text === '') {
      say(this.status, 'There is nothing to paste yet.', 'error');
      this.area.focus();
      return;
    }
    if (this.detected === null && !this.attachment) this.rerunDetection();
    const lang = this.attachment ? null : this.effectiveLanguage();
    const params = new URLSearchParams();
    const ttl = $('#ttl').value;
    if (ttl) params.set('ttl', ttl);
    if ($('#burn').checked) params.set('burn', 'true');
    const visibility = $('#visibility')?.value || 'unlisted';
    if (visibility !== 'unlisted') params.set('visibility', visibility);
    const content = this.attachment ? this.attachment.bytes : new TextEncoder().encode(text);
    if (content.length > this.maxSize) {
      say(this.status, `The paste is ${formatBytes(content.length)}; this server takes at most ${formatBytes(this.maxSize)}.`, 'error');
      return;
    }
    button.disabled = true;
    let body;
    let contentType = null;
    let key = null;
    try {
      if (encrypted) {
        say(this.status, password ? 'Encrypting (deriving the key from the password)…' : 'Encrypting…');
        key = generateKey();
        const meta = { lang: lang || undefined, name: name || undefined, type: this.attachment?.type };
        const sealed = await encryptProved(content, meta, key, { password: password || null });
        body = sealed.envelope;
        params.set('encrypted', 'true');
        // Readers must prove the key (and password) before the server serves
        // or burns the ciphertext (docs/envelope.md, "Proof of key").
        params.set('verifier', encodeBase64Url(await verifierOf(sealed.proof)));
        contentType = 'application/octet-stream';
      } else if (this.attachment) {
        body = new FormData();
        body.append('file', new Blob([content], { type: this.attachment.type }), name || this.attachment.name);
      } else {
        if (lang) params.set('lang', lang);
        if (name) params.set('name', name);
        body = content;
        contentType = 'text/plain; charset=utf-8';
      }
      say(this.status, 'Uploading…');
      const headers = { accept: 'application/json' };
      if (contentType) headers['content-type'] = contentType;
      const size = body instanceof FormData ? content.length : body.length;
      const response = await upload(`/?${params}`, { body, headers, size, anchor: this.status });
      const { json } = response;
      if (!response.ok) {
        const message = json?.error?.message || `${response.status} ${response.statusText}`;
        const prefix = { 413: 'Too large: ', 429: 'Too many pastes right now; wait a moment. ', 507: 'The server is full: ' }[response.status] || '';
        say(this.status, `${prefix}${message}`, 'error');
        return;
      }
      remember(json.id, json.delete_token, json.expires_at, key ? encodeKey(key) : null);
      const link = key ? `${json.url}#${encodeKey(key)}` : json.url;
      this.showResult(json, link, encrypted, Boolean(password && encrypted), visibility);
    } catch (error) {
      if (error instanceof Cancelled) say(this.status, error.message);
      else say(this.status, `Could not create the paste. ${describeError(error)}`, 'error');
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
    copyDelete.onclick = async () => flash(copyDelete, (await copyText($('#delete-url').value)) ? 'Copied' : 'Copy failed');
    url.focus();
    url.select();
  }

  reset() {
    this.form.reset();
    this.dropAttachment();
    this.detected = null;
    this.lang.querySelector('option[value=""]').textContent = 'Auto-detect';
    $('#encrypt').dispatchEvent(new Event('change'));
    show($('#result'), false);
    show(this.form);
    this.area.focus();
  }
}
