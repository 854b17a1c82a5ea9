// Bundles snip's web GUI for embedding in the binary.
//
//   node build.mjs [OUT_DIR]        (default: ./dist, which git ignores)
//
// build.rs runs this with OUT_DIR under cargo's OUT_DIR. Output:
// - app-HASH.js (the one entry, an ES module), shared and per-language chunks,
//   snip-HASH.css, icon-HASH.svg and licenses-HASH.txt: content-hashed names,
//   so the server can cache them forever;
// - NAME.br and NAME.gz next to each file, when compression makes it smaller;
// - manifest.tsv: one line per file, `file<TAB>logical name<TAB>content type<TAB>etag`,
//   which build.rs turns into the Rust asset table.
//
// Rendered Markdown (markdown.js with marked and DOMPurify) and the share
// panel's QR code (qr.js with qrcode-generator) are chunks of their own too,
// imported only when a page needs them.
//
// highlight.js: the 36 "common" languages are in the main bundle (auto-detection
// runs over them); each of the others is its own chunk, loaded only when a
// paste names it.

import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';
import * as esbuild from 'esbuild';
import hljsAll from 'highlight.js';

const here = dirname(fileURLToPath(import.meta.url));
const out = resolve(process.argv[2] || join(here, 'dist'));
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });

// The languages highlight.js's "common" build registers, read from its source.
const commonSource = readFileSync(join(here, 'node_modules/highlight.js/lib/common.js'), 'utf8');
const common = [...commonSource.matchAll(/registerLanguage\('([\w-]+)'/g)].map((m) => m[1]);
if (common.length < 20) throw new Error('could not read the common language list of highlight.js');

// id, display name and aliases of every language, for the language select.
const catalogue = hljsAll
  .listLanguages()
  .map((id) => {
    const lang = hljsAll.getLanguage(id);
    return [id, lang.name || id, (lang.aliases || []).filter((a) => /^[a-z0-9+#._-]{1,40}$/.test(a))];
  })
  .sort((a, b) => a[1].localeCompare(b[1], 'en', { sensitivity: 'base' }));

const languagesModule = [
  `export const COMMON = ${JSON.stringify(common)};`,
  `export const CATALOGUE = ${JSON.stringify(catalogue)};`,
  'export const LAZY = {',
  ...catalogue
    .filter(([id]) => !common.includes(id))
    .map(([id]) => `  ${JSON.stringify(id)}: () => import(${JSON.stringify(`highlight.js/lib/languages/${id}`)}),`),
  '};',
].join('\n');

// The message catalogues (../locales/TAG.ftl, the server's too): each its
// own chunk, so a page loads only its language's messages.
const localesModule = [
  'export const CATALOGUES = {',
  ...readdirSync(join(here, '../locales'))
    .filter((file) => file.endsWith('.ftl'))
    .map((file) => `  ${JSON.stringify(file.slice(0, -4))}: () => import(${JSON.stringify(`../locales/${file}`)}),`),
  '};',
].join('\n');

const virtualModules = { languages: languagesModule, locales: localesModule };
const virtualLanguages = {
  name: 'snip-virtual',
  setup(build) {
    build.onResolve({ filter: /^snip:(languages|locales)$/ }, (args) => ({ path: args.path.slice(5), namespace: 'snip' }));
    build.onLoad({ filter: /.*/, namespace: 'snip' }, (args) => ({
      contents: virtualModules[args.path],
      resolveDir: here,
      loader: 'js',
    }));
  },
};

const result = await esbuild.build({
  absWorkingDir: here,
  entryPoints: { app: 'src/app.js', snip: 'src/snip.css', icon: 'src/icon.svg' },
  loader: { '.svg': 'copy', '.ftl': 'text' },
  bundle: true,
  splitting: true,
  format: 'esm',
  minify: true,
  target: ['es2020', 'chrome100', 'firefox100', 'safari15'],
  entryNames: '[name]-[hash]',
  chunkNames: '[name]-[hash]',
  legalComments: 'none',
  metafile: true,
  outdir: out,
  plugins: [virtualLanguages],
  logLevel: 'warning',
});

// Third-party licences, served with the assets: highlight.js (BSD-3-Clause),
// marked (MIT), DOMPurify (Apache-2.0 or MPL-2.0; under Apache-2.0 here) and
// qrcode-generator (MIT, stated in its source's header, as it ships no file).
const version = (name) => JSON.parse(readFileSync(join(here, 'node_modules', name, 'package.json'), 'utf8')).version;
const qrHeader = readFileSync(join(here, 'node_modules/qrcode-generator/dist/qrcode.mjs'), 'utf8')
  .split('\n')
  .filter((line, i, all) => line.startsWith('//') && all.slice(0, i).every((l) => l.startsWith('//')))
  .map((line) => line.replace(/^\/\/ ?/, ''))
  .join('\n');
const licences = [
  'snip bundles the following third-party software.\n',
  `highlight.js ${hljsAll.versionString || ''}\n`,
  readFileSync(join(here, 'node_modules/highlight.js/LICENSE'), 'utf8'),
  `marked ${version('marked')}\n`,
  readFileSync(join(here, 'node_modules/marked/LICENSE'), 'utf8'),
  `DOMPurify ${version('dompurify')} (used under the Apache License 2.0)\n`,
  readFileSync(join(here, 'node_modules/dompurify/LICENSE'), 'utf8'),
  `qrcode-generator ${version('qrcode-generator')} (MIT)\n`,
  qrHeader,
].join('\n');
const licenceHash = createHash('sha256').update(licences).digest('hex').slice(0, 8).toUpperCase();
writeFileSync(join(out, `licenses-${licenceHash}.txt`), licences);

const types = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.txt': 'text/plain; charset=utf-8',
};

const files = [
  ...Object.entries(result.metafile.outputs).map(([path, info]) => ({ path: resolve(here, path), info })),
  { path: join(out, `licenses-${licenceHash}.txt`), info: {} },
];

const manifest = [];
let total = { raw: 0, br: 0, gz: 0 };
for (const { path, info } of files) {
  const name = basename(path);
  const ext = name.slice(name.lastIndexOf('.'));
  const type = types[ext];
  if (!type) throw new Error(`no content type for ${name}`);
  // Our own entries keep a stable name too; chunks are only reached by hash.
  const stable = name.replace(/-[A-Z0-9]{8}(\.\w+)$/, '$1');
  const logical = ['app.js', 'snip.css', 'icon.svg', 'licenses.txt'].includes(stable) ? stable : name;
  const bytes = readFileSync(path);
  const etag = createHash('sha256').update(bytes).digest('hex').slice(0, 20);
  const br = zlib.brotliCompressSync(bytes, {
    params: {
      [zlib.constants.BROTLI_PARAM_QUALITY]: zlib.constants.BROTLI_MAX_QUALITY,
      [zlib.constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
    },
  });
  const gz = zlib.gzipSync(bytes, { level: 9 });
  if (br.length < bytes.length) writeFileSync(`${path}.br`, br);
  if (gz.length < bytes.length) writeFileSync(`${path}.gz`, gz);
  total.raw += bytes.length;
  total.br += Math.min(br.length, bytes.length);
  total.gz += Math.min(gz.length, bytes.length);
  manifest.push([name, logical, type, etag].join('\t'));
}
manifest.sort();
writeFileSync(join(out, 'manifest.tsv'), `${manifest.join('\n')}\n`);
const kib = (n) => `${(n / 1024).toFixed(1)} KiB`;
console.log(
  `snip web: ${manifest.length} assets, ${kib(total.raw)} (br ${kib(total.br)}, gzip ${kib(total.gz)}) in ${out}`,
);
