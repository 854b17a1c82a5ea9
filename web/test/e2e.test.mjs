// End-to-end tests: headless Chromium (through playwright-core, never a
// downloaded browser) against the real snip binary.
//
// Every page a test opens records its requests, console errors, page errors
// and dialogs; after each test none may have left the server's origin and
// none may be an error or a dialog. Screenshots of the main pages go to
// target/e2e-screenshots (ignored by git); with SNIP_SCREENSHOTS=1 the
// docs' screenshots (the README's, and light, dark and phone-width shots of
// the view page and the share panel) are also written to docs/img, so that
// ordinary runs never change the tree.

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, afterEach, before, describe, test } from 'node:test';
import { chromium } from 'playwright-core';
import { decodeKey, encodeBase64Url, proofOf } from '../src/envelope.js';
import { spawnSync } from 'node:child_process';
import { createServer } from 'node:http';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { gzipSync } from 'node:zlib';
import qrcode from 'qrcode-generator';
import { apiCreate, repoRoot, snipBinary, startServer, wasmOf } from './server.mjs';

const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const SHOTS = join(repoRoot, 'target', 'e2e-screenshots');
mkdirSync(SHOTS, { recursive: true });
const DOCS_IMG = process.env.SNIP_SCREENSHOTS ? join(repoRoot, 'docs', 'img') : null;
if (DOCS_IMG) mkdirSync(DOCS_IMG, { recursive: true });
/** The README's screenshots: small enough to commit, wide enough to read. */
const DOCS_VIEWPORT = { width: 1000, height: 700 };

let server;
let browser;
/** Pages opened by the current test, with what they recorded. */
let opened = [];

before(async () => {
  server = await startServer();
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

afterEach(() => {
  const pages = opened;
  opened = [];
  for (const record of pages) {
    const origin = new URL(record.server || server.url).origin;
    const foreign = record.requests.filter((u) => !u.startsWith(`${origin}/`) && !u.startsWith('blob:') && !u.startsWith('data:'));
    assert.deepEqual(foreign, [], 'a request left the origin');
    assert.deepEqual(record.dialogs, [], 'a dialog opened');
    assert.deepEqual(record.errors, [], 'console or page errors');
  }
});

/**
 * A fresh page (own context) that records requests, errors and dialogs;
 * `on` is the server it may talk to (the shared one by default), and console
 * errors matching a pattern pushed to `record.expectErrors` are expected.
 */
async function newPage(options = {}, on = server) {
  const context = await browser.newContext({ viewport: { width: 1100, height: 720 }, ...options });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: on.url }).catch(() => {});
  const page = await context.newPage();
  const record = { requests: [], errors: [], dialogs: [], expectErrors: [], server: on.url };
  page.on('request', (request) => record.requests.push(request.url()));
  page.on('console', (message) => {
    if (message.type() !== 'error') return;
    const text = message.text();
    // Chromium logs every non-2xx fetch/navigation; tests that expect one say so.
    if (/Failed to load resource: the server responded with a status of (404|403)/.test(text)) return;
    if (record.expectErrors.some((pattern) => pattern.test(text))) return;
    record.errors.push(text);
  });
  page.on('pageerror', (error) => record.errors.push(`pageerror: ${error.message}`));
  page.on('dialog', async (dialog) => {
    record.dialogs.push(`${dialog.type()}: ${dialog.message()}`);
    await dialog.dismiss();
  });
  opened.push(record);
  return { page, context, record };
}

/** Saves a screenshot; `docs` names the README image it also becomes with SNIP_SCREENSHOTS. */
async function shot(page, name, docs = null) {
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: false });
  if (!DOCS_IMG || !docs) return;
  const viewport = page.viewportSize();
  await page.setViewportSize(DOCS_VIEWPORT);
  await page.screenshot({ path: join(DOCS_IMG, `${docs}.png`), fullPage: false });
  await page.setViewportSize(viewport);
}

/** A 1×1 PNG. */
const DOT_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

/**
 * Opens the editor and waits until its script has started: the page's
 * module first loads the reader's messages, so the editor's handlers may
 * be attached after the `load` event that `goto` waits for. Showing the
 * JS-only controls is the first, synchronous step of that start.
 */
async function openEditor(page) {
  await page.goto(`${server.url}/new`);
  await page.waitForSelector('#add-file', { state: 'visible' });
}

/** Creates a paste from a file picked in the editor and opens it. */
async function createFromFile(page, file, { encrypt = false } = {}) {
  await openEditor(page);
  await page.setInputFiles('#file', file);
  await page.waitForSelector('#attachment:not([hidden])');
  if (encrypt) await page.check('#encrypt');
  await page.click('button[type=submit]');
  await page.waitForSelector('#result:not([hidden])');
  await page.goto(await page.inputValue('#result-url'));
}

const PYTHON = `import sys

def greet(name: str) -> str:
    """Say hello."""
    # a comment
    return f"hello {name}" * 2

class Greeter:
    def __init__(self):
        self.count = 0

if __name__ == "__main__":
    print(greet(sys.argv[1]))
`;

/** Fills the editor and creates the paste; returns the link shown. */
async function createInUi(page, content, { encrypt = false, password = '', burn = false, name = '', ttl = '', base = server.url } = {}) {
  await page.goto(`${base}/new`);
  await page.fill('#content', content);
  if (name) await page.fill('#name', name);
  if (ttl) await page.selectOption('#ttl', ttl);
  if (burn) await page.check('#burn');
  if (encrypt) {
    await page.check('#encrypt');
    if (password) await page.fill('#password', password);
  }
  await page.click('button[type=submit]');
  await page.waitForSelector('#result:not([hidden])', { timeout: 20000 });
  return page.inputValue('#result-url');
}

describe('creating and viewing', () => {
  test('a paste made in the editor is shown highlighted', async () => {
    for (const colorScheme of ['light', 'dark']) {
      const { page, context } = await newPage({ colorScheme });
      await openEditor(page);
      await page.fill('#content', PYTHON);
      // Auto-detection names the language while typing.
      await page.waitForFunction(() => document.querySelector('#lang option[value=""]').textContent.includes('Python'));
      await shot(page, `new-${colorScheme}`, colorScheme === 'light' ? 'new-paste' : null);
      await page.keyboard.press('Control+Enter');
      await page.waitForSelector('#result:not([hidden])');
      await shot(page, `created-${colorScheme}`);
      const link = await page.inputValue('#result-url');
      assert.match(link, new RegExp(`^${server.url}/[0-9a-z]{13}$`));
      await page.goto(link);
      await page.waitForSelector('#code.hljs .hljs-keyword');
      const keywords = await page.$$eval('#code .hljs-keyword', (nodes) => nodes.map((n) => n.textContent));
      assert.ok(keywords.includes('def') && keywords.includes('class'), keywords.join(','));
      assert.equal(await page.textContent('.meta .lang'), 'Python');
      assert.equal(await page.$$eval('#code .line', (n) => n.length), PYTHON.split('\n').length - 1);
      assert.ok(await page.isVisible('#delete'), 'the creator sees Delete');
      await shot(page, `view-${colorScheme}`, colorScheme === 'light' ? 'view' : null);
      await context.close();
    }
  });

  test('Tab indents in the editor and Esc, Tab leaves it', async () => {
    const { page, context } = await newPage();
    await openEditor(page);
    await page.focus('#content');
    await page.keyboard.type('if x:');
    await page.keyboard.press('Enter');
    await page.keyboard.press('Tab');
    await page.keyboard.type('y()');
    assert.equal(await page.inputValue('#content'), 'if x:\n    y()');
    await page.keyboard.press('Shift+Tab');
    assert.equal(await page.inputValue('#content'), 'if x:\ny()');
    await page.keyboard.press('Escape');
    await page.keyboard.press('Tab');
    assert.notEqual(await page.evaluate(() => document.activeElement.id), 'content');
    await context.close();
  });

  test('copy, new paste from this, and delete', async () => {
    const { page, context } = await newPage();
    const link = await createInUi(page, 'line one\nline two\n', { name: 'notes.txt' });
    await page.goto(link);
    await page.click('#copy');
    await page.waitForFunction(() => document.querySelector('#copy').textContent === 'Copied');
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), 'line one\nline two\n');
    await page.click('#clone');
    await page.waitForURL(`${server.url}/new`);
    assert.equal(await page.inputValue('#content'), 'line one\nline two\n');
    assert.equal(await page.inputValue('#name'), 'notes.txt');
    await page.goto(link);
    await page.click('#delete');
    await page.click('#delete');
    await page.waitForSelector('text=Deleted');
    const gone = await fetch(link.replace(/\/([^/]+)$/, '/raw/$1'));
    assert.equal(gone.status, 404);
    await context.close();
  });

  test('an attached image is shown inline, a binary file as a download', async () => {
    const { page, context } = await newPage();
    await createFromFile(page, { name: 'dot.png', mimeType: 'image/png', buffer: DOT_PNG });
    const natural = await page.$eval('figure.media img', (img) => img.decode().then(() => img.naturalWidth));
    assert.equal(natural, 1);
    // Nothing to copy or edit in an image.
    assert.ok(await page.isHidden('#copy'));
    assert.ok(await page.isHidden('#clone'));
    await createFromFile(page, { name: 'blob.bin', mimeType: 'application/octet-stream', buffer: Buffer.from([0, 255, 1, 254]) });
    assert.match(await page.textContent('#content'), /blob\.bin/);
    assert.ok(await page.isVisible('#content a[href^="/download/"]'));
    assert.ok(await page.isHidden('#copy'));
    assert.ok(await page.isHidden('#clone'));
    await context.close();
  });
});

describe('line links', () => {
  test('click, shift-click a range, and load with #L3-L5', async () => {
    const body = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`).join('\n');
    const { id } = await apiCreate(server, body);
    const { page, context } = await newPage();
    await page.goto(`${server.url}/${id}`);
    await page.waitForSelector('#code.hljs');
    await page.click('#L3 a.ln');
    assert.equal(new URL(page.url()).hash, '#L3');
    assert.deepEqual(await page.$$eval('.line.hl', (n) => n.map((x) => x.id)), ['L3']);
    await page.click('#L6 a.ln', { modifiers: ['Shift'] });
    assert.equal(new URL(page.url()).hash, '#L3-L6');
    assert.deepEqual(await page.$$eval('.line.hl', (n) => n.map((x) => x.id)), ['L3', 'L4', 'L5', 'L6']);
    await page.goto(`${server.url}/${id}#L3-L5`);
    await page.reload();
    await page.waitForSelector('#code.hljs');
    assert.deepEqual(await page.$$eval('.line.hl', (n) => n.map((x) => x.id)), ['L3', 'L4', 'L5']);
    await context.close();
  });
});

/** Runs the snip CLI against the shared server; its stdout. */
function cli(args, { input = '', password } = {}) {
  const env = { ...process.env, SNIP_SERVER: server.url, SNIP_CLIENT_DIR: mkdtempSync(join(tmpdir(), 'snip-cli-')) };
  if (password !== undefined) env.SNIP_PASSWORD = password;
  const run = spawnSync(snipBinary(), args, { input, env, encoding: 'utf8' });
  assert.equal(run.status, 0, `snip ${args.join(' ')} failed: ${run.stderr}`);
  return run.stdout;
}

