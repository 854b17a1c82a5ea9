// The envelope module (web/src/envelope.js) under node: round trips, header
// checks, error cases, and every shared test vector in both directions.

import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import * as envelope from '../src/envelope.js';
import { repoRoot } from './server.mjs';

// Node 18 has WebCrypto only as a module; the browser and Node 19+ have it global.
if (!globalThis.crypto?.subtle) globalThis.crypto = (await import('node:crypto')).webcrypto;

const text = (s) => new TextEncoder().encode(s);
const FAST = { iterations: 1000 };

describe('envelope round trips', () => {
  test('without a password', async () => {
    const key = envelope.generateKey();
    const content = text('hello, 世界\n');
    const sealed = await envelope.encrypt(content, { lang: 'rust', name: 'main.rs' }, key);
    const info = envelope.inspect(sealed);
    assert.equal(info.passwordRequired, false);
    assert.equal(info.iterations, 0);
    assert.deepEqual(info.salt, new Uint8Array(16));
    assert.equal(sealed.length, envelope.HEADER_LEN + 4 + '{"lang":"rust","name":"main.rs"}'.length + content.length + 16);
    const opened = await envelope.decrypt(sealed, key);
    assert.deepEqual(opened.content, content);
    assert.deepEqual(opened.meta, { lang: 'rust', name: 'main.rs' });
  });

  test('with a password (default 600,000 iterations)', async () => {
    const key = envelope.generateKey();
    const sealed = await envelope.encrypt(text('secret'), { type: 'text/plain' }, key, { password: 'hunter2' });
    const info = envelope.inspect(sealed);
    assert.equal(info.passwordRequired, true);
    assert.equal(info.iterations, 600000);
    assert.notDeepEqual(info.salt, new Uint8Array(16));
    const opened = await envelope.decrypt(sealed, key, 'hunter2');
    assert.equal(new TextDecoder().decode(opened.content), 'secret');
    assert.deepEqual(opened.meta, { type: 'text/plain' });
  });

  test('binary content and empty metadata', async () => {
    const key = envelope.generateKey();
    const content = envelope.randomBytes(5000);
    const sealed = await envelope.encrypt(content, {}, key);
    const opened = await envelope.decrypt(sealed, key);
    assert.deepEqual(opened.content, content);
    assert.deepEqual(opened.meta, {});
  });

  test('fresh key, nonce and salt every time', async () => {
    const key = envelope.generateKey();
    const a = envelope.inspect(await envelope.encrypt(text('x'), {}, key, { password: 'p', ...FAST }));
    const b = envelope.inspect(await envelope.encrypt(text('x'), {}, key, { password: 'p', ...FAST }));
    assert.notDeepEqual(a.nonce, b.nonce);
    assert.notDeepEqual(a.salt, b.salt);
    assert.notDeepEqual(envelope.generateKey(), envelope.generateKey());
  });

  test('keys travel as 43 characters of base64url', () => {
    const key = envelope.generateKey();
    const encoded = envelope.encodeKey(key);
    assert.match(encoded, /^[A-Za-z0-9_-]{43}$/);
    assert.deepEqual(envelope.decodeKey(encoded), key);
    assert.throws(() => envelope.decodeKey(encoded.slice(1)), { code: 'bad_key' });
    assert.throws(() => envelope.decodeKey(`${encoded.slice(1)}!`), { code: 'bad_key' });
  });
});

describe('envelope errors', () => {
  test('wrong key, wrong or missing password, tampering', async () => {
    const key = envelope.generateKey();
    const sealed = await envelope.encrypt(text('secret'), {}, key, { password: 'right', ...FAST });
    await assert.rejects(envelope.decrypt(sealed, key), { code: 'password_required' });
    await assert.rejects(envelope.decrypt(sealed, key, 'wrong'), { code: 'auth_failed' });
    await assert.rejects(envelope.decrypt(sealed, envelope.generateKey(), 'right'), { code: 'auth_failed' });
    for (const offset of [5 + 1, 10, 26, 40, sealed.length - 1]) {
      const bad = sealed.slice();
      bad[offset] ^= 1;
      await assert.rejects(envelope.decrypt(bad, key, 'right'), (e) => e instanceof envelope.EnvelopeError, `offset ${offset}`);
    }
    // Clearing the password flag (header is authenticated) fails too.
    const noFlag = sealed.slice();
    noFlag[5] = 0;
    await assert.rejects(envelope.decrypt(noFlag, key, 'right'), { code: 'auth_failed' });
  });

  test('not an envelope, unknown version or flags, too many iterations', async () => {
    const key = envelope.generateKey();
    assert.throws(() => envelope.inspect(new Uint8Array(10)), { code: 'not_envelope' });
    assert.throws(() => envelope.inspect(text('x'.repeat(100))), { code: 'not_envelope' });
    const sealed = await envelope.encrypt(text('x'), {}, key);
    const v2 = sealed.slice();
    v2[4] = 2;
    assert.throws(() => envelope.inspect(v2), { code: 'unsupported' });
    const flags = sealed.slice();
    flags[5] = 4;
    assert.throws(() => envelope.inspect(flags), { code: 'unsupported' });
    const greedy = sealed.slice();
    greedy[5] = 1;
    new DataView(greedy.buffer).setUint32(6, envelope.MAX_ITERATIONS + 1);
    assert.throws(() => envelope.inspect(greedy), { code: 'too_many_iterations' });
  });
});

