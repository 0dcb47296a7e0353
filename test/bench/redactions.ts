// What the redactor takes out of real text, for a false-positive review (run it on two builds to compare):
//   node out/test/bench/redactions.js --db FILE [--show]   every exchange's verbatim text of a store
//   node out/test/bench/redactions.js --dir DIR [--show]   the text files under DIR (e.g. node_modules: code)
// Prints the redactions by kind (and how many exchanges or files hold any); with --show, each one in context
// (50 characters before, 30 after), one line each, to read by eye.
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { redactSecrets, type SecretKind } from '../../src/core/distill/redact';
import { Db } from '../../src/core/store/db';

const TEXT_FILES = /\.(?:md|ya?ml|json|[cm]?[jt]s|py|sh|toml|ini|cnf|txt|rst)$/;
const MAX_FILE_CHARS = 300_000;

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

/** The texts to redact, each with a name to show it by. */
async function texts(): Promise<Array<{ name: string; text: string }>> {
  const file = arg('db');
  if (file) {
    const db = await Db.open(file, { readonly: true });
    try {
      return (await db.all<{ n: number; verbatim: string }>('SELECT n, verbatim FROM exchanges ORDER BY n')).map((r) => ({ name: `#${r.n}`, text: r.verbatim }));
    } finally {
      await db.close();
    }
  }
  const dir = arg('dir');
  if (!dir) throw new Error('usage: redactions.js --db FILE | --dir DIR [--show]');
  const out: Array<{ name: string; text: string }> = [];
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !TEXT_FILES.test(entry.name) || entry.name.endsWith('.min.js')) continue;
    const full = path.join(entry.parentPath, entry.name);
    const text = readFileSync(full, 'utf8');
    if (text.length <= MAX_FILE_CHARS) out.push({ name: path.relative(dir, full), text });
  }
  return out;
}

async function main(): Promise<void> {
  const all = await texts();
  const byKind = new Map<SecretKind, number>();
  let holding = 0;
  let total = 0;
  let chars = 0;
  const t0 = performance.now();
  for (const { name, text } of all) {
    chars += text.length;
    const r = redactSecrets(text);
    if (r.count === 0) continue;
    holding++;
    total += r.count;
    for (const [kind, n] of Object.entries(r.found) as [SecretKind, number][]) byKind.set(kind, (byKind.get(kind) ?? 0) + n);
    if (process.argv.includes('--show')) {
      for (const m of r.text.matchAll(/.{0,50}\[REDACTED:[a-z-]+\].{0,30}/gs)) console.log(`  ${name}: ${m[0].replace(/\s+/g, ' ')}`);
    }
  }
  const s = (performance.now() - t0) / 1000;
  console.log(`${total} redactions in ${holding} of ${all.length} texts (${(chars / 1e6).toFixed(1)} MB in ${s.toFixed(2)} s)`);
  for (const [kind, n] of [...byKind].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))) console.log(`  ${kind}: ${n}`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