/** A build log of `lines` lines, about 110 bytes each, like a CI runner's. */
function buildLog(lines) {
  return Array.from({ length: lines }, (_, i) => {
    const n = i + 1;
    const stamp = `2026-11-28T02:${String(Math.floor(n / 60) % 60).padStart(2, '0')}:${String(n % 60).padStart(2, '0')}.${String(n % 1000).padStart(3, '0')}Z`;
    return `${stamp} [build] step ${n}: cc -O2 -c src/module_${n}.c -o out/module_${n}.o && echo "done ${n}" >> build.txt`;
  }).join('\n') + '\n';
}

describe('long pastes', () => {
  test('every line of a long paste can be reached: the rest is fetched, line links and the find box reach it, the page stays bounded', async () => {
    const body = Array.from({ length: 12000 }, (_, i) => `line ${i + 1}`).join('\n');
    const { id } = await apiCreate(server, body);
    const { page, context, record } = await newPage();
    await page.goto(`${server.url}/${id}#L11999`);
    await page.waitForSelector('#code[data-long=done]');
    assert.equal(await page.getAttribute('#truncated', 'data-next'), String(Buffer.byteLength(body.split('\n').slice(0, 10000).join('\n')) + 1));
    assert.ok(record.requests.includes(`${server.url}/raw/${id}`), 'the rest comes from /raw');
    // The link to a line past the first screen selects and shows it.
    await page.waitForSelector('#L11999.hl');
    assert.equal(await page.textContent('#L11999 .lc'), 'line 11999');
    assert.ok(await page.isVisible('#L11999'));
    assert.ok(await page.evaluate(() => document.querySelector('#L11999').getBoundingClientRect().top < innerHeight));
    // Not every line is in the page at once.
    const inPage = await page.$$eval('#code .line', (n) => n.length);
    assert.ok(inPage < 12000, `${inPage} lines in the page`);
    // The last line, by scrolling.
    await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
    await page.waitForSelector('#L12000');
    assert.equal(await page.textContent('#L12000 .lc'), 'line 12000');
    // Line numbers do not shift: the gutter is as wide for line 9 as for line 12000.
    const widths = await page.$$eval('#L9 a.ln, #L12000 a.ln', (links) => links.map((a) => a.getBoundingClientRect().width));
    assert.equal(widths[0], widths[1]);
    await page.evaluate(() => window.scrollTo(0, 0));
    // Ctrl+F goes to the find box, which searches the whole paste.
    await page.keyboard.press('Control+f');
    assert.equal(await page.evaluate(() => document.activeElement.id), 'find');
    await page.keyboard.type('line 11500');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#L11500.hl');
    assert.equal(await page.textContent('#find-count'), '1 of 1');
    assert.equal(await page.evaluate(() => getSelection().toString()), 'line 11500');
    await page.click('#L11500 a.ln');
    assert.equal(new URL(page.url()).hash, '#L11500');
    await page.fill('#find', 'no such text');
    await page.keyboard.press('Enter');
    assert.equal(await page.textContent('#find-count'), 'No match');
    await context.close();
  });

  test('a first line longer than the page holds is completed from the rest', async () => {
    const { id } = await apiCreate(server, `${'a'.repeat(300_000)}\nlast`);
    const { page, context } = await newPage();
    await page.goto(`${server.url}/${id}`);
    await page.waitForSelector('#code[data-long=done]');
    assert.equal(await page.$eval('#L1 .lc', (node) => node.textContent.length), 300_000);
    assert.equal(await page.textContent('#L2 .lc'), 'last');
    await context.close();
  });

  test('a build log is shown whole, as plain text (not guessed code)', async () => {
    const log = buildLog(5000);
    assert.ok(log.length > 512 * 1024);
    const { id } = await apiCreate(server, log);
    const { page, context } = await newPage();
    await page.goto(`${server.url}/${id}`);
    await page.waitForSelector('#code[data-long=done]');
    assert.equal(await page.getAttribute('#code', 'data-language'), 'plaintext');
    assert.equal(await page.textContent('.meta .lang'), 'Plain text (detected)');
    assert.equal(await page.$$eval('#code .hljs-string, #code .hljs-built_in', (n) => n.length), 0);
    assert.ok(await page.isHidden('#truncated'));
    await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
    await page.waitForSelector('#L5000');
    assert.equal(await page.textContent('#L5000 .lc'), log.split('\n')[4999]);
    await context.close();
  });

  test('a long encrypted paste is decrypted and shown whole', async () => {
    const log = buildLog(12500);
    const link = cli(['put', '--encrypt'], { input: log }).trim();
    const { page, context } = await newPage();
    await page.goto(`${link}&L12345`);
    await page.waitForSelector('#L12345.hl');
    assert.equal(await page.textContent('#L12345 .lc'), log.split('\n')[12344]);
    assert.ok((await page.$$eval('#code .line', (n) => n.length)) < 12500);
    await context.close();
  });
});

describe('burn after reading', () => {
  test('the interstitial reveals once, never on load', async () => {
    const secret = 'the launch code is 0000';
    const { id } = await apiCreate(server, secret, { burn: 'true' });
    for (const colorScheme of ['light', 'dark']) {
      const { page, context } = await newPage({ colorScheme });
      await page.goto(`${server.url}/${id}`);
      await page.waitForSelector('#reveal button');
      assert.ok(!(await page.content()).includes(secret));
      await shot(page, `burn-${colorScheme}`);
      await context.close();
    }
    // Loading the page (twice) consumed nothing.
    assert.equal((await fetch(`${server.url}/api/pastes/${id}`)).status, 200);
    const { page, context } = await newPage();
    await page.goto(`${server.url}/${id}`);
    await page.click('#reveal button');
    await page.waitForSelector('#code .lc');
    assert.equal(await page.textContent('#code .lc'), secret);
    assert.match(await page.textContent('article'), /destroyed on the server/);
    await shot(page, 'burn-revealed-light');
    assert.equal((await fetch(`${server.url}/api/pastes/${id}`)).status, 404);
    await page.reload();
    assert.match(await page.textContent('h1'), /Paste not found/);
    await context.close();
  });
});

