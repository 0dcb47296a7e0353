// Bundles the extension host entry, the CLI and the webview. Native packages stay external: they carry
// binaries that must be loaded from node_modules at run time.
import * as esbuild from 'esbuild';
import { existsSync } from 'node:fs';

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');
const external = ['vscode', '@vscode/sqlite3', 'sqlite-vec', 'onnxruntime-node', 'sharp', '@huggingface/transformers'];

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
  { ...node, entryPoints: ['src/extension.ts'], outfile: 'dist/extension.js' },
  { ...node, entryPoints: ['src/cli.ts'], outfile: 'dist/cli.js', banner: { js: '#!/usr/bin/env node' } },
  // the embedding thread, started by TransformersEmbedder from next to the bundle that loads it
  { ...node, entryPoints: ['src/core/embed/worker.ts'], outfile: 'dist/embedWorker.js' },
];
if (existsSync('webview/main.ts')) {
  builds.push({
    bundle: true, platform: 'browser', target: 'es2022', format: 'iife', sourcemap: !production,
    minify: production, entryPoints: ['webview/main.ts'], outfile: 'dist/webview.js', logLevel: 'warning',
  });
}

if (watch) {
  for (const b of builds) await (await esbuild.context(b)).watch();
} else {
  await Promise.all(builds.map((b) => esbuild.build(b)));
}
