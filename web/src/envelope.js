// snip's end-to-end encryption envelope, version 1 (docs/envelope.md), with WebCrypto.
//
// No DOM, no imports: the browser bundle and node's test runner use this
// same module. The key lives only in the URL fragment; the server only ever
// sees the envelope this module produces.

const MAGIC = [0x53, 0x4e, 0x49, 0x50]; // "SNIP"
export const VERSION = 1;
export const HEADER_LEN = 38;
export const TAG_LEN = 16;
export const KEY_LEN = 32;
export const SALT_LEN = 16;
export const NONCE_LEN = 12;
/** Iterations writers use with a password (docs/envelope.md: at least 600,000). */
export const DEFAULT_ITERATIONS = 600000;
/** Readers refuse envelopes asking for more (a denial-of-service guard). */
export const MAX_ITERATIONS = 10000000;
const FLAG_PASSWORD = 1;
const META_FIELDS = ['lang', 'name', 'type'];

/** Why an envelope could not be opened; `code` tells the cases apart. */
export class EnvelopeError extends Error {
  /**
   * @param {'not_envelope'|'unsupported'|'password_required'|'auth_failed'|'malformed_plaintext'|'bad_key'|'too_many_iterations'} code
   * @param {string} message
   */
  constructor(code, message) {
    super(message);
    this.name = 'EnvelopeError';
    this.code = code;
  }
}

function subtle() {
  const c = globalThis.crypto;
  if (!c || !c.subtle) {
    throw new EnvelopeError(
      'unsupported',
      'this browser offers no WebCrypto here (it needs HTTPS, or http://localhost)',
    );
  }
  return c.subtle;
}

/** `n` bytes from the platform CSPRNG. */
export function randomBytes(n) {
  const bytes = new Uint8Array(n);
  globalThis.crypto.getRandomValues(bytes);
  return bytes;
}

/** A fresh random 256-bit paste key. */
export function generateKey() {
  return randomBytes(KEY_LEN);
}

