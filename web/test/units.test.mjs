// Unit tests of the GUI's size formatting: the same rule and figures as the
// server's core::units::format_size, so both halves of a message agree.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatBytes } from '../src/dom.js';

test('sizes: binary units, one decimal unless whole', () => {
  assert.equal(formatBytes(0), '0 bytes');
  assert.equal(formatBytes(1023), '1023 bytes');
  assert.equal(formatBytes(1024), '1 KiB');
  assert.equal(formatBytes(1536), '1.5 KiB');
  assert.equal(formatBytes(16 * 2 ** 20), '16 MiB');
  assert.equal(formatBytes(16 * 2 ** 20 + 1), '16.0 MiB');
  assert.equal(formatBytes(17_000_000), '16.2 MiB');
  assert.equal(formatBytes(17 * 2 ** 20), '17 MiB');
  assert.equal(formatBytes(3 * 2 ** 30), '3 GiB');
});
