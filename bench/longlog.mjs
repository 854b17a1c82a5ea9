// bench/longlog.mjs: how a long log reads in the browser. Starts snip (the
// debug binary of web/test/server.mjs, or $SNIP_BIN) with
// --max-paste-size=64MiB, creates a build log of LONGLOG_MIB MiB (default
// 16), opens it in Debian's Chromium through playwright-core (web/'s
// devDependency) and prints, for the log and for a 100 KiB paste:
//   first paint     first-contentful-paint of the page (ms after navigation)
//   whole           until every line is held (pre[data-long=done]; ms)
//   heap, nodes     CDP Performance.getMetrics JSHeapUsedSize and Nodes after
//                   the load, after scrolling to the last line, and after a
//                   find over the whole text
// Run:  node bench/longlog.mjs    (LONGLOG_MIB=4 for a smaller log)

import { createRequire } from 'node:module';
import { apiCreate, startServer } from '../web/test/server.mjs';

const require = createRequire(new URL('../web/package.json', import.meta.url));
const { chromium } = require('playwright-core');

const MIB = Number(process.env.LONGLOG_MIB || 16);

/** A build log of about `bytes` bytes, 110 bytes a line, like a CI runner's. */
function buildLog(bytes) {
  const lines = [];
  let size = 0;
  for (let n = 1; size < bytes; n++) {
    const line = `2026-11-28T02:${String(Math.floor(n / 60) % 60).padStart(2, '0')}:${String(n % 60).padStart(2, '0')}Z [build] step ${n}: cc -O2 -c src/m_${n}.c -o out/m_${n}.o && echo ok`;
    lines.push(line);
    size += line.length + 1;
  }
  return `${lines.join('\n')}\n`;
}

async function metrics(session) {
  const { metrics: all } = await session.send('Performance.getMetrics');
  const get = (name) => all.find((m) => m.name === name)?.value ?? 0;
  return { heapMiB: (get('JSHeapUsedSize') / 2 ** 20).toFixed(1), nodes: get('Nodes') };
}

async function measure(browser, url, label) {
  const context = await browser.newContext({ viewport: { width: 1100, height: 720 } });
  const page = await context.newPage();
  const session = await context.newCDPSession(page);
  await session.send('Performance.enable');
  const started = Date.now();
  await page.goto(url);
  await page.waitForSelector('#code.hljs');
  const long = await page.$('#truncated[data-next]');
  if (long) await page.waitForSelector('#code[data-long=done]', { timeout: 300_000 });
  const whole = Date.now() - started;
  const paint = await page.evaluate(() => performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? NaN);
  await session.send('HeapProfiler.collectGarbage');
  const loaded = await metrics(session);
  const lines = await page.evaluate(() => {
    window.scrollTo(0, document.body.scrollHeight);
    return document.querySelector('#code').dataset.long ? null : document.querySelectorAll('#code .line').length;
  });
  let last = null;
  let found = null;
  if (long) {
    await page.waitForFunction(() => document.querySelector('#code .line:last-child'));
    await session.send('HeapProfiler.collectGarbage');
    last = await metrics(session);
    const t = Date.now();
    await page.fill('#find', 'step 99999:');
    await page.press('#find', 'Enter');
    await page.waitForFunction(() => document.querySelector('#find-count').textContent !== '');
    found = { ms: Date.now() - t, count: await page.textContent('#find-count') };
    await session.send('HeapProfiler.collectGarbage');
    found = { ...found, ...(await metrics(session)) };
  }
  console.log(`${label}: first paint ${paint.toFixed(0)} ms, whole ${whole} ms; after load heap ${loaded.heapMiB} MiB, ${loaded.nodes} nodes`);
  if (last) console.log(`${label}: at the last line heap ${last.heapMiB} MiB, ${last.nodes} nodes`);
  if (found) console.log(`${label}: find "step 99999:" ${found.ms} ms (${found.count}); heap ${found.heapMiB} MiB, ${found.nodes} nodes`);
  if (lines !== null) console.log(`${label}: ${lines} lines`);
  await context.close();
}

const server = await startServer(['--max-paste-size=64MiB']);
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--enable-precise-memory-info'],
});
try {
  const small = await apiCreate(server, buildLog(100 * 1024));
  const log = buildLog(MIB * 2 ** 20);
  const big = await apiCreate(server, log);
  console.log(`log: ${(log.length / 2 ** 20).toFixed(1)} MiB, ${log.split('\n').length - 1} lines`);
  await measure(browser, `${server.url}/${small.id}`, '100 KiB log');
  await measure(browser, `${server.url}/${big.id}`, `${MIB} MiB log`);
} finally {
  await browser.close();
  await server.stop();
}