describe('end-to-end encryption', () => {
  test('round trip without a password; the server never sees text or key', async () => {
    const secret = 'fn main() { println!("only the link holder reads this"); }';
    const { page, context } = await newPage();
    const link = await createInUi(page, secret, { encrypt: true, name: 'main.rs' });
    const url = new URL(link);
    assert.match(url.hash, /^#[A-Za-z0-9_-]{43}$/);
    const id = url.pathname.slice(1);
    // An ID alone gets nothing: the ciphertext is served only with the proof of key.
    assert.equal((await fetch(`${server.url}/raw/${id}`)).status, 403);
    const proof = encodeBase64Url(await proofOf(decodeKey(url.hash.slice(1))));
    const proved = await fetch(`${server.url}/raw/${id}`, { headers: { 'x-snip-proof': proof } });
    const stored = Buffer.from(await proved.arrayBuffer());
    assert.equal(stored.subarray(0, 4).toString(), 'SNIP');
    assert.ok(!stored.includes(Buffer.from('only the link holder')), 'plaintext on the server');
    assert.ok(!stored.includes(Buffer.from('main.rs')), 'file name on the server');
    assert.ok(!stored.includes(Buffer.from(url.hash.slice(1))), 'key text on the server');
    assert.ok(!stored.includes(Buffer.from(decodeKey(url.hash.slice(1)))), 'key bytes on the server');
    const meta = await (await fetch(`${server.url}/api/pastes/${id}`)).json();
    assert.equal(meta.encrypted, true);
    assert.equal(meta.name, null);
    assert.equal(meta.lang, null);
    const requests = [];
    page.on('request', (r) => requests.push(r.url()));
    await page.goto(link);
    await page.waitForSelector('#code .hljs-keyword');
    assert.equal(await page.textContent('#code .lc'), secret);
    assert.equal(await page.textContent('.title'), 'main.rs');
    assert.ok(requests.every((r) => !r.includes(url.hash.slice(1))), 'the key was sent in a request');
    await shot(page, 'encrypted-view-light');
    // Without the key: a clear message, no broken page.
    await page.goto(`${server.url}/${id}`);
    await page.waitForSelector('#status:not([hidden])');
    assert.match(await page.textContent('#status'), /no key/);
    await context.close();
  });

  test('with a password: a wrong one is refused clearly, the right one opens it', async () => {
    const { page, context } = await newPage({ colorScheme: 'dark' });
    const link = await createInUi(page, 'password-protected text', { encrypt: true, password: 'correct horse' });
    await page.goto(link);
    await page.waitForSelector('#unlock:not([hidden])');
    await shot(page, 'encrypted-password-dark');
    await page.fill('#password', 'wrong horse');
    await page.click('#unlock button');
    await page.waitForSelector('#status[data-kind=error]');
    assert.match(await page.textContent('#status'), /Wrong password/);
    assert.ok(await page.isVisible('#unlock'));
    await page.fill('#password', 'correct horse');
    await page.click('#unlock button');
    await page.waitForSelector('#code .lc');
    assert.equal(await page.textContent('#code .lc'), 'password-protected text');
    assert.ok(!(await page.isVisible('#unlock')));
    await context.close();
  });

  /** Runs the `snip` CLI against the test server; returns its stdout. */
  test('browser-made ciphertext is decrypted by snip get, with and without a password', async () => {
    const { page, context } = await newPage();
    const plain = await createInUi(page, 'made in the browser, read by the CLI', { encrypt: true });
    assert.equal(cli(['get', plain]), 'made in the browser, read by the CLI');
    const locked = await createInUi(page, 'browser secret behind a password', { encrypt: true, password: 'pässwort 1' });
    assert.equal(cli(['get', locked], { password: 'pässwort 1' }), 'browser secret behind a password');
    await context.close();
  });

  test('CLI-made ciphertext (snip put --encrypt) is decrypted in the browser', async () => {
    const link = cli(['put', '--encrypt', '--name', 'cli.py'], { input: 'print("made by the CLI")' }).trim();
    assert.match(link, /#[A-Za-z0-9_-]{43}$/);
    const { page, context } = await newPage();
    await page.goto(link);
    await page.waitForSelector('#code .lc');
    assert.equal(await page.textContent('#code .lc'), 'print("made by the CLI")');
    assert.equal(await page.textContent('.title'), 'cli.py');
    const locked = cli(['put', '--password'], { input: 'CLI secret', password: 'hunter2 hunter2' }).trim();
    await page.goto(locked);
    await page.waitForSelector('#unlock:not([hidden])');
    await page.fill('#password', 'hunter2 hunter2');
    await page.click('#unlock button');
    await page.waitForSelector('#code .lc');
    assert.equal(await page.textContent('#code .lc'), 'CLI secret');
    await context.close();
  });

  /** The status of the paste's metadata: 200 while it exists, 404 once burnt. */
  async function metaStatus(link) {
    const id = new URL(link).pathname.slice(1);
    return (await fetch(`${server.url}/api/pastes/${id}`)).status;
  }

  test('an encrypted burn paste asks the password in its card before revealing; a wrong one leaves it intact', async () => {
    const { page, context } = await newPage();
    const link = await createInUi(page, 'burn after the right password', { encrypt: true, burn: true, password: 'sesame' });
    await page.goto(link);
    // One card says both things up front and holds the field.
    const card = await page.textContent('section.burn');
    assert.match(card, /needs a password/);
    assert.match(card, /destroyed as soon as it is opened/);
    assert.ok(await page.isVisible('section.burn #reveal-password'));
    assert.ok(await page.isEnabled('#reveal button'));
    assert.ok(await page.isHidden('#unlock'));
    await shot(page, 'burn-password');
    await page.fill('#reveal-password', 'sesame?');
    await page.click('#reveal button');
    await page.waitForSelector('#status[data-kind=error]');
    assert.match(await page.textContent('#status'), /Wrong password.*intact/);
    assert.equal(await metaStatus(link), 200, 'a wrong password burnt the paste');
    assert.ok(await page.isVisible('#reveal-password'));
    await page.fill('#reveal-password', 'sesame');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#code .lc');
    assert.equal(await page.textContent('#code .lc'), 'burn after the right password');
    assert.equal(await metaStatus(link), 404);
    // A revealed burn paste has nothing left to delete, though this browser made it.
    assert.ok(await page.isHidden('#delete'));
    await context.close();
  });


  test('a link whose key has a changed character leaves an encrypted burn paste intact', async () => {
    const { page, context } = await newPage();
    const link = await createInUi(page, 'burn for the whole link only', { encrypt: true, burn: true });
    const at = link.length - 5;
    const typo = link.slice(0, at) + (link[at] === 'A' ? 'B' : 'A') + link.slice(at + 1);
    await page.goto(typo);
    await page.click('#reveal button');
    await page.waitForSelector('#status[data-kind=error]');
    assert.match(await page.textContent('#status'), /does not open the paste.*intact/);
    assert.equal(await metaStatus(link), 200, 'a wrong key burnt the paste');
    await page.goto('about:blank');
    await page.goto(link);
    await page.click('#reveal button');
    await page.waitForSelector('#code .lc');
    assert.equal(await page.textContent('#code .lc'), 'burn for the whole link only');
    assert.equal(await metaStatus(link), 404);
    await context.close();
  });

  test('an encrypted burn paste is revealed, then decrypted', async () => {
    const { page, context } = await newPage();
    const link = await createInUi(page, 'burn and encrypt', { encrypt: true, burn: true });
    await page.goto(link);
    await page.click('#reveal button');
    await page.waitForSelector('#code .lc');
    assert.equal(await page.textContent('#code .lc'), 'burn and encrypt');
    await context.close();
  });
});

describe('safety', () => {
  const PAYLOAD = [
    '<script>window.__pwned = 1; alert(1)</script>',
    '"><img src=x onerror="window.__pwned = 2; alert(2)">',
    "'><svg onload=alert(3)>",
    '</code></pre><iframe src="javascript:alert(4)"></iframe>',
  ].join('\n');

  for (const [label, lang] of [
    ['plain', null],
    ['highlighted as HTML', 'html'],
  ]) {
    test(`markup in a paste is shown as text and runs nothing (${label})`, async () => {
      const { id } = await apiCreate(server, PAYLOAD, lang ? { lang } : {});
      const { page, context } = await newPage();
      await page.goto(`${server.url}/${id}`);
      await page.waitForSelector('#code.hljs');
      await page.waitForTimeout(200);
      assert.equal(await page.evaluate(() => window.__pwned), undefined);
      assert.equal(await page.$$eval('#code img, #code svg, #code iframe, #code script', (n) => n.length), 0);
      const shown = await page.$$eval('#code .lc', (nodes) => nodes.map((n) => n.textContent).join('\n'));
      assert.equal(shown, PAYLOAD);
      await context.close();
    });
  }

  test('markup in an encrypted paste is shown as text and runs nothing', async () => {
    const { page, context } = await newPage();
    const link = await createInUi(page, PAYLOAD, { encrypt: true, name: 'x.html' });
    await page.goto(link);
    await page.waitForSelector('#code .lc');
    await page.waitForTimeout(200);
    assert.equal(await page.evaluate(() => window.__pwned), undefined);
    assert.equal(await page.$$eval('#code img, #code svg, #code iframe, #code script', (n) => n.length), 0);
    assert.equal(await page.$$eval('#code .lc', (nodes) => nodes.map((n) => n.textContent).join('\n')), PAYLOAD);
    await context.close();
  });

  test('without JavaScript a paste is still readable', async () => {
    const { id } = await apiCreate(server, PYTHON);
    const { page, context, record } = await newPage({ javaScriptEnabled: false });
    await page.goto(`${server.url}/${id}`);
    const shown = await page.$$eval('#code .lc', (nodes) => nodes.map((n) => n.textContent).join('\n'));
    assert.equal(`${shown}\n`, PYTHON);
    assert.ok(await page.isVisible('a[href^="/raw/"]'));
    await shot(page, 'view-nojs-light');
    assert.ok(record.requests.length > 0);
    await context.close();
  });
});

describe('error pages', () => {
  test('not found, mistyped link', async () => {
    const { id } = await apiCreate(server, 'x');
    const last = id.at(-1);
    const typo = id.slice(0, -2) + id.at(-1) + id.at(-2); // swap the last two characters
    for (const colorScheme of ['light', 'dark']) {
      const { page, context } = await newPage({ colorScheme });
      const response = await page.goto(`${server.url}/${typo === id ? id.slice(0, -1) + (last === '2' ? '3' : '2') : typo}`);
      assert.equal(response.status(), 404);
      assert.equal(await page.textContent('h1'), 'This link looks mistyped');
      await shot(page, `error-mistyped-${colorScheme}`);
      await context.close();
    }
    const { page, context } = await newPage();
    const gone = await page.goto(`${server.url}/2222222222222`);
    assert.equal(gone.status(), 404);
    // A path that is no route at all gets a page for people, not API hints.
    const nowhere = await page.goto(`${server.url}/no/such/page`);
    assert.equal(nowhere.status(), 404);
    assert.equal(await page.textContent('h1'), 'Page not found');
    assert.doesNotMatch(await page.textContent('main'), /POST|GET \//);
    await page.click('text=Create a new paste');
    await page.waitForURL(`${server.url}/`);
    await context.close();
  });
});

describe('layout and weight', () => {
  test('usable on a phone: nothing overflows sideways', async () => {
    const { id } = await apiCreate(server, PYTHON, { lang: 'python' });
    for (const colorScheme of ['light', 'dark']) {
      const { page, context } = await newPage({ colorScheme, viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
      for (const [path, name] of [
        ['/new', 'new'],
        [`/${id}`, 'view'],
      ]) {
        await page.goto(`${server.url}${path}`);
        if (name === 'view') await page.waitForSelector('#code.hljs');
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        assert.ok(overflow <= 0, `${path} overflows by ${overflow}px`);
        // The header's links keep their words together ("New paste" is not "New" over "paste").
        const links = await page.$$eval('header.top a', (anchors) =>
          anchors.map((a) => {
            // A flex item is one box however its text wraps; its text's range has a box a line.
            const text = document.createRange();
            text.selectNodeContents(a);
            return { text: a.textContent, lines: text.getClientRects().length };
          }),
        );
        assert.ok(links.length >= 3);
        for (const link of links) assert.equal(link.lines, 1, `${path}: ${JSON.stringify(links)}`);
        if (name === 'view') {
          // The meta line wraps between its items, never inside one or off the screen.
          const items = await page.$$eval('.meta > span:not(:empty)', (spans) =>
            spans.map((span) => ({ right: span.getBoundingClientRect().right, lines: span.getClientRects().length })),
          );
          assert.ok(items.length >= 3);
          for (const item of items) assert.ok(item.right <= 390 && item.lines === 1, JSON.stringify(items));
        }
        await shot(page, `phone-${name}-${colorScheme}`);
      }
      await context.close();
    }
  });

  test('a view page weighs at most 150 KB compressed', async () => {
    const body = 'x'.repeat(1000) + '\n' + PYTHON;
    const { id } = await apiCreate(server, body.slice(0, 1024), { lang: 'python' });
    const weights = {};
    for (const path of [`/${id}`, '/new']) {
      const { page, context } = await newPage();
      const urls = new Set();
      page.on('request', (r) => urls.add(r.url()));
      await page.goto(`${server.url}${path}`);
      await page.waitForLoadState('networkidle');
      let total = 0;
      let gzipped = 0;
      const parts = [];
      for (const url of urls) {
        const { size, encoding } = await transferSize(url);
        total += size;
        // The same bytes gzipped (-9), for a figure that does not depend on brotli.
        const identity = Buffer.from(await (await fetch(url, { headers: { accept: 'text/html,*/*' } })).arrayBuffer());
        gzipped += gzipSync(identity, { level: 9 }).length;
        parts.push(`${new URL(url).pathname} ${size} B ${encoding}`);
      }
      weights[path === '/new' ? 'new' : 'view'] = Math.max(total, gzipped);
      // Markdown rendering and the QR code load only where they are used.
      assert.deepEqual([...urls].filter((u) => /\/assets\/(markdown|qr)-/.test(u)), [], path);
      console.log(
        `page weight of ${path === '/new' ? 'the new-paste page' : 'a 1 KiB paste view'}: ${total} bytes as served, ${gzipped} gzipped (${parts.join(', ')})`,
      );
      await context.close();
    }
    assert.ok(weights.view <= 150 * 1000, `view page weighs ${weights.view} bytes`);
  });
});

/** Bytes on the wire for a GET with a browser's Accept-Encoding (no decompression). */
async function transferSize(url) {
  const http = await import('node:http');
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers: { accept: 'text/html,*/*', 'accept-encoding': 'gzip, deflate, br' } }, (response) => {
        let size = 0;
        response.on('data', (chunk) => {
          size += chunk.length;
        });
        response.on('end', () => resolve({ size, encoding: response.headers['content-encoding'] || 'identity' }));
      })
      .on('error', reject);
  });
}

describe('more ways in', () => {
  test('a delete link gives its holder the Delete button', async () => {
    const created = await apiCreate(server, 'delete me');
    const { page, context } = await newPage();
    await page.goto(`${server.url}/${created.id}#delete=${created.delete_token}`);
    await page.waitForSelector('#delete:not([hidden])');
    assert.equal(new URL(page.url()).hash, '', 'the token leaves the address bar');
    await page.click('#delete');
    await page.click('#delete');
    await page.waitForSelector('text=Deleted');
    assert.equal((await fetch(`${server.url}/raw/${created.id}`)).status, 404);
    await context.close();
  });

  test('a delete link never replaces the token this browser holds', async () => {
    const created = await apiCreate(server, 'keep my token');
    const { page, context } = await newPage();
    await page.goto(`${server.url}/${created.id}#delete=${created.delete_token}`);
    await page.waitForSelector('#delete:not([hidden])');
    // Elsewhere first: a change of fragment alone would not load the page again.
    await page.goto(`${server.url}/new`);
    await page.goto(`${server.url}/${created.id}#delete=forged0000000000000000000000000000`);
    await page.waitForSelector('#status:not([hidden])');
    assert.match(await page.textContent('#status'), /saved one is kept/);
    assert.equal(new URL(page.url()).hash, '', 'the forged token leaves the address bar');
    const held = await page.evaluate((id) => JSON.parse(localStorage.getItem('snip.tokens'))[id].token, created.id);
    assert.equal(held, created.delete_token);
    await page.click('#delete');
    await page.click('#delete');
    await page.waitForSelector('text=Deleted');
    assert.equal((await fetch(`${server.url}/raw/${created.id}`)).status, 404);
    await context.close();
  });

  test('a dropped text file goes into the editor, named', async () => {
    const { page, context } = await newPage();
    await openEditor(page);
    await page.evaluate(() => {
      const data = new DataTransfer();
      data.items.add(new File(['fn main() {}\n'], 'main.rs', { type: 'text/x-rust' }));
      const form = document.querySelector('#new');
      form.dispatchEvent(new DragEvent('dragenter', { dataTransfer: data, bubbles: true }));
      form.dispatchEvent(new DragEvent('drop', { dataTransfer: data, bubbles: true, cancelable: true }));
    });
    await page.waitForFunction(() => document.querySelector('#content').value === 'fn main() {}\n');
    assert.equal(await page.inputValue('#name'), 'main.rs');
    assert.equal(await page.inputValue('#lang'), 'rust');
    await context.close();
  });

  test('an encrypted image is decrypted and shown inline', async () => {
    const { page, context } = await newPage();
    await createFromFile(page, { name: 'dot.png', mimeType: 'image/png', buffer: DOT_PNG }, { encrypt: true });
    // The image is inserted after the page fetched and decrypted the body;
    // $eval does not wait for it.
    await page.waitForSelector('figure.media img');
    const src = await page.$eval('figure.media img', (img) => img.decode().then(() => img.src));
    assert.match(src, /^blob:/);
    assert.equal(await page.textContent('.title'), 'dot.png');
    await context.close();
  });

  test('a burn paste revealed without JavaScript, then viewed', async () => {
    const { id } = await apiCreate(server, 'no script needed', { burn: 'true' });
    const { page, context } = await newPage({ javaScriptEnabled: false });
    await page.goto(`${server.url}/${id}`);
    await page.click('#reveal button');
    await page.waitForSelector('#code .lc');
    assert.equal(await page.textContent('#code .lc'), 'no script needed');
    await context.close();
  });
});

describe('size limits', () => {
  test('a file over the limit is refused in KiB/MiB that tell the two apart', async () => {
    const { page, context } = await newPage();
    await openEditor(page);
    await page.setInputFiles('#file', { name: 'big.bin', mimeType: 'application/octet-stream', buffer: Buffer.alloc(17_000_000) });
    await page.waitForSelector('#form-status[data-kind=error]');
    assert.equal(await page.textContent('#form-status'), 'big.bin is 16.2 MiB; this server takes at most 16 MiB.');
    await context.close();
  });
});

describe('viewer comforts', () => {
  test('soft wrap is remembered; shortcuts work and are ignored while typing', async () => {
    const body = `short\n${'a-very-long-line '.repeat(40)}\nend\n`;
    const { id } = await apiCreate(server, body);
    const { page, context } = await newPage();
    await page.goto(`${server.url}/${id}`);
    await page.waitForSelector('#code.hljs');
    const width = () => page.$eval('#code', (pre) => pre.scrollWidth - pre.clientWidth);
    assert.ok((await width()) > 0, 'the long line scrolls sideways');
    await page.click('#wrap');
    assert.equal(await page.getAttribute('#wrap', 'aria-pressed'), 'true');
    assert.ok((await width()) <= 0, 'wrapped: nothing scrolls sideways');
    await page.reload();
    await page.waitForSelector('#code.hljs.wrap');
    await page.keyboard.press('w');
    assert.equal(await page.getAttribute('#wrap', 'aria-pressed'), 'false');
    // Keys typed into a field are the field's.
    await page.focus('#theme');
    await page.keyboard.press('w');
    assert.equal(await page.getAttribute('#wrap', 'aria-pressed'), 'false');
    await page.focus('#code');
    await page.keyboard.press('?');
    await page.waitForSelector('#shortcuts[role=dialog]');
    assert.match(await page.textContent('#shortcuts'), /Copy the link/);
    await shot(page, 'shortcuts-light');
    await page.keyboard.press('Escape');
    await page.waitForSelector('#shortcuts', { state: 'detached' });
    await page.keyboard.press('c');
    await page.waitForFunction(() => document.querySelector('#copy').textContent === 'Copied');
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), body);
    await page.keyboard.press('l');
    await page.waitForSelector('#status:has-text("Link copied")');
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), `${server.url}/${id}`);
    await page.keyboard.press('r');
    await page.waitForURL(`${server.url}/raw/${id}`);
    await page.goto(`${server.url}/${id}`);
    await page.waitForSelector('#code.hljs');
    await page.keyboard.press('n');
    await page.waitForURL(`${server.url}/new`);
    await context.close();
  });

  test('the theme switch overrides the system and is remembered', async () => {
    const { id } = await apiCreate(server, PYTHON, { lang: 'python' });
    const { page, context } = await newPage({ colorScheme: 'light' });
    const background = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    await page.goto(`${server.url}/${id}`);
    await page.waitForSelector('#code.hljs');
    const light = await background();
    await page.selectOption('#theme', 'dark');
    assert.equal(await page.getAttribute('html', 'data-theme'), 'dark');
    const dark = await background();
    assert.notEqual(dark, light);
    await page.goto(`${server.url}/new`);
    assert.equal(await page.inputValue('#theme'), 'dark');
    assert.equal(await background(), dark);
    await page.selectOption('#theme', 'auto');
    assert.equal(await background(), light);
    // Auto follows the system.
    await page.emulateMedia({ colorScheme: 'dark' });
    assert.equal(await background(), dark);
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.selectOption('#theme', 'light');
    assert.equal(await background(), light);
    await context.close();
  });

  test('a decrypted paste says it was end-to-end encrypted and shows its plaintext size', async () => {
    const { page, context } = await newPage();
    const text = 'secret words\n'.repeat(200);
    const link = await createInUi(page, text, { encrypt: true });
    await page.goto(link);
    await page.waitForSelector('#code .lc');
    assert.equal(await page.textContent('.meta .badge'), 'end-to-end encrypted');
    assert.equal(await page.textContent('.meta .badge + span'), '2.5 KiB');
    await context.close();
  });

  test('view page shots: light, dark and phone width', async () => {
    const { id } = await apiCreate(server, PYTHON, { lang: 'python', name: 'greet.py' });
    for (const [colorScheme, viewport, name] of [
      ['light', undefined, 'view-page-light'],
      ['dark', undefined, 'view-page-dark'],
      ['light', { width: 390, height: 844 }, 'view-page-phone'],
    ]) {
      const { page, context } = await newPage({ colorScheme, ...(viewport ? { viewport, isMobile: true } : {}) });
      await page.goto(`${server.url}/${id}`);
      await page.waitForSelector('#code.hljs');
      await shot(page, name);
      if (DOCS_IMG && viewport) await page.screenshot({ path: join(DOCS_IMG, `${name}.png`) });
      else if (DOCS_IMG) await shot(page, name, name);
      await context.close();
    }
  });
});

