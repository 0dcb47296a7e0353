import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';

const ROOT = path.resolve(__dirname, '../../..');
type AsciiSource = (text: string, fileName?: string) => string;
const load = async (): Promise<AsciiSource> =>
  ((await import(pathToFileURL(path.join(ROOT, 'scripts/asciiSource.mjs')).href)) as { asciiSource: AsciiSource }).asciiSource;

/** The regular expression literals and String.raw templates of a source, as written. */
function literals(text: string): { regexes: string[]; raws: string[] } {
  const source = ts.createSourceFile('x.ts', text, ts.ScriptTarget.Latest, true);
  const regexes: string[] = [];
  const raws: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isRegularExpressionLiteral(node)) regexes.push(node.text);
    else if (ts.isTaggedTemplateExpression(node) && node.tag.getText(source) === 'String.raw') raws.push(node.getText(source));
    ts.forEachChild(node, visit);
  };
  visit(source);
  return { regexes, raws };
}

const regex = (literal: string): RegExp => {
  const end = literal.lastIndexOf('/');
  return new RegExp(literal.slice(1, end), literal.slice(end + 1));
};

/** Whether two regular expressions find the same matches in `text` (all of them, or the first). */
function sameMatches(a: RegExp, b: RegExp, text: string): boolean {
  const all = (r: RegExp): string => JSON.stringify(r.global || r.sticky ? [...text.matchAll(new RegExp(r.source, r.flags.includes('g') ? r.flags : `${r.flags}g`))].map((m) => [m.index, ...m]) : r.exec(text));
  return all(a) === all(b);
}

test('non-ASCII characters of regular expressions and String.raw templates become escapes of the same values', async () => {
  const asciiSource = await load();
  const text = [
    'const a = /[─━═]{3}/u;',
    'const b = /😀|é/;',
    'const c = /^here(?:[\'’]s| is)\\b/iu;',
    'const x = "y";',
    'const raw = String.raw`(?:\\s|⏎|\\\\[rn])+${x}…😀`;',
    'const plain = "…"; // ✓ a comment stays',
  ].join('\n');
  const out = asciiSource(text);
  const [before, after] = [literals(text), literals(out)];
  for (const r of [...after.regexes, ...after.raws]) assert.match(r, /^[\0-\x7f]*$/, r);
  assert.ok(out.includes('"…"') && out.includes('✓'), 'strings and comments are left to esbuild');
  const probes = ['───', '━━═', '😀', 'é', 'here’s it', "here's", 'HERE’S', '\ud83d', 'a ─━═ b'];
  before.regexes.forEach((r, i) => probes.forEach((p) => assert.ok(sameMatches(regex(r), regex(after.regexes[i]!), p), `${r} / ${after.regexes[i]} on ${p}`)));
  const value = (t: string): string => new Function('x', `return ${t};`)('y') as string;
  assert.equal(value(after.raws[0]!), value(before.raws[0]!));
  assert.equal(asciiSource('const a = /x/;'), 'const a = /x/;');
  assert.throws(() => asciiSource('const a = /\\…/;'), /escaped non-ASCII/);
  assert.throws(() => asciiSource('const a = String.raw`\\…`;'), /escaped non-ASCII/);
});

test("the repository's sources: their regular expressions match as written, and none is left non-ASCII", async () => {
  const asciiSource = await load();
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : []));
  let changed = 0;
  for (const file of walk(path.join(ROOT, 'src'))) {
    const text = readFileSync(file, 'utf8');
    const [before, after] = [literals(text), literals(asciiSource(text, file))];
    assert.equal(after.regexes.length, before.regexes.length, file);
    before.regexes.forEach((r, i) => {
      const escaped = after.regexes[i]!;
      assert.match(escaped, /^[\0-\x7f]*$/, `${file}: ${escaped}`);
      if (escaped === r) return;
      changed++;
      // probes: the literal's own text, its non-ASCII characters alone and with ASCII around them
      const chars = [...new Set(r.match(/[^\0-\x7f]/gu))];
      const probes = [r, ...chars, chars.join(''), ...chars.map((c) => `here${c}s a ${c}x-${c}`)];
      for (const p of probes) assert.ok(sameMatches(regex(r), regex(escaped), p), `${file}: ${r} on ${p}`);
    });
    for (const raw of after.raws) assert.match(raw, /^[\0-\x7f]*$/, `${file}: ${raw}`);
  }
  assert.ok(changed >= 30, `${changed} regular expressions escaped`);
});
