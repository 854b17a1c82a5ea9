// The pages' languages in Chromium: Arabic pages run right to left (the
// header mirrored, code still left to right); the language menu switches a
// page's language and keeps its fragment (an encrypted paste's key); and in
// the pseudo-locale (en-XA) the UI the script builds (editor, share panel,
// paste view, burn and password pages, My pastes, shortcuts) has no English
// left. With SNIP_SCREENSHOTS=1 the main pages in German, Japanese and
// Arabic are written to docs/img (lang-TAG-PAGE.png).

import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { chromium } from 'playwright-core';
import { apiCreate, repoRoot, startServer } from './server.mjs';

const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const DOCS_IMG = process.env.SNIP_SCREENSHOTS ? join(repoRoot, 'docs', 'img') : null;
if (DOCS_IMG) mkdirSync(DOCS_IMG, { recursive: true });

let server;
let browser;

before(async () => {
  server = await startServer();
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu'] });
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

/** A page in a fresh context; `lang` (a cookie) or `locale` (Accept-Language) chooses its language. */
async function open({ lang, locale } = {}) {
  const context = await browser.newContext({ viewport: { width: 1000, height: 700 }, locale });
  if (lang) await context.addCookies([{ name: 'lang', value: lang, url: server.url }]);
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error' && !/status of 404/.test(message.text())) errors.push(message.text());
  });
  return { page, context, errors };
}

/** Makes a paste in the editor (optionally burning, or encrypted with a password); returns its link. */
async function createInEditor(page, text, { burn = false, password = null } = {}) {
  await page.goto(`${server.url}/new`);
  // The editor's script starts once the messages are loaded, after `load`.
  await page.waitForSelector('#add-file', { state: 'visible' });
  await page.fill('#content', text);
  if (burn) await page.check('#burn');
  if (password !== null) {
    await page.check('#encrypt');
    await page.fill('#password', password);
  }
  await page.click('#new button[type=submit]');
  await page.waitForSelector('#result:not([hidden])');
  await page.waitForSelector('#result-summary li');
  return page.inputValue('#result-url');
}

/** Words of English a person can read on the page (text, titles, placeholders, labels, alt texts). */
async function englishLeft(page, allowed) {
  const readable = await page.evaluate(() => {
    // Code, paste text, key names and the names of languages (code's and the
    // menu's own) are not the catalogue's; neither is an API error's message.
    const skip = 'script, noscript, style, code, pre, kbd, #language-select, .code-hint, .meta .lang, #lang option:not([value=""])';
    const out = [document.title];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (node.parentElement && !node.parentElement.closest(skip)) out.push(node.textContent);
    }
    for (const element of document.querySelectorAll('[title], [placeholder], [aria-label], [alt]')) {
      // A <time>'s title is its ISO 8601 instant, for machines.
      if (element.closest(skip) || element.matches('time')) continue;
      for (const name of ['title', 'placeholder', 'aria-label', 'alt']) {
        if (element.hasAttribute(name)) out.push(element.getAttribute(name));
      }
    }
    return out.join(' ');
  });
  return readable.split(/[^A-Za-z0-9]+/).filter((word) => /[A-Za-z]/.test(word) && !allowed.includes(word));
}