/** The dark modules of the QR code drawn on `#qr`, read back from its pixels. */
async function qrModules(page, count, selector = '#qr') {
  return page.$eval(
    selector,
    (canvas, n) => {
      const scale = canvas.width / (n + 8);
      const { data } = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
      const rows = [];
      for (let r = 0; r < n; r++) {
        let row = '';
        for (let c = 0; c < n; c++) {
          const x = Math.floor((c + 4 + 0.5) * scale);
          const y = Math.floor((r + 4 + 0.5) * scale);
          row += data[(y * canvas.width + x) * 4] < 128 ? '#' : '.';
        }
        rows.push(row);
      }
      return rows;
    },
    count,
  );
}

function expectedModules(text) {
  const qr = qrcode(0, 'M');
  qr.addData(text, 'Byte');
  qr.make();
  const n = qr.getModuleCount();
  return Array.from({ length: n }, (_, r) => Array.from({ length: n }, (_, c) => (qr.isDark(r, c) ? '#' : '.')).join(''));
}

describe('share panel', () => {
  test('link, copy, QR code of the whole link (key included) and a summary', async () => {
    for (const colorScheme of ['light', 'dark']) {
      const { page, context, record } = await newPage({ colorScheme });
      await page.goto(`${server.url}/new`);
      await page.waitForLoadState('networkidle');
      assert.deepEqual(record.requests.filter((u) => /\/assets\/qr-/.test(u)), [], 'the QR module loads only when needed');
      const link = await createInUi(page, 'share me', { encrypt: true, burn: true, ttl: '1d' });
      assert.match(link, /#[A-Za-z0-9_-]{43}$/);
      await page.waitForSelector('#qr:not([hidden])');
      assert.equal(record.requests.filter((u) => /\/assets\/qr-/.test(u)).length, 1);
      const expected = expectedModules(link);
      assert.deepEqual(await qrModules(page, expected.length), expected);
      const summary = await page.$$eval('#result-summary li', (items) => items.map((li) => li.textContent));
      assert.match(summary[0], /^Expires tomorrow \(/);
      assert.match(summary[1], /^Burns after reading/);
      assert.match(summary[2], /^End-to-end encrypted/);
      assert.match(summary[3], /anyone with the link/);
      await shot(page, `share-${colorScheme}`, `share-${colorScheme}`);
      await page.click('#copy-url');
      assert.equal(await page.evaluate(() => navigator.clipboard.readText()), link);
      await context.close();
    }
    const { page, context } = await newPage({ viewport: { width: 390, height: 844 }, isMobile: true });
    const link = await createInUi(page, 'plain and kept', {});
    await page.waitForSelector('#qr:not([hidden])');
    const expected = expectedModules(link);
    assert.deepEqual(await qrModules(page, expected.length), expected);
    const summary = await page.$$eval('#result-summary li', (items) => items.map((li) => li.textContent));
    assert.equal(summary[0], 'Never expires.');
    assert.match(summary[1], /no burn after reading/);
    assert.match(summary[2], /^Not encrypted/);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `the share panel overflows by ${overflow}px`);
    await shot(page, 'share-phone');
    if (DOCS_IMG) await page.screenshot({ path: join(DOCS_IMG, 'share-phone.png') });
    await context.close();
  });
});

describe('share on the paste page', () => {
  test('the Share button and s open the link with its key, a copy button, its QR code and the summary', async () => {
    const { page, context } = await newPage();
    const link = await createInUi(page, 'shared later', { encrypt: true, password: 'pw', ttl: '1d' });
    await page.goto(link);
    await page.waitForSelector('#unlock:not([hidden])');
    await page.fill('#password', 'pw');
    await page.click('#unlock button');
    await page.waitForSelector('#code .lc');
    await page.click('#share');
    await page.waitForSelector('#share-qr:not([hidden])');
    assert.equal(await page.inputValue('#share-url'), link);
    const expected = expectedModules(link);
    assert.deepEqual(await qrModules(page, expected.length, '#share-qr'), expected);
    const summary = await page.$$eval('#share-summary li', (items) => items.map((li) => li.textContent));
    assert.match(summary[0], /^Expires (tomorrow|in 24 hours) \(/);
    assert.match(summary[1], /no burn after reading/);
    assert.match(summary[2], /^End-to-end encrypted.*also need the password/);
    await shot(page, 'share-view');
    await page.click('#share-copy');
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), link);
    await page.keyboard.press('Escape');
    assert.equal(await page.$('#share-dialog'), null);
    assert.equal(await page.evaluate(() => document.activeElement.id), 'share');
    // The shortcut, on a plain paste; the help lists it.
    const { id } = await apiCreate(server, 'plain');
    await page.goto(`${server.url}/${id}`);
    await page.waitForSelector('#code.hljs');
    await page.keyboard.press('s');
    await page.waitForSelector('#share-dialog');
    assert.equal(await page.inputValue('#share-url'), `${server.url}/${id}`);
    assert.match(await page.textContent('#share-summary'), /Not encrypted/);
    await page.click('#share-close');
    await page.keyboard.press('?');
    assert.match(await page.textContent('#shortcuts'), /Share/);
    await context.close();
  });
});

