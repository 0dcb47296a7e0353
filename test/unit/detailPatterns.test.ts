import assert from 'node:assert/strict';
import { test } from 'node:test';
import { IDENT_RE, PATH_RE } from '../../src/core/distill/details';

/** The detail patterns as they were before their lookaheads (details.ts): the same matches are asked of the new ones. */
const PATH_BEFORE =
  /(?<![\w.@…-])(?:[\w.@-]+\/)+[\w.@-]+\.[A-Za-z]\w{0,7}\b|(?<![\w.@/…-])[\w-]+\.(?:ts|tsx|js|jsx|mjs|py|rs|go|java|rb|php|md|json|ya?ml|toml|css|html|sh|sql|c|cpp|h)\b/g;
const IDENT_BEFORE =
  /(?<![\w.…-])(?:[a-z]+(?:[A-Z][a-z0-9]*)+|[A-Za-z][a-z0-9]*(?:_[A-Za-z0-9]+)+|[A-Z][a-z]+(?:[A-Z][a-z0-9]+)+|--[a-z][\w-]{2,})(?![\w-])/g;

/** Pieces of every kind the two patterns tell apart: letters of both cases, digits, the path and flag punctuation, extensions, other scripts. */
const PIECES = ['a', 'b', 'Z', 'Q', 'x', '0', '7', '_', '-', '--', '.', '/', '@', '…', ' ', '\n', '\t', ':', '(', '"', 'é', 'ж', '😀', 'ts', 'json', 'yml', 'py', 'c', 'h', 'src', 'Error', 'fooBar', 'snake_case', 'Pascal', '--flag', ' ', ' ', 'src/', 'a.ts', '.md', 'lib/x.js'];

function randomTexts(count: number, length: number): string[] {
  let x = 41;
  const texts: string[] = [];
  for (let t = 0; t < count; t++) {
    let s = '';
    for (let i = 0; i < length; i++) {
      x = (x * 1103515245 + 12345) % 2 ** 31;
      s += PIECES[x % PIECES.length];
    }
    texts.push(s);
  }
  return texts;
}

const matches = (re: RegExp, text: string): string[] => [...text.matchAll(re)].map((m) => `${m.index}:${m[0]}`);

test('the path and identifier patterns with their lookaheads match what they matched without them', () => {
  const texts = [
    ...randomTexts(4000, 30),
    'see src/core/distill/details.ts and ./out/test.js, then README.md; @scope/pkg/index.d.ts v1.2.3 a.b/c',
    'call fooBar() or foo_bar, FooBar, XMLHttpRequest, --dry-run, -x, __init__, a_b_c, Ab, aB, A_B',
  ];
  let paths = 0;
  let identifiers = 0;
  for (const text of texts) {
    const path = matches(PATH_RE, text);
    assert.deepEqual(path, matches(PATH_BEFORE, text), JSON.stringify(text));
    const ident = matches(IDENT_RE, text);
    assert.deepEqual(ident, matches(IDENT_BEFORE, text), JSON.stringify(text));
    paths += path.length;
    identifiers += ident.length;
  }
  // the texts gave both patterns plenty to match
  assert.ok(paths > 500 && identifiers > 500, `${paths} paths, ${identifiers} identifiers`);
});