describe('languages', () => {
  test('Arabic pages run right to left: the header mirrored, code left to right', async () => {
    const { id } = await apiCreate(server, 'let x = 1;\nlet y = 2;\n');
    const { page, context, errors } = await open({ locale: 'ar-EG' });
    await page.goto(`${server.url}/${id}`);
    await page.waitForSelector('#code .lc');
    assert.equal(await page.getAttribute('html', 'dir'), 'rtl');
    assert.equal(await page.getAttribute('html', 'lang'), 'ar');
    const brand = await page.locator('header.top .brand').boundingBox();
    const newLink = await page.locator('header.top .new-link').boundingBox();
    assert.ok(brand.x > newLink.x, 'the brand is on the right, the new-paste link on the left');
    assert.equal(await page.$eval('#code', (pre) => getComputedStyle(pre).direction), 'ltr');
    const number = await page.locator('#L1 .ln').boundingBox();
    const line = await page.locator('#L1 .lc').boundingBox();
    assert.ok(number.x < line.x, 'line numbers stay left of the code');
    assert.match(await page.textContent('header.top .new-link'), /لصقة جديدة/);
    assert.deepEqual(errors, []);
    await context.close();
  });

  test('the language menu switches the page and keeps its fragment', async () => {
    const { page, context, errors } = await open({ locale: 'en-US' });
    const link = await createInEditor(page, 'secret words', { password: null });
    assert.equal(await page.getAttribute('html', 'lang'), 'en');
    await page.goto(link);
    await page.waitForSelector('#content pre.code, #content .lc');
    const hash = new URL(link).hash;
    await Promise.all([page.waitForEvent('load'), page.selectOption('#language-select', 'de')]);
    await page.waitForSelector('#content .lc');
    assert.equal(await page.getAttribute('html', 'lang'), 'de');
    assert.equal(new URL(page.url()).hash, hash);
    assert.match(await page.textContent('#share'), /Teilen/);
    // Remembered: the next page is German too, whatever the browser asks for.
    await page.goto(`${server.url}/new`);
    assert.equal(await page.getAttribute('html', 'lang'), 'de');
    assert.deepEqual(errors, []);
    await context.close();
  });

  test('the UI the script builds has no English left in the pseudo-locale', async () => {
    const { page, context, errors } = await open({ lang: 'en-XA' });
    const allowed = ['snip'];
    const check = async (where) => {
      const left = await englishLeft(page, allowed);
      assert.deepEqual(left, [], `${where}: English left`);
    };
    // The editor and its share panel.
    await page.goto(`${server.url}/new`);
    await page.waitForSelector('#add-file:not([hidden])');
    await check('editor');
    const link = await createInEditor(page, '1 2 3\n4 5 6\n', { burn: false });
    allowed.push(new URL(link).pathname.slice(1));
    await check('share panel');
    // The paste view, its share dialog and the shortcuts' help.
    await page.goto(link);
    await page.waitForSelector('#code .lc');
    await page.click('#share');
    await page.waitForSelector('#share-dialog');
    await check('paste view with the share dialog');
    await page.click('#share-close');
    await page.keyboard.press('?');
    await page.waitForSelector('#shortcuts');
    await check('shortcuts');
    // An encrypted paste's password prompt.
    const sealed = await createInEditor(page, '7 8 9', { password: '1234' });
    allowed.push(new URL(sealed).pathname.slice(1));
    const reader = await open({ lang: 'en-XA' });
    await reader.page.goto(sealed);
    await reader.page.waitForSelector('#unlock:not([hidden])');
    await reader.page.fill('#password', '0000');
    await reader.page.click('#unlock button');
    await reader.page.waitForSelector('#status[data-kind=error]');
    assert.deepEqual(await englishLeft(reader.page, allowed), [], 'password prompt: English left');
    await reader.context.close();
    // The burn page, before and after the reveal.
    const burning = await createInEditor(page, '0 0 0', { burn: true });
    allowed.push(new URL(burning).pathname.slice(1));
    await page.goto(burning);
    await page.waitForSelector('#reveal button');
    await check('burn page');
    await page.click('#reveal button');
    await page.waitForSelector('#code .lc');
    await check('revealed burn paste');
    // My pastes of this browser.
    await page.goto(`${server.url}/my`);
    await page.waitForSelector('#my-local tbody tr');
    await check('my pastes');
    // The error page and sign-in.
    await page.goto(`${server.url}/no/such/page`);
    await check('error page');
    await page.goto(`${server.url}/signin`);
    await check('sign-in');
    assert.deepEqual(errors, []);
    await context.close();
  });

  test('screenshots of the main pages in German, Japanese and Arabic', { skip: !DOCS_IMG }, async () => {
    const { id } = await apiCreate(server, 'fn main() {\n    println!("hello");\n}\n', { name: 'main.rs', lang: 'rust', ttl: '1d' });
    for (const lang of ['de', 'ja', 'ar']) {
      const { page, context } = await open({ lang });
      await page.goto(`${server.url}/new`);
      await page.waitForSelector('#add-file', { state: 'visible' });
      await page.fill('#content', 'SELECT 1;\n');
      await page.screenshot({ path: join(DOCS_IMG, `lang-${lang}-new.png`) });
      await page.goto(`${server.url}/${id}`);
      await page.waitForSelector('#code .lc');
      await page.screenshot({ path: join(DOCS_IMG, `lang-${lang}-view.png`) });
      const { id: burn } = await apiCreate(server, 'secret', { burn: 'true' });
      await page.goto(`${server.url}/${burn}`);
      await page.waitForSelector('#reveal button');
      await page.screenshot({ path: join(DOCS_IMG, `lang-${lang}-burn.png`) });
      await createInEditor(page, 'x', {});
      await page.goto(`${server.url}/my`);
      await page.waitForSelector('#my-local tbody tr');
      await page.screenshot({ path: join(DOCS_IMG, `lang-${lang}-my.png`) });
      await context.close();
    }
  });
});