describe('small comforts', () => {
  test('adding the key to an open tab opens the encrypted paste without a reload', async () => {
    const { page, context } = await newPage();
    const link = await createInUi(page, 'opened by its key', { encrypt: true });
    const url = new URL(link);
    await page.goto(`${url.origin}${url.pathname}`);
    await page.waitForSelector('#status[data-kind=error]');
    assert.match(await page.textContent('#status'), /no key/);
    await page.evaluate(() => {
      window.__samePage = true;
    });
    await page.evaluate((hash) => {
      location.hash = hash;
    }, url.hash);
    await page.waitForSelector('#code .lc');
    assert.equal(await page.textContent('#code .lc'), 'opened by its key');
    assert.ok(await page.isHidden('#status'));
    assert.equal(await page.evaluate(() => window.__samePage), true, 'no reload');
    await context.close();
  });

  test('a server that does not answer is said in plain words, never "Failed to fetch"', async () => {
    const gone = await startServer();
    const { page, context, record } = await newPage({}, gone);
    record.expectErrors.push(/ERR_CONNECTION_REFUSED|Failed to load resource/);
    await page.goto(`${gone.url}/new`);
    await page.fill('#content', 'nobody will store this');
    await gone.stop();
    await page.click('button[type=submit]');
    await page.waitForSelector('#form-status[data-kind=error]');
    const said = await page.textContent('#form-status');
    assert.match(said, /The server did not answer/);
    assert.doesNotMatch(said, /Failed to fetch/);
    await context.close();
  });

  test('a large upload shows its progress and can be cancelled; an attached image is previewed', async () => {
    const { page, context } = await newPage();
    await openEditor(page);
    await page.setInputFiles('#file', { name: 'dot.png', mimeType: 'image/png', buffer: DOT_PNG });
    await page.waitForSelector('#attachment-preview');
    assert.match(await page.getAttribute('#attachment-preview', 'src'), /^blob:/);
    assert.equal(await page.$eval('#attachment-preview', (img) => img.complete && img.naturalWidth), 1);
    await page.click('#attachment-remove');
    assert.equal(await page.$('#attachment-preview'), null);
    const big = Buffer.alloc(3 * 1024 * 1024, 7);
    await page.setInputFiles('#file', { name: 'big.bin', mimeType: 'application/octet-stream', buffer: big });
    await page.waitForSelector('#attachment:not([hidden])');
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: 64 * 1024 });
    await page.click('button[type=submit]');
    await page.waitForSelector('#upload-progress');
    assert.equal(await page.getAttribute('#upload-progress', 'max'), String(big.length));
    await page.click('#upload-cancel');
    await page.waitForSelector('#upload', { state: 'detached' });
    assert.match(await page.textContent('#form-status'), /cancelled; nothing was created/);
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
    await page.click('button[type=submit]');
    await page.waitForSelector('#result:not([hidden])');
    assert.equal(await page.$('#upload'), null);
    await context.close();
  });

  test('Markdown task lists keep disabled boxes; fenced code is highlighted', async () => {
    const text = '# Tasks\n\n- [x] done thing\n- [ ] open thing\n\n```rust\nfn main() { let x = "hi"; }\n```\n';
    const { id } = await apiCreate(server, text, { lang: 'markdown' });
    const { page, context } = await newPage();
    await page.goto(`${server.url}/${id}`);
    await page.waitForSelector('#rendered pre[data-highlighted=done]');
    const boxes = await page.$$eval('#rendered li input', (n) => n.map((b) => ({ type: b.type, checked: b.checked, disabled: b.disabled })));
    assert.deepEqual(boxes, [
      { type: 'checkbox', checked: true, disabled: true },
      { type: 'checkbox', checked: false, disabled: true },
    ]);
    assert.equal(await page.textContent('#rendered pre .hljs-keyword'), 'fn');
    assert.equal(await page.textContent('#rendered pre .hljs-string'), '"hi"');
    await context.close();
  });

  test('error pages keep the header: new paste, My pastes and a labelled theme switch', async () => {
    const { page, context } = await newPage();
    await page.goto(`${server.url}/aaaaaaaaaaaaa`);
    await page.waitForSelector('.error-page');
    assert.ok(await page.isVisible('header a[href="/new"]'));
    assert.ok(await page.isVisible('header a[href="/my"]'));
    assert.equal((await page.textContent('header label.theme')).trim().split(/\s/)[0], 'Theme');
    await context.close();
  });
});

const MARKDOWN = `# Release notes

Some *emphasis*, a [link](https://example.com/docs) and \`code\`.

![a remote chart](https://tracker.example/pixel.png)

| a | b |
|---|---|
| 1 | 2 |
`;

/** Markdown that tries everything a sanitiser must stop. */
const MARKDOWN_XSS = `# Title

<script>window.__pwned = 1</script>
<img src=x onerror="window.__pwned = 2">
<a href="javascript:window.__pwned = 3">click me</a>
[md link](javascript:window.__pwned=4)
[entity link](&#106;avascript:window.__pwned=5)
<div onmouseover="window.__pwned = 6" style="position:fixed;inset:0">cover</div>
<iframe src="javascript:window.__pwned = 7"></iframe>
<svg onload="window.__pwned = 8"></svg>
<form action="https://evil.example"><button>go</button></form>
<p id="copy">clobber</p>
![data](data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+)
`;

describe('markdown', () => {
  test('rendered by default, toggled to source with line links; remote images wait for a click', async () => {
    const { id } = await apiCreate(server, MARKDOWN, { lang: 'markdown' });
    const { page, context, record } = await newPage();
    await page.goto(`${server.url}/${id}`);
    await page.waitForSelector('#rendered h1');
    assert.equal(await page.textContent('#rendered h1'), 'Release notes');
    assert.equal(await page.textContent('#rendered em'), 'emphasis');
    assert.equal(await page.$$eval('#rendered td', (n) => n.length), 2);
    assert.ok(await page.isHidden('#code'));
    // The image is not fetched: a link to it stands in its place.
    assert.equal(await page.$$eval('#rendered img', (n) => n.length), 0);
    assert.equal(await page.getAttribute('#rendered a.remote-image', 'href'), 'https://tracker.example/pixel.png');
    assert.match(await page.textContent('#rendered a.remote-image'), /a remote chart/);
    assert.equal(await page.getAttribute('#rendered a[href="https://example.com/docs"]', 'rel'), 'noopener noreferrer nofollow');
    assert.ok(record.requests.some((u) => /\/assets\/markdown-/.test(u)));
    await shot(page, 'markdown-light');
    await page.click('#show-source');
    assert.ok(await page.isVisible('#code'));
    assert.ok(await page.isHidden('#rendered'));
    await page.click('#L3 a.ln');
    assert.equal(new URL(page.url()).hash, '#L3');
    await page.click('#show-rendered');
    assert.ok(await page.isVisible('#rendered'));
    // A link to lines opens the source.
    await page.goto(`${server.url}/${id}#L5`);
    await page.reload();
    await page.waitForSelector('#rendered', { state: 'attached' });
    assert.ok(await page.isVisible('#code'));
    assert.deepEqual(await page.$$eval('.line.hl', (n) => n.map((x) => x.id)), ['L5']);
    await context.close();
  });

  test('text that only looks like Markdown stays source', async () => {
    const { id } = await apiCreate(server, MARKDOWN);
    const { page, context } = await newPage();
    await page.goto(`${server.url}/${id}`);
    await page.waitForSelector('#code.hljs');
    await page.waitForLoadState('networkidle');
    assert.equal(await page.$$eval('#rendered, #show-source', (n) => n.length), 0);
    assert.equal(await page.textContent('.meta .lang'), 'Markdown (detected)');
    await context.close();
  });

  test('an encrypted Markdown paste is decrypted, then rendered', async () => {
    const { page, context } = await newPage();
    const link = await createInUi(page, MARKDOWN, { encrypt: true, name: 'NOTES.md' });
    await page.goto(link);
    await page.waitForSelector('#rendered h1');
    assert.equal(await page.textContent('#rendered h1'), 'Release notes');
    assert.equal(await page.$$eval('#rendered img', (n) => n.length), 0);
    await page.click('#show-source');
    assert.equal(await page.$$eval('#code .line', (n) => n.length), MARKDOWN.split('\n').length - 1);
    await context.close();
  });

  for (const encrypt of [false, true]) {
    test(`hostile Markdown is rendered inert${encrypt ? ' (encrypted)' : ''}`, async () => {
      const { page, context } = await newPage();
      let link;
      if (encrypt) {
        link = await createInUi(page, MARKDOWN_XSS, { encrypt: true, name: 'x.md' });
      } else {
        const { id } = await apiCreate(server, MARKDOWN_XSS, { lang: 'markdown' });
        link = `${server.url}/${id}`;
      }
      await page.goto(link);
      await page.waitForSelector('#rendered h1');
      // Whatever could fire on hover or click is given the chance to.
      await page.hover('#rendered');
      for (const anchor of await page.$$('#rendered a:not(.remote-image)')) await anchor.click({ modifiers: ['Alt'] }).catch(() => {});
      assert.equal(await page.evaluate(() => window.__pwned), undefined);
      const found = await page.$eval('#rendered', (root) => {
        const all = [...root.querySelectorAll('*')];
        return {
          tags: all.map((n) => n.tagName.toLowerCase()).filter((t) => ['script', 'iframe', 'svg', 'form', 'button', 'style'].includes(t)),
          // Images stay only when they come from snip itself.
          images: all.filter((n) => n.tagName === 'IMG').map((n) => n.src).filter((src) => new URL(src).origin !== location.origin),
          handlers: all.flatMap((n) => [...n.attributes].map((a) => a.name)).filter((a) => a.startsWith('on') || a === 'style' || a === 'id'),
          hrefs: all.map((n) => n.getAttribute('href')).filter((h) => h && !/^https?:/.test(h)),
        };
      });
      assert.deepEqual(found, { tags: [], images: [], handlers: [], hrefs: [] });
      assert.equal(await page.$$eval('#copy', (n) => n.length), 1, 'no element shadows the page');
      await context.close();
    });
  }
});

