// Signing in through an OpenID Connect provider, in Chromium: snip against
// panva's oidc-provider (web/test/oidc-provider.mjs) on loopback, through
// its development login and consent pages.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { chromium } from 'playwright-core';
import { startServer, stores } from './server.mjs';

const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const ADMIN = 'admin-token-for-oidc-0123456789abcdef';
const HERE = dirname(fileURLToPath(import.meta.url));

/**
 * Starts the provider; resolves to {issuer, configure(redirectUris), setGroups(login, groups), stop}.
 * Each command waits for the provider's answer line, never for time.
 */
export async function startProvider() {
  const child = spawn(process.execPath, [join(HERE, 'oidc-provider.mjs')], { stdio: ['pipe', 'pipe', 'inherit'] });
  child.stdout.setEncoding('utf8');
  const waiting = [];
  let buffered = '';
  child.stdout.on('data', (chunk) => {
    buffered += chunk;
    let newline;
    while ((newline = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      const index = waiting.findIndex((w) => w.test(line));
      if (index >= 0) waiting.splice(index, 1)[0].resolve(line);
    }
  });
  const expect = (pattern) => new Promise((resolve, reject) => {
    waiting.push({ test: (line) => pattern.test(line), resolve });
    child.once('exit', (code) => reject(new Error(`oidc-provider exited (${code})`)));
  });
  const issuer = (await expect(/^issuer /)).split(' ')[1];
  return {
    issuer,
    async configure(redirectUris) {
      const ready = expect(/^ready$/);
      child.stdin.write(`${redirectUris.join(' ')}\n`);
      await ready;
    },
    async setGroups(login, groups) {
      const ok = expect(/^ok$/);
      child.stdin.write(`groups ${login} ${groups.join(',')}\n`);
      await ok;
    },
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.stdin.end();
        await exited;
      }
    },
  };
}

