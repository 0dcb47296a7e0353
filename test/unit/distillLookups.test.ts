import assert from 'node:assert/strict';
import { test } from 'node:test';
import { exchangeWords, namedWords } from '../../src/core/distill/exchangeWords';
import { withoutReferences } from '../../src/core/distill/nonThemes';
import { conceptScan } from '../../src/core/distill/offlineRooms';
import { isStopWord } from '../../src/core/distill/stopWords';
import { mayEnter, searchTerms, TERMS_MAX_TOKENS } from '../../src/core/distill/searchTerms';
import { wordPieceTokens } from '../../src/core/distill/tokenFit';
import { splitVerbatim } from '../../src/core/distill/verbatimParts';
import { englishRarity, WordRarity, words } from '../../src/core/distill/wordRarity';
import { normaliseKey, phraseKeyOf } from '../../src/core/roomKey';

// The offline distiller asks fewer questions of its word tables and patterns (issue 41): these pin that the answers
// are the ones the full questions gave.

let seed = 15;
const random = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;

const VOCABULARY = [
  'the', 'session', 'middleware', 'retry', 'timeout', 'gl_screen', 'sqlite', 'nuxt', 'docker', 'flood', 'log', 'cache',
  'expires', 'users', 'redacted_ip', '0x1f', 'deadbeef12', 'quantum', 'zygote', 'borscht', 'we', 'and', 'build', 'stall',
  'ошибка', 'función', 'théâtre', 'a', 'b2', 'k8s', 'e2e', 'i18n', 'pg_dump', 'vite', 'esbuild', 'rollup', 'webpack',
];

/** searchTerms as it was: every term weighed, then sorted, read best first while they fit. */
function searchTermsBySort(prompt: string, verbatim: string, stats: WordRarity, said: string): string {
  const counted = exchangeWords(prompt, splitVerbatim(verbatim));
  const already = new Set(words(said));
  const terms: Array<{ w: string; weight: number }> = [];
  counted.forEach(({ said: inProse, inErrorsAndArgs, human }, w) => {
    const n = inProse + inErrorsAndArgs;
    if (n > 0 && !already.has(w) && isTermAsBefore(w)) terms.push({ w, weight: stats.idf(w) * (1 + Math.log(n)) * (human ? 2 : 1) });
  });
  terms.sort((a, b) => b.weight - a.weight || (a.w < b.w ? -1 : 1));
  const kept: string[] = [];
  let tokens = 0;
  for (const { w } of terms) {
    const t = wordPieceTokens(w, 1);
    if (tokens + t > TERMS_MAX_TOKENS) break;
    kept.push(w);
    tokens += t;
  }
  return kept.join(' ');
}

function isTermAsBefore(w: string): boolean {
  if (w.length < 2 || w.length > 32 || isStopWord(w)) return false;
  if (/^[\d_]+$/u.test(w)) return false;
  if (/^(?=[a-f\d]*\d)(?=[a-f\d]*[a-f])[a-f\d]{8,}$/u.test(w)) return false;
  return !/^redacted(?:_|$)/u.test(w);
}

test('searchTerms: a word that could not enter the best is not weighed, and the terms are the sort of every term', () => {
  const stats = englishRarity();
  for (let round = 0; round < 60; round++) {
    // short exchanges (fewer terms than can be read) and long ones (most words left unweighed), invented words too
    const n = 5 + Math.floor(random() * 400);
    const word = (): string => (random() < 0.3 ? `${pick(VOCABULARY)}${Math.floor(random() * 50)}` : pick(VOCABULARY));
    const text = (k: number): string => Array.from({ length: k }, word).join(' ');
    const prompt = text(1 + Math.floor(random() * 12));
    const verbatim = [`User: ${prompt}`, `Assistant: ${text(n)}`, `[tool] Bash ${text(5)}`, `Assistant: ${text(n / 4)}`].join('\n');
    const said = text(4);
    assert.equal(searchTerms(prompt, splitVerbatim(verbatim), stats, said), searchTermsBySort(prompt, verbatim, stats, said), `round ${round}`);
  }
});

test('mayEnter: while fewer than can be read every word may; then only one weighing at least the last', () => {
  const full = Array.from({ length: TERMS_MAX_TOKENS + 1 }, (_, i) => 30 - i);
  assert.equal(mayEnter(full.slice(0, 3), 0.1), true);
  assert.equal(mayEnter(full, full.at(-1)!), true);
  assert.equal(mayEnter(full, full.at(-1)! - 1e-9), false);
});

test('WordRarity.maxIdf: no word weighs more, whether the list has it or not', () => {
  const ranks = new Map([['the', 1], ['middleware', 12_000], ['rarest', 250_000]]);
  const stats = new WordRarity(ranks);
  for (const w of ['the', 'middleware', 'rarest', 'unlisted']) assert.ok(stats.idf(w) <= stats.maxIdf, w);
  assert.equal(stats.maxIdf, stats.idf('rarest'));
  const english = englishRarity();
  assert.equal(english.maxIdf, english.idf('a-word-no-list-has'));
});