describe('hostile names', () => {
  const NAME = '"><img src=x onerror="window.__pwned=9">.txt';

  test('a file name with markup is shown as text on the view, in the title and in the share panel', async () => {
    const { id } = await apiCreate(server, 'named', { name: NAME });
    const { page, context } = await newPage();
    await page.goto(`${server.url}/${id}`);
    await page.waitForSelector('#code.hljs');
    assert.equal(await page.textContent('.title'), NAME);
    assert.equal(await page.title(), `${NAME} · snip`);
    assert.equal(await page.$$eval('main img', (n) => n.length), 0);
    const link = await createInUi(page, 'x', { encrypt: true, name: NAME });
    await page.waitForSelector('#qr:not([hidden])');
    assert.equal(await page.$$eval('#result img', (n) => n.length), 0);
    await page.goto(link);
    await page.waitForSelector('#code .lc');
    assert.equal(await page.textContent('.title'), NAME);
    assert.equal(await page.$$eval('main img', (n) => n.length), 0);
    assert.equal(await page.evaluate(() => window.__pwned), undefined);
    await context.close();
  });
});

describe('tenants in the browser', () => {
  const ADMIN = 'admin-token-for-e2e-0123456789abcdef';
  let closed;

  before(async () => {
    closed = await startServer(['--anonymous=off', `--admin-token=${ADMIN}`]);
  });

  after(async () => {
    await closed?.stop();
  });

  /** Creates a tenant on the closed server; returns its first token's {id, token}. */
  async function makeTenant(name) {
    const response = await fetch(`${closed.url}/api/admin/tenants`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name }),
    });
    assert.equal(response.status, 201);
    return (await response.json()).token;
  }

  /** Signs in through the page the new-paste page links to. */
  async function signIn(page, token) {
    await page.goto(`${closed.url}/new`);
    assert.match(await page.textContent('#signin-needed'), /This server takes pastes from signed-in users/);
    assert.equal(await page.$('#content'), null, 'no form for anonymous browsers');
    await page.click('text=Sign in with an API token');
    await page.waitForURL(/\/signin\?next=/);
    assert.equal(await page.getAttribute('#token', 'type'), 'password');
    await page.fill('#token', token);
    await page.click('#signin button[type=submit]');
    await page.waitForURL(`${closed.url}/new`);
    await page.waitForSelector('#content');
  }

  test('sign in, create a team paste, find it in My pastes, delete it, sign out', async () => {
    const { token } = await makeTenant('ann');
    const { page, context, record } = await newPage({}, closed);
    record.expectErrors.push(/status of 401/);
    await page.goto(`${closed.url}/signin`);
    await page.fill('#token', 'snip_0000000000000000000000000000000000000000');
    await page.click('#signin button[type=submit]');
    assert.match(await page.textContent('#signin-error'), /unknown or has been revoked/);

    await signIn(page, token);
    assert.equal(await page.textContent('#tenant-name'), 'ann');
    await page.fill('#content', 'for ann only');
    await page.selectOption('#visibility', 'team');
    await page.click('#new button[type=submit]');
    await page.waitForSelector('#result:not([hidden])');
    assert.match(await page.textContent('#result-summary'), /Team: only your tenant/);
    const link = await page.inputValue('#result-url');
    const id = new URL(link).pathname.slice(1);
    await page.goto(link);
    await page.waitForSelector('#code .lc');
    assert.equal(await page.textContent('#code .lc'), 'for ann only');
    const meta = await fetch(`${closed.url}/api/pastes/${id}`, { headers: { authorization: `Bearer ${token}` } });
    assert.equal((await meta.json()).visibility, 'team');

    // Neither the token nor the session is visible to the page's scripts.
    const stored = await page.evaluate(() => JSON.stringify({ ...localStorage }) + document.cookie);
    assert.ok(!stored.includes(token), 'the token is not in localStorage');
    assert.doesNotMatch(stored, /snip_session/);
    assert.ok(!(await page.content()).includes(token));

    await page.click('header >> text=My pastes');
    await page.waitForURL(`${closed.url}/my`);
    const row = page.locator(`#my-pastes tr[data-id="${id}"]`);
    assert.match(await row.textContent(), /team/);
    await shot(page, 'my-pastes');
    await row.locator('button.delete').click();
    await row.locator('text=Click again to delete').click();
    await page.waitForSelector(`#my-pastes tr[data-id="${id}"]`, { state: 'detached' });
    assert.match(await page.textContent('#my-status'), /Deleted/);
    assert.equal((await fetch(`${closed.url}/api/pastes/${id}`, { headers: { authorization: `Bearer ${token}` } })).status, 404);

    await page.click('#signout');
    await page.waitForURL(`${closed.url}/`);
    await page.waitForSelector('#signin-link');
    await page.goto(`${closed.url}/my`);
    await page.waitForSelector('section.my[data-signed-in="false"]');
    await context.close();
  });

  test('My pastes: the search box finds by text, name and language, without JavaScript', async () => {
    const { token } = await makeTenant('searcher');
    const create = async (body, query) => {
      const response = await fetch(`${closed.url}/?${query}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
        body,
      });
      assert.equal(response.status, 201);
      return (await response.json()).id;
    };
    const log = await create('the nightly build failed: disk full', 'name=nightly.log');
    const script = await create('echo hi', 'name=hello.sh&lang=bash');
    const sealed = await create('nightly ciphertext', 'encrypted=true&name=vault.bin');
    // No script runs: the box is a plain GET form.
    const { page, context, record } = await newPage({ javaScriptEnabled: false }, closed);
    record.expectErrors.push(/status of 400/);
    await page.goto(`${closed.url}/signin?next=/my`);
    await page.fill('#token', token);
    await page.click('#signin button[type=submit]');
    await page.waitForURL(`${closed.url}/my`);
    const rows = async () => page.$$eval('#my-pastes tr[data-id]', (trs) => trs.map((tr) => tr.dataset.id));
    assert.equal((await rows()).length, 3, 'the listing before any search');

    await page.fill('#my-q', 'Nightly');
    await page.click('#my-search button[type=submit]');
    await page.waitForURL(`${closed.url}/my?q=Nightly`);
    assert.deepEqual(await rows(), [log], 'the log by its name and text; never the encrypted text');
    assert.match(await page.textContent('#my-results'), /Best matches for “Nightly”/);
    assert.equal(await page.inputValue('#my-q'), 'Nightly', 'the box keeps the search');

    await page.fill('#my-q', 'bash');
    await page.press('#my-q', 'Enter');
    await page.waitForURL(`${closed.url}/my?q=bash`);
    assert.deepEqual(await rows(), [script]);
    await page.fill('#my-q', 'vault');
    await page.press('#my-q', 'Enter');
    await page.waitForURL(`${closed.url}/my?q=vault`);
    assert.deepEqual(await rows(), [sealed], 'an encrypted paste by its name');
    await shot(page, 'my-pastes-search');

    await page.fill('#my-q', 'nowhere');
    await page.press('#my-q', 'Enter');
    await page.waitForURL(`${closed.url}/my?q=nowhere`);
    assert.match(await page.textContent('#my-empty'), /No paste matches/);
    const refused = await page.goto(`${closed.url}/my?q=${'a'.repeat(256)}`);
    assert.equal(refused.status(), 400);
    assert.match(await page.textContent('main'), /at most 255 bytes/);
    await page.goto(`${closed.url}/my?q=nowhere`);
    await page.click('text=All pastes');
    await page.waitForURL(`${closed.url}/my`);
    assert.equal((await rows()).length, 3);
    await context.close();
  });

  test('revoking the token ends the browser session at the next page', async () => {
    const { id, token } = await makeTenant('bert');
    const { page, context, record } = await newPage({}, closed);
    record.expectErrors.push(/status of 401/);
    await signIn(page, token);
    const revoked = await fetch(`${closed.url}/api/admin/tokens/${id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${ADMIN}` },
    });
    assert.equal(revoked.status, 204);
    const response = await page.goto(`${closed.url}/my`);
    assert.equal(response.status(), 401);
    assert.match(await page.textContent('main'), /session has ended/);
    // The stale cookie was cleared with that answer: the next page is anonymous.
    await page.goto(`${closed.url}/new`);
    await page.waitForSelector('#signin-needed');
    await context.close();
  });

  test("a tenant program's refusal is shown beside the editor in its own words; the text stays to be fixed", async () => {
    const { token } = await makeTenant('cara');
    const set = await fetch(`${closed.url}/api/admin/tenants/cara/program`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/wasm' },
      body: wasmOf('examples/programs/refuse_credentials.wat'),
    });
    assert.equal(set.status, 200, await set.text());
    const { page, context, record } = await newPage({}, closed);
    record.expectErrors.push(/status of 422/);
    await signIn(page, token);
    const leaked = 'aws_access_key_id = AKIAIOSFODNN7EXAMPLE';
    await page.fill('#content', leaked);
    await page.click('#new button[type=submit]');
    await page.waitForSelector('#form-status[data-kind="error"]');
    assert.equal(await page.textContent('#form-status'), "refused: the paste contains an AWS access key ID");
    assert.equal(await page.inputValue('#content'), leaked, 'the editor keeps the text');
    assert.ok(await page.isHidden('#result'), 'no paste was made');
    const listed = await fetch(`${closed.url}/api/pastes`, { headers: { authorization: `Bearer ${token}` } });
    assert.deepEqual((await listed.json()).pastes, []);

    await page.fill('#content', 'aws_access_key_id = (ask the vault)');
    await page.click('#new button[type=submit]');
    await page.waitForSelector('#result:not([hidden])');
    const link = await page.inputValue('#result-url');
    await page.goto(link);
    await page.waitForSelector('#code .lc');
    assert.equal(await page.textContent('#code .lc'), 'aws_access_key_id = (ask the vault)');
    await context.close();
  });

  test('My pastes: names, sizes, expiry; gone pastes drop out; kept keys open encrypted ones; own pastes stay when signed in', async () => {
    const open = await startServer([`--admin-token=${ADMIN}`]);
    try {
      // bypassCSP lets axe-core (assertAccessible) run in the page.
      const { page } = await newPage({ bypassCSP: true }, open);
      const idOf = (link) => new URL(link).pathname.slice(1);
      await page.goto(`${open.url}/my`);
      assert.equal(await page.isChecked('#keep-keys'), false, 'keys are not kept by default');
      assert.match(await page.textContent('#keep-keys-hint'), /Anyone who can use this browser profile/);
      await page.check('#keep-keys');
      const named = await createInUi(page, 'named notes', { name: 'notes.txt', ttl: '1d', base: open.url });
      const secret = await createInUi(page, 'a secret', { encrypt: true, base: open.url });
      const burn = await createInUi(page, 'burn me', { burn: true, base: open.url });
      // Someone reads the burn paste: it is gone from the server.
      assert.equal((await fetch(`${open.url}/${idOf(burn)}/reveal`, { method: 'POST' })).status, 200);
      await page.goto(`${open.url}/my`);
      await page.waitForSelector('#my-local[data-state=done]');
      const namedRow = page.locator(`#my-local tr[data-id="${idOf(named)}"]`);
      assert.equal(await namedRow.locator('a').textContent(), 'notes.txt');
      assert.equal(await namedRow.locator('td').nth(1).textContent(), '11 bytes');
      // A day ahead reads "in 24 hours", or "tomorrow" within half a second of creating.
      assert.match(await namedRow.locator('td').nth(3).textContent(), /\((in 24 hours|tomorrow)\)$/);
      assert.equal(await page.$(`#my-local tr[data-id="${idOf(burn)}"]`), null, 'a burned paste drops out');
      assert.ok(!(await page.evaluate(() => localStorage.getItem('snip.tokens'))).includes(idOf(burn)), 'and is forgotten');
      const secretLink = page.locator(`#my-local tr[data-id="${idOf(secret)}"] a`);
      assert.equal(await secretLink.getAttribute('href'), new URL(secret).pathname + new URL(secret).hash);
      await secretLink.click();
      await page.waitForSelector('#code .lc');
      assert.equal(await page.textContent('#code .lc'), 'a secret');
      // Signed in, the browser's own (anonymous) pastes stay listed.
      const response = await fetch(`${open.url}/api/admin/tenants`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'bea' }),
      });
      const { token } = (await response.json()).token;
      await page.goto(`${open.url}/signin`);
      await page.fill('#token', token);
      await page.click('#signin button[type=submit]');
      await page.waitForSelector('#tenant-name');
      await page.goto(`${open.url}/my`);
      await page.waitForSelector('#my-browser[data-state=done]');
      assert.equal(await page.textContent('#my-browser-title'), 'Made in this browser');
      assert.equal(await page.locator(`#my-browser tr[data-id="${idOf(named)}"] a`).textContent(), 'notes.txt');
      await assertAccessible(page, 'My pastes (signed in)');
      // Turning keeping keys off forgets them.
      await page.uncheck('#keep-keys');
      assert.ok(!(await page.evaluate(() => localStorage.getItem('snip.tokens'))).includes(new URL(secret).hash.slice(1)));
    } finally {
      await open.stop();
    }
  });

  test("an anonymous browser's My pastes lists the pastes it created and deletes them", async () => {
    const { page, context } = await newPage();
    const link = await createInUi(page, 'made here');
    const id = new URL(link).pathname.slice(1);
    await page.click('header >> text=My pastes');
    await page.waitForURL(`${server.url}/my`);
    const row = page.locator(`#my-local tr[data-id="${id}"]`);
    await row.waitFor();
    await row.locator('button.delete').click();
    await row.locator('text=Click again to delete').click();
    await row.waitFor({ state: 'detached' });
    assert.equal((await fetch(`${server.url}/api/pastes/${id}`)).status, 404);
    await page.reload();
    await page.waitForSelector('#my-local-empty:not([hidden])');
    await context.close();
  });
});