/** base64url without padding, as used in links. */
export function encodeBase64Url(bytes) {
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** Decodes base64url (padding optional); throws `bad_key` on anything else. */
export function decodeBase64Url(text) {
  if (!/^[A-Za-z0-9_-]*$/.test(text) || text.length % 4 === 1) {
    throw new EnvelopeError('bad_key', 'the key in the link is not valid base64url');
  }
  const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** The key from a link fragment (43 base64url characters), or throws `bad_key`. */
export function decodeKey(text) {
  const key = decodeBase64Url(text.trim());
  if (key.length !== KEY_LEN) {
    throw new EnvelopeError('bad_key', 'the key in the link is incomplete (it must be 43 characters)');
  }
  return key;
}

/** The key as it appears in a link. */
export function encodeKey(key) {
  return encodeBase64Url(key);
}

export function hexToBytes(hex) {
  if (hex.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(hex)) throw new Error('not hex');
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return bytes;
}

export function bytesToHex(bytes) {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

function concat(...parts) {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/**
 * The final key (the AES key): K itself without a password (`null`), or
 * PBKDF2-HMAC-SHA256(K ‖ UTF-8(password), salt, iterations).
 * @returns {Promise<Uint8Array>}
 */
export async function deriveFinalKey(key, password, salt, iterations) {
  if (password === null) return key;
  const material = await subtle().importKey(
    'raw',
    concat(key, new TextEncoder().encode(password)),
    'PBKDF2',
    false,
    ['deriveBits'],
  );
  const bits = await subtle().deriveBits({ name: 'PBKDF2', hash: 'SHA-256', salt, iterations }, material, 256);
  return new Uint8Array(bits);
}

function aesKey(finalKey, usage) {
  return subtle().importKey('raw', finalKey, { name: 'AES-GCM' }, false, [usage]);
}

/** The info string of the proof's HKDF (docs/envelope.md, "Proof of key"). */
const PROOF_INFO = new TextEncoder().encode('snip reveal');

/**
 * The proof of key a reader presents (`X-Snip-Proof`): HKDF-SHA256 of the
 * final key with no salt and info "snip reveal", 32 bytes.
 * @returns {Promise<Uint8Array>}
 */
export async function proofOf(finalKey) {
  const material = await subtle().importKey('raw', finalKey, 'HKDF', false, ['deriveBits']);
  const bits = await subtle().deriveBits(
    { name: 'HKDF', hash: 'SHA-256', salt: new Uint8Array(0), info: PROOF_INFO },
    material,
    256,
  );
  return new Uint8Array(bits);
}

/** The verifier the server keeps (sent at creation): SHA-256 of the proof. */
export async function verifierOf(proof) {
  return new Uint8Array(await subtle().digest('SHA-256', proof));
}

/**
 * META as UTF-8 JSON: only the known string fields, in a fixed order, then
 * `files` (several files in one envelope: `[{name, size, lang, type}]` in
 * content order) when there are any.
 */
export function encodeMeta(meta = {}) {
  const clean = {};
  for (const field of META_FIELDS) {
    if (typeof meta[field] === 'string' && meta[field] !== '') clean[field] = meta[field];
  }
  if (Array.isArray(meta.files) && meta.files.length > 0) {
    clean.files = meta.files.map((file) => {
      const entry = { name: file.name, size: file.size };
      for (const field of META_FIELDS) {
        if (field !== 'name' && typeof file[field] === 'string' && file[field] !== '') entry[field] = file[field];
      }
      return entry;
    });
  }
  return new TextEncoder().encode(JSON.stringify(clean));
}

/** The most bytes a file name may have (as the server's). */
const MAX_NAME_BYTES = 255;

/**
 * Whether `name` is a safe base name, as the server and the CLI reduce
 * names to (core/files.rs): no `/` or `\`, no control or format
 * characters, no white space at either end, not `.` or `..`, at most 255
 * bytes. A decrypted name is used as an element's `id`, so it must be one.
 */
export function isSafeBaseName(name) {
  return (
    typeof name === 'string' &&
    name !== '' &&
    name !== '.' &&
    name !== '..' &&
    name === name.trim() &&
    !/[\p{Cc}\p{Cf}/\\]/u.test(name) &&
    new TextEncoder().encode(name).length <= MAX_NAME_BYTES
  );
}

/**
 * Several files with their bytes: what `files` of an opened envelope
 * lists, each with its slice of `content`. Empty for one file.
 * @returns {{name: string, size: number, lang?: string, type?: string, bytes: Uint8Array}[]}
 */
export function splitFiles(meta, content) {
  let at = 0;
  return (meta.files || []).map((file) => {
    const bytes = content.subarray(at, at + file.size);
    at += file.size;
    return { ...file, bytes };
  });
}

/** META's `files`, checked as Rust's reader checks them: malformed unless they describe `contentLength` bytes. */
function parseFiles(list, contentLength) {
  if (list === undefined || list === null) return [];
  const malformed = (what) => new EnvelopeError('malformed_plaintext', `the decrypted file list is malformed (${what})`);
  if (!Array.isArray(list)) throw malformed('not an array');
  const seen = new Set();
  let sum = 0;
  const files = list.map((entry) => {
    if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) throw malformed('an entry is not an object');
    const file = { name: entry.name, size: entry.size };
    for (const field of ['lang', 'type']) {
      if (typeof entry[field] === 'string') file[field] = entry[field];
      else if (entry[field] !== undefined && entry[field] !== null) throw malformed('a field is not a string');
    }
    if (!isSafeBaseName(file.name)) throw malformed('a name is not a plain file name');
    if (!Number.isSafeInteger(file.size) || file.size <= 0) throw malformed('a size is not a positive whole number');
    if (seen.has(file.name)) throw malformed('two files have one name');
    seen.add(file.name);
    sum += file.size;
    return file;
  });
  if (files.length > 0 && sum !== contentLength) throw malformed('the sizes do not add up to the content');
  return files;
}

/**
 * Encrypts `content` (bytes) with `meta` ({lang, name, type}, or {files}
 * for several files whose bytes `content` holds one after the other) under `key`.
 *
 * `options.password` (any string, even empty, as docs/envelope.md says; `null`
 * or absent for none) adds PBKDF2; `iterations`, `salt`
 * and `nonce` are for test vectors only: by default they are 600,000 and fresh
 * random values.
 * @returns {Promise<Uint8Array>} the envelope
 */
export async function encrypt(content, meta, key, options = {}) {
  return (await encryptProved(content, meta, key, options)).envelope;
}

/**
 * {@link encrypt}, also giving the proof of key of the new envelope (from the
 * same final key, so the password is stretched once).
 * @returns {Promise<{envelope: Uint8Array, proof: Uint8Array}>}
 */
export async function encryptProved(content, meta, key, options = {}) {
  if (!(key instanceof Uint8Array) || key.length !== KEY_LEN) {
    throw new EnvelopeError('bad_key', 'the key must be 32 bytes');
  }
  const password = typeof options.password === 'string' ? options.password : null;
  const iterations = password === null ? 0 : (options.iterations ?? DEFAULT_ITERATIONS);
  const salt = password === null ? new Uint8Array(SALT_LEN) : (options.salt ?? randomBytes(SALT_LEN));
  const nonce = options.nonce ?? randomBytes(NONCE_LEN);
  if (salt.length !== SALT_LEN || nonce.length !== NONCE_LEN) throw new Error('bad salt or nonce length');
  if (password !== null && (iterations < 1 || iterations > MAX_ITERATIONS)) {
    throw new Error('iterations out of range');
  }

  const header = new Uint8Array(HEADER_LEN);
  const view = new DataView(header.buffer);
  header.set(MAGIC, 0);
  header[4] = VERSION;
  header[5] = password === null ? 0 : FLAG_PASSWORD;
  view.setUint32(6, iterations);
  header.set(salt, 10);
  header.set(nonce, 26);

  const metaBytes = encodeMeta(meta);
  const length = new Uint8Array(4);
  new DataView(length.buffer).setUint32(0, metaBytes.length);
  const plaintext = concat(length, metaBytes, content);

  const finalKey = await deriveFinalKey(key, password, salt, iterations);
  const sealed = await subtle().encrypt(
    { name: 'AES-GCM', iv: nonce, additionalData: header, tagLength: 128 },
    await aesKey(finalKey, 'encrypt'),
    plaintext,
  );
  return { envelope: concat(header, new Uint8Array(sealed)), proof: await proofOf(finalKey) };
}

/**
 * Reads an envelope's header without decrypting: whether a password is
 * needed, and its parameters. Throws `not_envelope`, `unsupported` or
 * `too_many_iterations`.
 */
export function inspect(envelope) {
  const bytes = envelope instanceof Uint8Array ? envelope : new Uint8Array(envelope);
  if (bytes.length < HEADER_LEN + TAG_LEN || MAGIC.some((b, i) => bytes[i] !== b)) {
    throw new EnvelopeError('not_envelope', 'this is not a snip encrypted paste');
  }
  if (bytes[4] !== VERSION) {
    throw new EnvelopeError(
      'unsupported',
      `this paste uses encryption format version ${bytes[4]}, which this version of snip cannot read`,
    );
  }
  const flags = bytes[5];
  if ((flags & ~FLAG_PASSWORD) !== 0) {
    throw new EnvelopeError('unsupported', 'this paste uses encryption options this version of snip cannot read');
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const iterations = view.getUint32(6);
  const passwordRequired = (flags & FLAG_PASSWORD) !== 0;
  if (passwordRequired && iterations > MAX_ITERATIONS) {
    throw new EnvelopeError('too_many_iterations', `the paste asks for ${iterations} key-derivation rounds, more than the ${MAX_ITERATIONS} allowed`);
  }
  if (passwordRequired && iterations < 1) {
    throw new EnvelopeError('not_envelope', 'this encrypted paste is damaged (zero key-derivation rounds)');
  }
  return {
    bytes,
    passwordRequired,
    iterations,
    salt: bytes.slice(10, 26),
    nonce: bytes.slice(26, 38),
  };
}

/**
 * Decrypts an envelope with the link's key (and the password when the
 * envelope needs one).
 * @returns {Promise<{meta: {lang?: string, name?: string, type?: string}, content: Uint8Array}>}
 */
export async function decrypt(envelope, key, password) {
  const info = inspect(envelope);
  if (!(key instanceof Uint8Array) || key.length !== KEY_LEN) {
    throw new EnvelopeError('bad_key', 'the key must be 32 bytes');
  }
  if (info.passwordRequired && typeof password !== 'string') {
    throw new EnvelopeError('password_required', 'this paste is protected by a password');
  }
  const finalKey = await deriveFinalKey(key, info.passwordRequired ? password : null, info.salt, info.iterations);
  return openInspected(info, finalKey);
}

/**
 * Decrypts an envelope with a final key derived beforehand (for the proof
 * of key), so the password is not stretched again.
 * @returns {Promise<{meta: {lang?: string, name?: string, type?: string}, content: Uint8Array}>}
 */
export function decryptWithFinalKey(envelope, finalKey) {
  return openInspected(inspect(envelope), finalKey);
}

async function openInspected(info, finalKey) {
  const cryptoKey = await aesKey(finalKey, 'decrypt');
  let plaintext;
  try {
    plaintext = new Uint8Array(
      await subtle().decrypt(
        { name: 'AES-GCM', iv: info.nonce, additionalData: info.bytes.subarray(0, HEADER_LEN), tagLength: 128 },
        cryptoKey,
        info.bytes.subarray(HEADER_LEN),
      ),
    );
  } catch {
    throw new EnvelopeError(
      'auth_failed',
      info.passwordRequired
        ? 'wrong password, or the link is incomplete or the paste was tampered with'
        : 'wrong key: the link is incomplete, or the paste was tampered with',
    );
  }
  return parsePlaintext(plaintext);
}

function parsePlaintext(plaintext) {
  if (plaintext.length < 4) throw new EnvelopeError('malformed_plaintext', 'the decrypted data is malformed');
  const metaLen = new DataView(plaintext.buffer, plaintext.byteOffset, 4).getUint32(0);
  if (metaLen > plaintext.length - 4) {
    throw new EnvelopeError('malformed_plaintext', 'the decrypted data is malformed (metadata length)');
  }
  let parsed;
  try {
    parsed = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(plaintext.subarray(4, 4 + metaLen)));
  } catch {
    throw new EnvelopeError('malformed_plaintext', 'the decrypted metadata is not JSON');
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new EnvelopeError('malformed_plaintext', 'the decrypted metadata is not a JSON object');
  }
  const meta = {};
  for (const field of META_FIELDS) {
    if (typeof parsed[field] === 'string') meta[field] = parsed[field];
    else if (parsed[field] !== undefined && parsed[field] !== null) {
      throw new EnvelopeError('malformed_plaintext', 'the decrypted metadata is malformed (a field is not a string)');
    }
  }
  const content = plaintext.slice(4 + metaLen);
  const files = parseFiles(parsed.files, content.length);
  if (files.length > 0) meta.files = files;
  return { meta, content };
}
