// Checks the packaged .vsix on its own, outside VS Code: extracted into a temp dir, its bundled CLI must
// index, distill and EMBED the fixture transcripts with only the node_modules the package ships (sqlite3,
// sqlite-vec, onnxruntime), and search them semantically, with an ONNX model and with the built-in model the
// package carries (which needs no onnxruntime, so every target has it). Catches a runtime file missing from
// .vscodeignore.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { extractVsix } from '../../scripts/vsix.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

const MODEL = join(ROOT, '.cache/models/wink-static-100d');

function run(cmd, args, cwd) {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status ?? r.signal}: ${(r.stderr || r.stdout).slice(-1500)}`);
  return r.stdout;
}

/** The built-in model from inside the package: every exchange embedded, and recall's default search uses it. */
function checkBuiltinModel(cli, dir) {
  const db = join(dir, 'builtin.sqlite');
  const index = JSON.parse(run(process.execPath, [cli, 'index', '--root', join(ROOT, 'test/fixtures'), '--db', db, '--embed-model', 'built-in', '--json', '--quiet'], dir));
  const embedded = index.embedded?.embedded?.core ?? 0;
  if (index.stats.exchanges === 0 || embedded !== index.stats.exchanges) {
    throw new Error(`built-in model: expected every exchange embedded, got ${embedded} of ${index.stats.exchanges} (${index.embedNotice ?? 'no notice'})`);
  }
  const out = JSON.parse(run(process.execPath, [cli, 'search', '--db', db, '--embed-model', 'built-in', '--json', 'paginate the harbour list'], dir));
  if (out.semantic !== true || out.mode !== 'bm25(v)+vec(d)' || out.hits.length === 0) throw new Error(`built-in model: recall's search did not use it: ${JSON.stringify(out).slice(0, 500)}`);
  return embedded;
}

/** Returns { passed, failed } like the other layers (one check). */
export function checkPackagedCli(vsix, print = (l) => console.log(l), { embed = true } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'agent-recall-vsix-'));
  try {
    extractVsix(vsix, dir);
    run(process.execPath, [join(ROOT, 'test/model/buildStaticModel.mjs')]);
    const cli = join(dir, 'extension/dist/cli.js');
    const db = join(dir, 'store.sqlite');
    const model = embed ? ['--embed-model', MODEL] : [];
    const index = JSON.parse(run(process.execPath, [cli, 'index', '--root', join(ROOT, 'test/fixtures'), '--db', db, ...model, '--json', '--quiet'], dir));
    if (!embed) {
      // a target without an onnxruntime binary (darwin-x64): storage, distillation, lexical search and the built-in model
      const lexical = JSON.parse(run(process.execPath, [cli, 'search', '--db', db, '--mode', 'verbatim/bm25', '--json', 'harbour list'], dir));
      if (index.stats.exchanges === 0 || lexical.hits.length === 0) throw new Error(`lexical search found nothing: ${JSON.stringify(lexical).slice(0, 500)}`);
      const builtin = checkBuiltinModel(cli, dir);
      print(`  ✔ the packaged CLI indexes, distills, searches by words and embeds (${builtin}) with its built-in model, with only what the .vsix ships (no ONNX model on this target)`);
      return { passed: 1, failed: 0 };
    }
    const embedded = index.embedded?.embedded?.core ?? 0;
    if (index.stats.exchanges === 0 || embedded !== index.stats.exchanges) {
      throw new Error(`expected every exchange embedded, got ${embedded} of ${index.stats.exchanges} (${index.embedNotice ?? 'no notice'})`);
    }
    const out = JSON.parse(
      run(process.execPath, [cli, 'search', '--db', db, '--mode', 'core/vector', '--embed-model', MODEL, '--json', 'paginate the harbour list'], dir),
    );
    if (out.semantic !== true || out.hits.length === 0) throw new Error(`vector search did not run: ${JSON.stringify(out).slice(0, 500)}`);
    const builtin = checkBuiltinModel(cli, dir);
    print(`  ✔ the packaged CLI indexes, distills, embeds (${embedded} with an ONNX model, ${builtin} with its built-in model) and searches by vector with only what the .vsix ships`);
    return { passed: 1, failed: 0 };
  } catch (err) {
    print(`  ✖ the packaged CLI: ${err.message}`);
    return { passed: 0, failed: 1 };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// `node test/ui/packaged.mjs VSIX [--lexical-only]`: the same check on its own (the release workflow's smoke test on each runner)
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const vsix = process.argv[2];
  if (!vsix) {
    console.error('usage: node test/ui/packaged.mjs VSIX');
    process.exit(2);
  }
  process.exit(checkPackagedCli(vsix, undefined, { embed: !process.argv.includes('--lexical-only') }).failed === 0 ? 0 : 1);
}
