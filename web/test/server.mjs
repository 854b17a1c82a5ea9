// Test harness: builds the real snip binary with cargo, starts it on port 0
// with a temporary data dir, and reads "listening on http://ADDR" from its
// stderr (as tests/it/support/server.rs does).

import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

let binary = process.env.SNIP_BIN || null;

/** The snip binary: $SNIP_BIN, or `cargo build` (a no-op after `cargo test`). */
export function snipBinary() {
  if (!binary) binary = cargoExecutable(['--bin', 'snip'], 'snip');
  return binary;
}

/** Where `cargo build` put an artifact: the executable of the target named `name`. */
function cargoExecutable(args, name) {
  const build = spawnSync('cargo', ['build', '--quiet', ...args, '--message-format=json-render-diagnostics'], {
    cwd: repoRoot,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 64 * 1024 * 1024,
  });
  if (build.status !== 0) throw new Error(`cargo build ${args.join(' ')} failed`);
  let executable = null;
  for (const line of build.stdout.split('\n')) {
    if (!line.startsWith('{')) continue;
    const message = JSON.parse(line);
    if (message.reason === 'compiler-artifact' && message.target?.name === name && message.executable) {
      executable = message.executable;
    }
  }
  if (!executable) throw new Error(`cargo build did not report the ${name} executable`);
  return executable;
}

/**
 * Compiles a WebAssembly text file of the repository (a tenant program) with
 * the project's own `wat2wasm` example (built by `cargo test`); returns the module's bytes.
 */
export function wasmOf(watPath) {
  const wat2wasm = cargoExecutable(['--example', 'wat2wasm'], 'wat2wasm');
  const out = join(mkdtempSync(join(tmpdir(), 'snip-wasm-')), 'program.wasm');
  const run = spawnSync(wat2wasm, [join(repoRoot, watPath), out], { stdio: 'inherit' });
  if (run.status !== 0) throw new Error(`wat2wasm ${watPath} failed`);
  const bytes = readFileSync(out);
  rmSync(dirname(out), { recursive: true, force: true });
  return bytes;
}

/**
 * The stores a suite may run on: the embedded one, and PostgreSQL when
 * SNIP_TEST_DATABASE_URL names a database (as `.ci/run` does).
 */
export const stores = process.env.SNIP_TEST_DATABASE_URL ? ['embedded', 'postgres'] : ['embedded'];

let schemas = 0;

/**
 * Starts snip with extra flags, on `store` (a fresh schema of the test
 * database for 'postgres', dropped by `stop`); resolves to {url, stop, logs}.
 */
export async function startServer(args = [], { store = 'embedded' } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'snip-e2e-'));
  const database = process.env.SNIP_TEST_DATABASE_URL;
  const schema = store === 'postgres' ? `snip_web_${process.pid}_${Date.now()}_${schemas++}` : null;
  const storeArgs = schema ? [`--store=${database}`, `--store-schema=${schema}`] : [];
  const child = spawn(snipBinary(), ['serve', '--listen=127.0.0.1:0', `--data-dir=${join(dir, 'data')}`, '--ip-rate=off', ...storeArgs, ...args], {
    env: serverEnv(),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const logs = [];
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`snip did not start:\n${logs.join('')}`)), 30000);
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk) => {
      logs.push(chunk);
      const match = /listening on (http:\/\/[^\s"\u001b]+)/.exec(logs.join(''));
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.on('exit', (code) => reject(new Error(`snip exited (${code}):\n${logs.join('')}`)));
  });
  const stop = async () => {
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
    if (schema) spawnSync('psql', [database, '-qc', `DROP SCHEMA IF EXISTS "${schema}" CASCADE`], { stdio: 'inherit' });
  };
  return { url, stop, logs, binary: snipBinary() };
}

/** Creates a paste through the API: returns the JSON answer. */
export async function apiCreate(server, body, params = {}) {
  const query = new URLSearchParams(params);
  const response = await fetch(`${server.url}/?${query}`, {
    method: 'POST',
    body,
    headers: { accept: 'application/json', 'content-type': 'application/octet-stream' },
  });
  if (response.status !== 201) throw new Error(`create failed: ${response.status} ${await response.text()}`);
  return response.json();
}

function serverEnv() {
  const env = { ...process.env, SNIP_LOG: 'info' };
  for (const key of Object.keys(env)) if (key.startsWith('SNIP_') && key !== 'SNIP_LOG') delete env[key];
  return env;
}
