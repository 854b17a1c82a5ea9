// Reads tests/vectors/envelope.json (docs/envelope.md, "Test vectors") and
// checks one vector in both directions: encrypting its inputs gives its
// envelope, and decrypting its envelope gives its inputs.
//
// Fields as docs/envelope.md lists them: `content`, `salt`, `nonce`,
// `envelope`, `proof` and `verifier` in hex, `key` as the link fragment (base64url), `meta` an object
// (with `files`, for several files in one envelope).

import assert from 'node:assert/strict';
import * as envelope from '../src/envelope.js';

export function loadVectors(json) {
  const parsed = JSON.parse(json);
  const list = Array.isArray(parsed) ? parsed : parsed.vectors;
  if (!Array.isArray(list)) throw new Error('envelope.json has no list of vectors');
  return list;
}

function field(vector, name) {
  const value = vector[name];
  return value === null ? undefined : value;
}

function bytes(value, what) {
  if (typeof value !== 'string' || !/^([0-9a-fA-F]{2})*$/.test(value)) {
    throw new Error(`${what}: expected a hex string`);
  }
  return envelope.hexToBytes(value);
}

function metaObject(vector) {
  return field(vector, 'meta') ?? {};
}

export async function checkVector(vector) {
  const name = vector.description;
  const key = envelope.decodeKey(vector.key);
  const password = field(vector, 'password') ?? null;
  const content = bytes(vector.content, 'content');
  const meta = metaObject(vector);
  const expected = bytes(vector.envelope, 'envelope');
  const error = field(vector, 'error');

  if (error !== undefined) {
    // A vector that must fail to open.
    await assert.rejects(envelope.decrypt(expected, key, password), envelope.EnvelopeError, name);
    return;
  }
  const sealed = await envelope.encrypt(content, meta, key, {
    password,
    iterations: field(vector, 'iterations'),
    salt: bytes(vector.salt, 'salt'),
    nonce: bytes(vector.nonce, 'nonce'),
  });
  assert.equal(envelope.bytesToHex(sealed), envelope.bytesToHex(expected), `${name}: encrypt`);
  const opened = await envelope.decrypt(expected, key, password);
  assert.deepEqual(opened.content, content, `${name}: decrypt content`);
  const wanted = {};
  for (const k of ['lang', 'name', 'type']) if (typeof meta[k] === 'string') wanted[k] = meta[k];
  if (Array.isArray(meta.files) && meta.files.length > 0) wanted.files = meta.files;
  assert.deepEqual(opened.meta, wanted, `${name}: decrypt meta`);
  // Several files: each gets its own bytes, in order.
  const split = envelope.splitFiles(opened.meta, opened.content);
  assert.deepEqual(
    split.map((file) => file.bytes.length),
    (meta.files || []).map((file) => file.size),
    `${name}: split files`,
  );

  // Proof of key: HKDF of the final key, and its SHA-256 as the verifier.
  const proved = await envelope.encryptProved(content, meta, key, {
    password,
    iterations: field(vector, 'iterations'),
    salt: bytes(vector.salt, 'salt'),
    nonce: bytes(vector.nonce, 'nonce'),
  });
  assert.equal(envelope.bytesToHex(proved.envelope), envelope.bytesToHex(expected), `${name}: encryptProved`);
  assert.equal(envelope.bytesToHex(proved.proof), vector.proof, `${name}: proof`);
  const info = envelope.inspect(expected);
  const finalKey = await envelope.deriveFinalKey(key, info.passwordRequired ? password : null, info.salt, info.iterations);
  assert.equal(envelope.bytesToHex(await envelope.proofOf(finalKey)), vector.proof, `${name}: proof from the header`);
  assert.equal(envelope.bytesToHex(await envelope.verifierOf(proved.proof)), vector.verifier, `${name}: verifier`);
  const reopened = await envelope.decryptWithFinalKey(expected, finalKey);
  assert.deepEqual(reopened.content, content, `${name}: decrypt with the final key`);
}
