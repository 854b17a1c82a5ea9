// Unit tests of the GUI's size formatting: the same rule and figures as the
// server's core::units::format_size and i18n::Lang::size, so both halves of
// a message agree, in English and in a language with a decimal comma.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { formatBytes } from '../src/dom.js';
import { useMessages } from '../src/i18n.js';

const catalogue = (tag) => readFileSync(new URL(`../../locales/${tag}.ftl`, import.meta.url), 'utf8');

test('sizes: binary units, one decimal unless whole', () => {
  useMessages('en', catalogue('en'));
  assert.equal(formatBytes(0), '0 bytes');
  assert.equal(formatBytes(1023), '1023 bytes');
  assert.equal(formatBytes(1024), '1 KiB');
  assert.equal(formatBytes(1536), '1.5 KiB');
  assert.equal(formatBytes(16 * 2 ** 20), '16 MiB');
  assert.equal(formatBytes(16 * 2 ** 20 + 1), '16.0 MiB');
  assert.equal(formatBytes(17_000_000), '16.2 MiB');
  assert.equal(formatBytes(17 * 2 ** 20), '17 MiB');
  assert.equal(formatBytes(3 * 2 ** 30), '3 GiB');
  assert.equal(formatBytes(1), '1 byte');
});

test('sizes in German and French: decimal comma, the language\'s units and plurals', () => {
  useMessages('de', catalogue('de'));
  assert.equal(formatBytes(1536), '1,5 KiB');
  assert.equal(formatBytes(1), '1 Byte');
  assert.equal(formatBytes(2), '2 Bytes');
  useMessages('fr', catalogue('fr'));
  assert.equal(formatBytes(1536), '1,5 Kio');
  useMessages('en', catalogue('en'));
});

test('logs are told from code', async () => {
  const { looksLikeLog } = await import('../src/logtext.js');
  const lines = (make) => Array.from({ length: 40 }, (_, i) => make(i)).join('\n');
  assert.ok(looksLikeLog(lines((i) => `2026-11-28T02:18:${String(i % 60).padStart(2, '0')}Z INFO request ${i} served`)));
  assert.ok(looksLikeLog(lines((i) => (i % 2 ? `   Compiling crate${i} v0.1.${i}` : `warning: unused variable x${i}`))));
  assert.ok(looksLikeLog(lines((i) => `Nov 28 02:18:${String(i % 60).padStart(2, '0')} host sshd[${i}]: Accepted key`)));
  assert.ok(looksLikeLog(lines((i) => `[${String(i).padStart(5)}.123456] usb ${i}: new device`)));
  assert.ok(!looksLikeLog(lines((i) => `fn f${i}(x: u32) -> u32 { x + ${i} }`)));
  assert.ok(!looksLikeLog(lines((i) => `echo "step ${i}" && make -j4 target${i}`)));
  assert.ok(!looksLikeLog('INFO once\nand then prose'));
  assert.ok(!looksLikeLog(''));
});

test('the fragment names a file or its lines last, after any key, whatever its name holds', async () => {
  const { buildFragment, parseFragment } = await import('../src/fragment.js');
  const key = 'AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8';
  assert.deepEqual(parseFragment('#file-main.rs-L3-L9'), { key: null, lines: null, deleteToken: null, target: 'file-main.rs-L3-L9' });
  const parsed = parseFragment(`#${key}&file-a%26b%20longnamewithoutdotsatall-L2`);
  assert.equal(parsed.key, key);
  assert.equal(parsed.target, 'file-a%26b%20longnamewithoutdotsatall-L2');
  assert.equal(parsed.lines, null);
  assert.equal(buildFragment(parsed), `#${key}&file-a%26b%20longnamewithoutdotsatall-L2`);
  // A name that looks like a key is never taken for one.
  assert.equal(parseFragment(`#${key}&file-${'x'.repeat(43)}`).key, key);
  assert.deepEqual(parseFragment(`#${key}&L4`), { key, lines: [4, 4], deleteToken: null, target: null });
});