/** axe-core's script (a pinned devDependency), run in pages by page.evaluate. */
const AXE = readFileSync(join(repoRoot, 'web', 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');

/** Runs axe-core over the page as it is; fails on any serious or critical violation. */
async function assertAccessible(page, state) {
  await page.evaluate(AXE);
  const violations = await page.evaluate(async () => {
    // WCAG 2.2's target size (24 px) too, which axe leaves off by default.
    const result = await globalThis.axe.run(document, { resultTypes: ['violations'], rules: { 'target-size': { enabled: true } } });
    return result.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id} (${v.impact}): ${v.help}: ${v.nodes.map((n) => n.target.join(' ')).slice(0, 5).join(', ')}`);
  });
  assert.deepEqual(violations, [], `accessibility of ${state}`);
}

describe('accessibility (axe-core)', () => {
  test('every page state has no serious or critical violation', async () => {
    for (const colorScheme of ['light', 'dark']) {
      const { page, context } = await newPage({ colorScheme, bypassCSP: true });
      await page.goto(`${server.url}/new`);
      await page.waitForSelector('#content');
      await assertAccessible(page, `new paste (${colorScheme})`);
      const link = await createInUi(page, PYTHON, { name: 'hello.py', ttl: '1d' });
      await page.waitForSelector('#qr:not([hidden])');
      await assertAccessible(page, `share panel (${colorScheme})`);
      await page.goto(link);
      await page.waitForSelector('#code.hljs');
      await assertAccessible(page, `view (${colorScheme})`);
      await page.click('#share');
      await page.waitForSelector('#share-qr:not([hidden])');
      await assertAccessible(page, `share dialog (${colorScheme})`);
      const { id } = await apiCreate(server, MARKDOWN.replace('![a remote chart](https://tracker.example/pixel.png)', '- [x] done\n- [ ] open'), { lang: 'markdown' });
      await page.goto(`${server.url}/${id}`);
      await page.waitForSelector('#rendered h1');
      await assertAccessible(page, `Markdown (${colorScheme})`);
      await context.close();
    }
    const { page: phone, context: phoneContext } = await newPage({ viewport: { width: 390, height: 844 }, isMobile: true, bypassCSP: true });
    const plain = await apiCreate(server, PYTHON);
    await phone.goto(`${server.url}/${plain.id}`);
    await phone.waitForSelector('#code.hljs');
    await assertAccessible(phone, 'view (phone)');
    await phoneContext.close();

    const { page, context } = await newPage({ bypassCSP: true });
    const long = await apiCreate(server, Array.from({ length: 12000 }, (_, i) => `line ${i + 1}`).join('\n'));
    await page.goto(`${server.url}/${long.id}`);
    await page.waitForSelector('#code[data-long=done]');
    await assertAccessible(page, 'long paste with its find box');
    const burn = await apiCreate(server, 'burns', { burn: 'true' });
    await page.goto(`${server.url}/${burn.id}`);
    await page.waitForSelector('#reveal button');
    await assertAccessible(page, 'burn interstitial');
    const burnLocked = await createInUi(page, 'burn and password', { encrypt: true, burn: true, password: 'pw' });
    await page.goto(burnLocked);
    await page.waitForSelector('#reveal-password');
    await assertAccessible(page, 'burn with password');
    const locked = await createInUi(page, 'password only', { encrypt: true, password: 'pw' });
    await page.goto(locked);
    await page.waitForSelector('#unlock:not([hidden])');
    await assertAccessible(page, 'password prompt');
    await page.goto(`${server.url}/my`);
    await page.waitForSelector('#my-local[data-state=done]');
    await assertAccessible(page, 'My pastes (anonymous)');
    await page.goto(`${server.url}/signin`);
    await assertAccessible(page, 'sign-in');
    await page.goto(`${server.url}/aaaaaaaaaaaaa`);
    await page.waitForSelector('.error-page');
    await assertAccessible(page, 'error page');
    await page.goto(`${server.url}/no/such/page`);
    await assertAccessible(page, 'page not found');
    await context.close();
  });
});

describe('several files', () => {
  /** Creates a paste of `files` ([name, text] pairs) from a form; its ID. */
  async function createFiles(files, params = {}) {
    const form = new FormData();
    for (const [name, value] of Object.entries(params)) form.append(name, value);
    for (const [name, text] of files) form.append('file', new Blob([text]), name);
    const response = await fetch(`${server.url}/`, { method: 'POST', body: form, headers: { accept: 'application/json' } });
    assert.equal(response.status, 201, await response.clone().text());
    return (await response.json()).id;
  }

  const NOTES = Array.from({ length: 80 }, (_, i) => `note ${i + 1}`).join('\n') + '\n';
  const TOML = '[package]\nname = "a"\n';

  test('each file under its own heading, in its own language, with its own line links and raw link', async () => {
    const id = await createFiles([
      ['notes.txt', NOTES],
      ['greet.py', PYTHON],
      ['Cargo.toml', TOML],
    ]);
    const { page, context } = await newPage();
    await page.goto(`${server.url}/${id}#file-notes.txt-L70`);
    await page.waitForSelector('#content.files pre.code.hljs >> nth=2');
    for (const name of ['notes.txt', 'greet.py', 'Cargo.toml']) {
      assert.ok(await page.locator(`[id="file-${name}"] h2`, { hasText: name }).isVisible(), name);
    }
    assert.equal(await page.getAttribute('[id="file-greet.py"] pre', 'data-language'), 'python');
    assert.ok((await page.locator('[id="file-greet.py"] .hljs-keyword').count()) > 0, 'highlighted as Python');
    // highlight.js highlights TOML with its INI grammar.
    assert.equal(await page.getAttribute('[id="file-Cargo.toml"] pre', 'data-language'), 'ini');

    // The address's line is marked and in view.
    const inView = async (selector) => {
      const box = await page.locator(selector).boundingBox();
      return box !== null && box.y >= 0 && box.y + box.height <= 720;
    };
    assert.deepEqual(await page.$$eval('.line.hl', (n) => n.map((x) => x.id)), ['file-notes.txt-L70']);
    assert.ok(await inView('[id="file-notes.txt-L70"]'));
    // A click on another file's line number links, marks and shows that line.
    await page.click('[id="file-greet.py-L4"] a.ln');
    assert.equal(new URL(page.url()).hash, '#file-greet.py-L4');
    await page.waitForSelector('[id="file-greet.py-L4"].hl');
    assert.deepEqual(await page.$$eval('.line.hl', (n) => n.map((x) => x.id)), ['file-greet.py-L4']);
    assert.ok(await inView('[id="file-greet.py-L4"]'));

    assert.equal(await page.getAttribute('.files-all a', 'href'), `/download/${id}`);
    await page.click('[id="file-Cargo.toml"] a:text-is("Raw")');
    await page.waitForURL(`${server.url}/raw/${id}/Cargo.toml`);
    assert.equal(await page.textContent('body'), TOML);
    await context.close();
  });

  test('each file has its own Copy and shift-click line range; the page passes axe', async () => {
    const id = await createFiles([
      ['notes.txt', NOTES],
      ['greet.py', PYTHON],
    ]);
    const { page, context } = await newPage({ bypassCSP: true });
    await page.goto(`${server.url}/${id}`);
    await page.waitForSelector('#content.files pre.code.hljs >> nth=1');
    await page.click('[id="file-notes.txt-L2"] a.ln');
    await page.click('[id="file-notes.txt-L5"] a.ln', { modifiers: ['Shift'] });
    assert.equal(new URL(page.url()).hash, '#file-notes.txt-L2-L5');
    const marked = ['file-notes.txt-L2', 'file-notes.txt-L3', 'file-notes.txt-L4', 'file-notes.txt-L5'];
    assert.deepEqual(await page.$$eval('.line.hl', (n) => n.map((x) => x.id)), marked);
    // A range in another file starts from that file's own anchor.
    await page.click('[id="file-greet.py-L3"] a.ln');
    await page.click('[id="file-greet.py-L1"] a.ln', { modifiers: ['Shift'] });
    assert.equal(new URL(page.url()).hash, '#file-greet.py-L1-L3');
    // The address's range is marked when the page opens.
    await page.goto('about:blank');
    await page.goto(`${server.url}/${id}#file-notes.txt-L2-L5`);
    await page.waitForSelector('[id="file-notes.txt-L5"].hl');
    assert.deepEqual(await page.$$eval('.line.hl', (n) => n.map((x) => x.id)), marked);
    await page.click('[id="file-greet.py"] button.copy-file');
    await page.waitForSelector('[id="file-greet.py"] button.copy-file:text-is("Copied")');
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), PYTHON);
    await assertAccessible(page, 'several files');
    await context.close();
  });

  /** Files in a fresh directory for the CLI: their paths. */
  function filesOnDisk(files) {
    const dir = mkdtempSync(join(tmpdir(), 'snip-files-'));
    return files.map(([name, text]) => {
      const path = join(dir, name);
      writeFileSync(path, text);
      return path;
    });
  }

  test('an encrypted several-file paste (snip put --encrypt a b c) is decrypted into its files', async () => {
    const link = cli(['put', '--encrypt', ...filesOnDisk([['notes.txt', NOTES], ['greet.py', PYTHON], ['Cargo.toml', TOML]])]).trim();
    const id = new URL(link).pathname.slice(1);
    const meta = await (await fetch(`${server.url}/api/pastes/${id}`)).json();
    assert.equal(meta.encrypted, true);
    assert.equal(meta.files, undefined, 'the server knows of no files');
    const { page, context } = await newPage({ bypassCSP: true });
    await page.goto(`${link}&file-greet.py-L4`);
    await page.waitForSelector('#content.files pre.code.hljs >> nth=2');
    assert.equal(await page.textContent('h1.title'), '3 files');
    assert.deepEqual(await page.$$eval('.file h2', (n) => n.map((x) => x.textContent)), ['notes.txt', 'greet.py', 'Cargo.toml']);
    assert.equal(await page.getAttribute('[id="file-greet.py"] pre', 'data-language'), 'python');
    assert.equal(await page.textContent('[id="file-notes.txt-L80"] .lc'), 'note 80');
    assert.deepEqual(await page.$$eval('.line.hl', (n) => n.map((x) => x.id)), ['file-greet.py-L4']);
    assert.equal(await page.locator('.files-all').count(), 0, 'no zip of ciphertext');
    // Line links keep the key before them.
    await page.click('[id="file-Cargo.toml-L1"] a.ln');
    await page.click('[id="file-Cargo.toml-L2"] a.ln', { modifiers: ['Shift'] });
    assert.equal(new URL(page.url()).hash, `${new URL(link).hash}&file-Cargo.toml-L1-L2`);
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('[id="file-Cargo.toml"] button.download-file')]);
    assert.equal(download.suggestedFilename(), 'Cargo.toml');
    assert.equal(readFileSync(await download.path(), 'utf8'), TOML);
    await page.click('[id="file-greet.py"] button.copy-file');
    await page.waitForSelector('[id="file-greet.py"] button.copy-file:text-is("Copied")');
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), PYTHON);
    await assertAccessible(page, 'encrypted several files');
    await context.close();
  });

  test('an encrypted several-file burn paste gives all its files at its one reveal', async () => {
    const link = cli(['put', '--encrypt', '--burn', ...filesOnDisk([['greet.py', PYTHON], ['Cargo.toml', TOML]])]).trim();
    const id = new URL(link).pathname.slice(1);
    const { page, context } = await newPage();
    await page.goto(link);
    await page.click('#reveal button');
    await page.waitForSelector('[id="file-Cargo.toml"] pre.code.hljs');
    assert.deepEqual(await page.$$eval('.file h2', (n) => n.map((x) => x.textContent)), ['greet.py', 'Cargo.toml']);
    assert.equal(await page.textContent('[id="file-greet.py-L1"] .lc'), 'import sys');
    assert.equal((await fetch(`${server.url}/api/pastes/${id}`)).status, 404);
    await context.close();
  });

  /** Fills the current tab of the editor. */
  async function fillTab(page, name, text) {
    await page.fill('#content', text);
    await page.fill('#name', name);
  }

  for (const encrypt of [false, true]) {
    test(`the editor's tabs make one several-file paste${encrypt ? ' (encrypted)' : ''}`, async () => {
      const { page, context } = await newPage();
      await openEditor(page);
      assert.equal(await page.isVisible('#tabs'), false, 'one file: no tabs');
      await fillTab(page, 'greet.py', PYTHON);
      await page.click('#add-file');
      assert.deepEqual(await page.$$eval('[role=tab]', (n) => n.map((x) => x.textContent)), ['greet.py', 'File 2']);
      assert.equal(await page.inputValue('#content'), '', 'a new tab is empty');
      await fillTab(page, 'notes.txt', NOTES);
      await page.click('#add-file');
      await fillTab(page, 'dropped.txt', 'this tab is removed');
      await page.click('#add-file');
      await fillTab(page, 'Cargo.toml', TOML);
      // Remove the third tab; the others keep what they hold.
      await page.click('[role=tab]:text-is("dropped.txt")');
      assert.equal(await page.inputValue('#content'), 'this tab is removed');
      await page.click('#remove-file');
      assert.deepEqual(await page.$$eval('[role=tab]', (n) => n.map((x) => x.textContent)), ['greet.py', 'notes.txt', 'Cargo.toml']);
      await page.click('[role=tab]:text-is("greet.py")');
      assert.equal(await page.inputValue('#content'), PYTHON);
      assert.equal(await page.inputValue('#name'), 'greet.py');
      await page.selectOption('#lang', 'python');
      if (encrypt) await page.check('#encrypt');
      await page.click('button[type=submit]');
      await page.waitForSelector('#result:not([hidden])', { timeout: 20000 });
      const link = await page.inputValue('#result-url');
      assert.equal(new URL(link).hash !== '', encrypt);
      await page.goto(link);
      await page.waitForSelector('#content.files pre.code.hljs >> nth=2');
      assert.deepEqual(await page.$$eval('.file h2', (n) => n.map((x) => x.textContent)), ['greet.py', 'notes.txt', 'Cargo.toml']);
      assert.equal(await page.textContent('[id="file-notes.txt-L80"] .lc'), 'note 80');
      assert.equal(await page.getAttribute('[id="file-greet.py"] pre', 'data-language'), 'python');
      const id = new URL(link).pathname.slice(1);
      const meta = await (await fetch(`${server.url}/api/pastes/${id}`)).json();
      assert.equal((meta.files || []).length, encrypt ? 0 : 3);
      await context.close();
    });
  }

  test('several files picked at once open one tab each; a tab without a name is refused', async () => {
    const { page, context } = await newPage();
    await openEditor(page);
    await page.setInputFiles('#file', [
      { name: 'a.txt', mimeType: 'text/plain', buffer: Buffer.from('first\n') },
      { name: 'b.txt', mimeType: 'text/plain', buffer: Buffer.from('second\n') },
      { name: 'dot.png', mimeType: 'image/png', buffer: DOT_PNG },
    ]);
    await page.waitForSelector('[role=tab] >> nth=2');
    assert.deepEqual(await page.$$eval('[role=tab]', (n) => n.map((x) => x.textContent)), ['a.txt', 'b.txt', 'dot.png']);
    assert.equal(await page.isVisible('#attachment'), true, 'the image is an attachment');
    await page.click('#add-file');
    await page.fill('#content', 'no name');
    await page.click('button[type=submit]');
    await page.waitForSelector('#form-status[data-kind=error]');
    assert.match(await page.textContent('#form-status'), /File 4 has no name/);
    await page.click('#remove-file');
    await page.click('button[type=submit]');
    await page.waitForSelector('#result:not([hidden])');
    await page.goto(await page.inputValue('#result-url'));
    await page.waitForSelector('[id="file-b.txt"] pre.code');
    assert.equal(await page.textContent('[id="file-b.txt-L1"] .lc'), 'second');
    assert.equal(await page.locator('[id="file-dot.png"]').count(), 1);
    await context.close();
  });

  test('a several-file burn paste is revealed as its files, once', async () => {
    const id = await createFiles([['greet.py', PYTHON], ['Cargo.toml', TOML]], { burn: 'true' });
    const { page, context } = await newPage();
    await page.goto(`${server.url}/${id}`);
    await page.click('#reveal button');
    await page.waitForSelector('[id="file-greet.py"] pre.code.hljs');
    assert.ok(await page.locator('[id="file-Cargo.toml"] h2', { hasText: 'Cargo.toml' }).isVisible());
    assert.equal(await page.locator(`a[href^="/raw/${id}/"]`).count(), 0, 'no links to files that are gone');
    const again = await fetch(`${server.url}/${id}/reveal`, { method: 'POST' });
    assert.equal(again.status, 404);
    await context.close();
  });
});