test("namedWords: the tool name's words of a call, when the arguments' words are the rest of the call's", () => {
  const calls = [
    'Bash logread | grep gl_screen',
    'TodoWrite  \n- [ ] first step',
    'mcp__server__query SELECT * FROM users',
    'Read',
    'Read ',
    '  Bash leading blanks',
    'ΣΟΦΊΑΣ σοφίας',
    'Edit\u00a0src/a.ts',
    'Edit\ufeffΣ b',
    'Write\tthe file',
    `Write ${'long '.repeat(5_000)}`,
  ];
  for (const call of calls) {
    const args = call.replace(/^\S+\s*/u, '');
    const named = namedWords(call, args);
    if (named < 0) continue;
    assert.deepEqual(words(call).slice(named), words(args), JSON.stringify(call));
  }
  // where the rest would not be the arguments' words, or the call is cut, both are read
  assert.equal(namedWords('Read', ''), -1);
  assert.equal(namedWords('  Bash x', '  Bash x'), -1);
  assert.equal(namedWords('Edit\u00a0src/a.ts', ''), -1);
  assert.equal(namedWords('Edit\ufeffΣ b', 'Σ b'), -1);
  assert.equal(namedWords(`Write ${'long '.repeat(5_000)}`, 'long '.repeat(5_000)), -1);
  assert.equal(namedWords('Bash logread | grep x', 'logread | grep x'), 1);
});

test("exchangeWords: a call's words counted as before, its arguments' apart", () => {
  const parts = splitVerbatim(['User: x', '[tool] Bash grep Bash gl_screen', '[tool] TodoWrite\u00a0TodoWrite plan'].join('\n'));
  const counted = exchangeWords('x', parts);
  assert.deepEqual(counted.get('bash'), { said: 0, inCalls: 2, inErrorsAndArgs: 1, human: false, weight: 0 });
  assert.deepEqual(counted.get('gl_screen'), { said: 0, inCalls: 1, inErrorsAndArgs: 1, human: false, weight: 0 });
  // a name that ends at a blank no ASCII one (a no-break space): read twice, as before
  assert.deepEqual(counted.get('todowrite'), { said: 0, inCalls: 2, inErrorsAndArgs: 1, human: false, weight: 0 });
});

/** withoutReferences as it was: both patterns run on every text. */
function withoutReferencesAsBefore(text: string): string {
  return text
    .replace(/\[REDACTED\b[^\]\n]{0,40}\]|<REDACTED\b[^>\n]{0,40}>|\*+REDACTED\*+|\[[A-Z][A-Z0-9_]{1,30}\]/gu, ' ')
    .replace(/(^|\s)#([a-z]\w*)(?::(\S+))?/giu, '$1');
}

test('withoutReferences: the patterns run only on text holding what their matches hold, the same text', () => {
  const pieces = ['[REDACTED_EMAIL]', '<REDACTED>', '***REDACTED***', '[USER]', '[debug]', '[', '[A', '#file:src/a.ts', '#terminalLastCommand', '# heading', 'a#b', 'see ', '\n', 'Σ', '[X]#y'];
  for (let round = 0; round < 2_000; round++) {
    const text = Array.from({ length: Math.floor(random() * 8) }, () => pick(pieces)).join(pick(['', ' ', '\n']));
    assert.equal(withoutReferences(text), withoutReferencesAsBefore(text), JSON.stringify(text));
  }
});

test('phraseKeyOf: two one-word keys ordered as the sort of both', () => {
  assert.equal(phraseKeyOf(['retry'], ['timeout']), 'retry_timeout');
  assert.equal(phraseKeyOf(['timeout'], ['retry']), 'retry_timeout');
  assert.equal(phraseKeyOf(['cach'], ['cach']), 'cach');
  assert.equal(phraseKeyOf(['Zeta'], ['alpha']), 'Zeta_alpha');
  assert.equal(phraseKeyOf(['a', 'b'], ['a']), 'a_b');
});

test("conceptScan: each theme keyed as its surface's whole key, where a word's key words serve two phrases in a row", () => {
  const stats = englishRarity();
  // plain words, names, identifiers, a connector, words no key reuses (not plain: digits, accents), stop words
  const vocabulary = [
    'session', 'middleware', 'retry', 'timeout', 'Docker', 'Nuxt', 'Vitest', 'sqlite', 'cache', 'flood', 'of', 'de', 'the',
    'gl_screen', 'sessionMiddleware', 'k8s', 'E2E', 'théâtre', 'función', 'tabla', 'pedidos', 'and', 'rate', 'limiting',
  ];
  let themes = 0;
  for (let round = 0; round < 300; round++) {
    const text = (k: number): string => Array.from({ length: k }, () => pick(vocabulary)).join(random() < 0.8 ? ' ' : '. ');
    const prompt = text(1 + Math.floor(random() * 20));
    const parts = splitVerbatim(`User: ${prompt}\n\nAssistant: ${text(Math.floor(random() * 60))}`);
    for (const [key, t] of conceptScan(prompt, parts, stats).themes) {
      assert.equal(key, normaliseKey('concept', t.surface), JSON.stringify({ prompt, surface: t.surface }));
      themes++;
    }
  }
  assert.ok(themes > 1_000, `${themes} themes`);
});