for (const store of stores) describe(`signing in through an identity provider (${store} store)`, () => {
  let provider;
  let snip;
  let browser;

  before(async () => {
    provider = await startProvider();
    const secretFile = join(mkdtempSync(join(tmpdir(), 'snip-oidc-')), 'secret');
    writeFileSync(secretFile, 'snip-test-secret\n');
    snip = await startServer([
      `--admin-token=${ADMIN}`,
      `--oidc-issuer=${provider.issuer}`,
      '--oidc-client-id=snip',
      `--oidc-client-secret-file=${secretFile}`,
    ], { store });
    await provider.configure([`${snip.url}/signin/oidc/callback`]);
    for (const name of ['team', 'other']) {
      const response = await fetch(`${snip.url}/api/admin/tenants`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name }),
      });
      assert.equal(response.status, 201);
    }
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
    });
  });

  after(async () => {
    await browser?.close();
    await snip?.stop();
    await provider?.stop();
  });

  /** Signs `login` in from snip's sign-in page through the provider's pages. */
  async function signIn(page, login) {
    await page.goto(`${snip.url}/signin?next=/new`);
    await page.click('#signin-provider');
    await page.waitForURL((url) => url.href.startsWith(provider.issuer));
    await page.fill('input[name=login]', login);
    await page.fill('input[name=password]', 'any password');
    await page.click('button[type=submit]');
    // The consent page, the first time this person signs in to snip.
    await page.waitForURL((url) => url.href.startsWith(snip.url) || /consent|interaction/.test(url.href));
    if (!page.url().startsWith(snip.url)) {
      await page.click('button[type=submit]');
      await page.waitForURL((url) => url.href.startsWith(snip.url));
    }
  }

  /** A person in a group named like a tenant is signed in for it: name and tenant in the header, on every page. */
  test('a person in a tenant group signs in and sees their name and tenant', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await signIn(page, 'alice');
    assert.equal(new URL(page.url()).pathname, '/new');
    assert.equal(await page.textContent('#person-name'), 'Alice Liddell');
    assert.equal(await page.textContent('#tenant-name'), 'team');
    const cookies = await context.cookies(snip.url);
    const session = cookies.find((c) => c.name === 'snip_session');
    assert.ok(session, 'a session cookie');
    assert.equal(session.httpOnly, true);
    assert.equal(session.sameSite, 'Lax');
    assert.ok(!cookies.some((c) => c.name === 'snip_signin'), 'the sign-in cookie is gone');
    // The session is the tenant's: its pastes are listed on "My pastes".
    await page.goto(`${snip.url}/my`);
    assert.equal(await page.textContent('#person-name'), 'Alice Liddell');
    // Signing out ends the session; a link signs out at the provider too (its logout page), then comes back.
    await page.click('#signout');
    await page.waitForSelector('#signed-out');
    assert.equal(await page.locator('#person-name').count(), 0);
    await page.click('#provider-signout');
    await page.waitForURL((url) => url.href.startsWith(`${provider.issuer}/session/end`));
    await page.click('button[name=logout]');
    await page.waitForURL(`${snip.url}/`);
    assert.equal(await page.locator('#person-name').count(), 0);
    await context.close();
  });

  /**
   * A signed-in person is offered three visibilities; an only-me paste
   * shows its author to them, and another member of the same tenant gets
   * the page of a missing paste. "My pastes" names each paste's author.
   */
  test('a person chooses only me; the paste shows its author and is hidden from the team', async () => {
    const alice = await browser.newContext();
    const page = await alice.newPage();
    await signIn(page, 'alice');
    const choices = await page.$$eval('#visibility option', (options) => options.map((o) => o.value));
    assert.deepEqual(choices, ['unlisted', 'team', 'me']);
    await page.fill('#content', 'for alice alone');
    await page.selectOption('#visibility', 'me');
    await page.click('#new button[type=submit]');
    await page.waitForSelector('#result:not([hidden])');
    assert.match(await page.textContent('#result-summary'), /Only me: only you, signed in, can read it/);
    const link = await page.inputValue('#result-url');
    await page.goto(link);
    await page.waitForSelector('#code .lc');
    assert.equal(await page.textContent('#code .lc'), 'for alice alone');
    assert.equal(await page.textContent('#author'), 'Alice Liddell');
    await page.goto(`${snip.url}/my`);
    assert.equal(await page.textContent('#my-pastes td.author'), 'Alice Liddell');
    assert.equal(await page.textContent('#my-pastes tbody tr td:nth-child(6)'), 'me');

    const bob = await browser.newContext();
    const other = await bob.newPage();
    await signIn(other, 'bob');
    assert.equal(await other.textContent('#tenant-name'), 'team');
    const response = await other.goto(link);
    assert.equal(response.status(), 404);
    await other.goto(`${snip.url}/my`);
    assert.equal(await other.locator(`tr[data-id="${new URL(link).pathname.slice(1)}"]`).count(), 0);
    await alice.close();
    await bob.close();
  });

  /**
   * A person none of whose groups is a tenant is signed in with their name,
   * told in the header and on "My pastes" that they belong to no team, and
   * may create only what an anonymous visitor may.
   */
  test('a person in no tenant group is signed in with anonymous rights and told so', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await signIn(page, 'carol');
    assert.equal(await page.textContent('#person-name'), 'Carol Nobody');
    assert.match(await page.textContent('#no-team'), /You belong to no team on this server/);
    assert.equal(await page.locator('#tenant-name').count(), 0);
    assert.equal(await page.locator('#visibility').count(), 0, 'no team or only-me pastes');
    await page.goto(`${snip.url}/my`);
    assert.match(await page.textContent('#my-no-team'), /You belong to no team on this server/);
    await context.close();
  });

  /**
   * A person whose groups name two tenants acts for the first by name; the
   * header's switcher (a plain form, no script needed) moves them to the other.
   */
  test('a person in two tenant groups switches teams from the header', async () => {
    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    await signIn(page, 'dave');
    assert.equal(await page.textContent('#person-name'), 'Dave Twogroups');
    assert.equal(await page.textContent('#tenant-name'), 'other');
    const offered = await page.$$eval('#switch-team-to option', (options) => options.map((o) => o.textContent));
    assert.deepEqual(offered, ['team']);
    await page.selectOption('#switch-team-to', 'team');
    await page.click('#switch-team button[type=submit]');
    await page.waitForURL(`${snip.url}/my`);
    assert.equal(await page.textContent('#tenant-name'), 'team');
    const back = await page.$$eval('#switch-team-to option', (options) => options.map((o) => o.textContent));
    assert.deepEqual(back, ['other']);
    await context.close();
  });

  /** Coming back to the callback (the back button, a bookmarked URL) opens nothing: the sign-in cookie is gone. */
  test('a replayed callback opens no session', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    let callback;
    page.on('request', (request) => {
      if (request.url().includes('/signin/oidc/callback')) callback = request.url();
    });
    await signIn(page, 'bob');
    assert.ok(callback);
    await context.clearCookies();
    const response = await page.goto(callback);
    assert.equal(response.status(), 400);
    assert.match(await page.textContent('body'), /was not started in this browser, was already used/);
    assert.ok(!(await context.cookies(snip.url)).some((c) => c.name === 'snip_session'));
    await context.close();
  });
});