describe('embeds', () => {
  test('another site frames a paste embed, which renders highlighted, and never the paste page', async () => {
    const paste = await apiCreate(server, 'fn main() {\n    println!("hi");\n}\n', { lang: 'rust', name: 'main.rs' });
    const { page, context, record } = await newPage();
    // A page of another origin: a server of the test's own on another port
    // (a local one, since Chromium keeps public sites from framing loopback).
    const body =
      '<!doctype html><title>a blog</title>' +
      `<iframe id="embed" src="${server.url}/embed/${paste.id}?lines=1-2&theme=dark" width="600" height="200"></iframe>` +
      // Its load event fires whether the browser shows the frame or refuses it.
      `<iframe id="page" src="${server.url}/${paste.id}" width="600" height="200" onload="document.body.dataset.pageLoaded = 1"></iframe>`;
    const blog = createServer((request, response) => {
      response.writeHead(200, { 'content-type': 'text/html' });
      response.end(body);
    });
    await new Promise((resolve) => blog.listen(0, '127.0.0.1', resolve));
    const site = `http://127.0.0.1:${blog.address().port}`;
    assert.notEqual(site, new URL(server.url).origin);
    // The refusal this test expects, as Chromium logs it.
    record.expectErrors.push(/Refused to (display|frame)|violates the following Content Security Policy directive: "frame-ancestors 'none'"/);
    await page.goto(`${site}/post`);

    const embed = page.frameLocator('#embed');
    await embed.locator('pre.code.hljs .hljs-keyword').first().waitFor();
    assert.deepEqual(await embed.locator('.ln').allTextContents(), ['1', '2']);
    assert.equal(await embed.locator('html').getAttribute('data-theme'), 'dark');
    assert.equal(await embed.locator('.embed-bar .title').textContent(), 'main.rs');
    assert.equal(await embed.locator('.embed-bar .title').getAttribute('target'), '_blank');
    await shot(page, 'embed-framed');

    // The paste's own page refuses to be framed: the browser shows none of it.
    await page.waitForSelector('body[data-page-loaded]');
    const frame = await (await page.$('#page')).contentFrame();
    assert.equal(await frame.locator('#paste').count(), 0);
    assert.notEqual(frame.url(), `${server.url}/${paste.id}`);

    // The embedding page is the test's own origin: not a request that left.
    record.requests = record.requests.filter((url) => !url.startsWith(`${site}/`));
    await context.close();
    await new Promise((resolve) => blog.close(resolve));
  });
});