// An envelope of `plaintext` as it is, its metadata never passed through
// encodeMeta: the header of a fresh envelope without a password, and
// `plaintext` sealed under it as docs/envelope.md says.
async function sealRaw(plaintext, key) {
  const header = (await envelope.encrypt(new Uint8Array(), {}, key)).slice(0, envelope.HEADER_LEN);
  const aes = await crypto.subtle.importKey('raw', key, { name: 'AES-GCM' }, false, ['encrypt']);
  const iv = header.slice(26, 38);
  const sealed = await crypto.subtle.encrypt({ name: 'AES-GCM', iv, additionalData: header, tagLength: 128 }, aes, plaintext);
  const out = new Uint8Array(header.length + sealed.byteLength);
  out.set(header);
  out.set(new Uint8Array(sealed), header.length);
  return out;
}

function withMeta(json, content) {
  const meta = text(json);
  const out = new Uint8Array(4 + meta.length + content.length);
  new DataView(out.buffer).setUint32(0, meta.length);
  out.set(meta, 4);
  out.set(content, 4 + meta.length);
  return out;
}

describe('metadata as another writer may seal it', () => {
  test('null is absent, unknown fields are ignored, and a known field that is not a string is malformed', async () => {
    const key = envelope.generateKey();
    const opened = await envelope.decrypt(await sealRaw(withMeta('{"lang":null,"name":"a.txt","colour":5}', text('x')), key), key);
    assert.deepEqual(opened.meta, { name: 'a.txt' });
    assert.deepEqual(opened.content, text('x'));
    for (const json of ['{"lang":5}', '{"name":["a"]}', '{"type":{}}', '{"name":true}']) {
      await assert.rejects(envelope.decrypt(await sealRaw(withMeta(json, text('x')), key), key), { code: 'malformed_plaintext' }, json);
    }
  });
});

describe('several files in one envelope', () => {
  test('the list is sealed with them, and each file gets its own bytes', async () => {
    const key = envelope.generateKey();
    const files = [
      { name: 'main.rs', size: 12, lang: 'rust' },
      { name: 'notes', size: 3 },
    ];
    const sealed = await envelope.encrypt(text('fn main() {}abc'), { files }, key);
    const { meta, content } = await envelope.decrypt(sealed, key);
    assert.deepEqual(meta, { files });
    const split = envelope.splitFiles(meta, content);
    assert.deepEqual(split.map((f) => [f.name, new TextDecoder().decode(f.bytes)]), [['main.rs', 'fn main() {}'], ['notes', 'abc']]);
    assert.equal(
      new TextDecoder().decode(envelope.encodeMeta({ files })),
      '{"files":[{"name":"main.rs","size":12,"lang":"rust"},{"name":"notes","size":3}]}',
    );
  });

  test('a list that does not describe the content, or names a file unsafely, is malformed', async () => {
    const key = envelope.generateKey();
    const abc = text('abc');
    for (const files of [
      [{ name: 'a', size: 1 }, { name: 'b', size: 1 }],
      [{ name: 'a', size: 2 }, { name: 'b', size: 2 }],
      [{ name: 'a', size: 1 }, { name: 'a', size: 2 }],
      [{ name: 'a', size: 0 }, { name: 'b', size: 3 }],
      [{ name: '../a', size: 3 }],
      [{ name: 'd\\a', size: 3 }],
      [{ name: '..', size: 3 }],
      [{ name: 'a\u0007', size: 3 }],
      [{ name: 'x\u202e', size: 3 }],
      [{ name: 'a', size: 1.5 }, { name: 'b', size: 1.5 }],
    ]) {
      const sealed = await envelope.encrypt(abc, { files }, key);
      await assert.rejects(envelope.decrypt(sealed, key), { code: 'malformed_plaintext' }, JSON.stringify(files));
    }
  });
});

// Shared vectors from the Rust implementation (docs/envelope.md, "Test vectors").
const vectorsPath = join(repoRoot, 'tests/vectors/envelope.json');
describe('shared test vectors', { skip: !existsSync(vectorsPath) && 'tests/vectors/envelope.json is not there yet' }, () => {
  test('every vector, both directions', async () => {
    const { checkVector, loadVectors } = await import('./vectors.mjs');
    const vectors = loadVectors(readFileSync(vectorsPath, 'utf8'));
    assert.ok(vectors.length > 0);
    for (const vector of vectors) await checkVector(vector);
  });
});
