// Reads tests/vectors/envelope.json (docs/envelope.md, "Test vectors") and
// checks one vector in both directions: encrypting its inputs gives its
// envelope, and decrypting its envelope gives its inputs.
//
// Byte fields are accepted as hex (`salt`, `salt_hex`, …); the key also as
// base64url; content also as UTF-8 text (`content`) or hex (`content_hex`).

import assert from 'node:assert/strict';
import * as envelope from '../src/envelope.js';

export function loadVectors(json) {
  const parsed = JSON.parse(json);
  const list = Array.isArray(parsed) ? parsed : parsed.vectors;
  if (!Array.isArray(list)) throw new Error('envelope.json has no list of vectors');
  return list;
}

function field(vector, ...names) {
  for (const name of names) if (vector[name] !== undefined && vector[name] !== null) return vector[name];
  return undefined;
}

function bytes(value, what) {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new Error(`${what}: expected a hex string`);
  if (/^[0-9a-fA-F]*$/.test(value) && value.length % 2 === 0) return envelope.hexToBytes(value);
  throw new Error(`${what}: not hex: ${value}`);
}

function keyBytes(value) {
  if (typeof value !== 'string') throw new Error('key: expected a string');
  if (value.length === 64 && /^[0-9a-fA-F]+$/.test(value)) return envelope.hexToBytes(value);
  return envelope.decodeKey(value);
}

function contentBytes(vector) {
  const hex = field(vector, 'content_hex', 'plaintext_hex');
  if (hex !== undefined) return bytes(hex, 'content_hex');
  const text = field(vector, 'content', 'content_utf8', 'plaintext');
  if (typeof text !== 'string') throw new Error('vector has no content');
  return new TextEncoder().encode(text);
}

function metaObject(vector) {
  const meta = field(vector, 'meta', 'metadata');
  if (meta === undefined) return {};
  return typeof meta === 'string' ? JSON.parse(meta) : meta;
}

export async function checkVector(vector) {
  const name = vector.name || vector.description || JSON.stringify(vector).slice(0, 60);
  const key = keyBytes(field(vector, 'key', 'key_hex', 'key_b64url'));
  const password = field(vector, 'password') || null;
  const content = contentBytes(vector);
  const meta = metaObject(vector);
  const expected = bytes(field(vector, 'envelope', 'envelope_hex', 'ciphertext_hex'), 'envelope');
  const error = field(vector, 'error', 'expect_error');

  if (error !== undefined) {
    // A vector that must fail to open.
    await assert.rejects(envelope.decrypt(expected, key, password), envelope.EnvelopeError, name);
    return;
  }
  const sealed = await envelope.encrypt(content, meta, key, {
    password,
    iterations: field(vector, 'iterations'),
    salt: bytes(field(vector, 'salt', 'salt_hex'), 'salt'),
    nonce: bytes(field(vector, 'nonce', 'nonce_hex', 'iv', 'iv_hex'), 'nonce'),
  });
  assert.equal(envelope.bytesToHex(sealed), envelope.bytesToHex(expected), `${name}: encrypt`);
  const opened = await envelope.decrypt(expected, key, password);
  assert.deepEqual(opened.content, content, `${name}: decrypt content`);
  const wanted = {};
  for (const k of ['lang', 'name', 'type']) if (typeof meta[k] === 'string') wanted[k] = meta[k];
  assert.deepEqual(opened.meta, wanted, `${name}: decrypt meta`);
}
