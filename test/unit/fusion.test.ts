import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { RecallError } from '../../src/core/errors';
import { fuse, parseFusion, RRF_K, type SignalList } from '../../src/core/search/fusion';
import { MAX_TERMS, queryTerms } from '../../src/core/search/terms';
import { ftsColumnExpression, ftsExpression } from '../../src/core/store/ftsSearch';

/**
 * Two hand-made lists whose fused orders are worked out by hand below.
 *   lexical (bm25): 1 (10), 2 (6), 3 (2)        -> normalised 1, 0.5, 0
 *   vector:         3 (0.9), 4 (0.8), 1 (0.5)   -> normalised 1, 0.75, 0
 */
const LEXICAL: SignalList = { signal: 'bm25(verbatim)', mechanism: 'bm25', hits: [{ n: 1, score: 10 }, { n: 2, score: 6 }, { n: 3, score: 2 }] };
const VECTOR: SignalList = { signal: 'vector(core)', mechanism: 'vector', hits: [{ n: 3, score: 0.9 }, { n: 4, score: 0.8 }, { n: 1, score: 0.5 }] };

const order = (name: string, lexicalWeight?: number) => fuse([LEXICAL, VECTOR], parseFusion(name), lexicalWeight).map((f) => f.n);

describe('fusion', () => {
  test('rrf: 1/(60+rank) summed; found by both beats found once', () => {
    // 1: 1/61 + 1/63, 3: 1/63 + 1/61 (tie, broken by best rank then row), 2: 1/62, 4: 1/62
    const fused = fuse([LEXICAL, VECTOR], parseFusion('rrf'));
    assert.deepEqual(fused.map((f) => f.n), [1, 3, 2, 4]);
    assert.ok(Math.abs(fused[0]!.score - (1 / (RRF_K + 1) + 1 / (RRF_K + 3))) < 1e-12);
    assert.deepEqual(fused[0]!.parts, [
      { signal: 'bm25(verbatim)', rank: 1, score: 10 },
      { signal: 'vector(core)', rank: 3, score: 0.5 },
    ]);
  });

  test('combmnz: normalised sum times the number of lists that found it', () => {
    // 1: (1+0)*2 = 2; 3: (0+1)*2 = 2; 4: 0.75; 2: 0.5
    assert.deepEqual(order('combmnz'), [1, 3, 4, 2]);
  });

  test('additive: normalised sum', () => {
    // 1: 1, 3: 1, 4: 0.75, 2: 0.5
    assert.deepEqual(order('additive'), [1, 3, 4, 2]);
  });

  test('max: the best normalised score', () => {
    // 1: 1, 3: 1, 4: 0.75, 2: 0.5 — as additive here, so check a case where they differ
    const a: SignalList = { signal: 'a', mechanism: 'bm25', hits: [{ n: 1, score: 3 }, { n: 2, score: 2 }, { n: 3, score: 1 }] };
    const b: SignalList = { signal: 'b', mechanism: 'vector', hits: [{ n: 2, score: 3 }, { n: 3, score: 2.9 }, { n: 1, score: 1 }] };
    // additive: 1: 1+0 = 1, 2: 0.5+1 = 1.5, 3: 0+0.95 = 0.95 -> 2, 1, 3;  max: 1: 1, 2: 1, 3: 0.95 -> 1, 2 (tie: best rank 1 each, row order), 3
    assert.deepEqual(fuse([a, b], parseFusion('additive')).map((f) => f.n), [2, 1, 3]);
    assert.deepEqual(fuse([a, b], parseFusion('max')).map((f) => f.n), [1, 2, 3]);
  });

  test('weighted:<w> gives the first list w and the rest 1-w', () => {
    // w=0.9: 1: 0.9, 2: 0.45, 3: 0.1, 4: 0.075
    assert.deepEqual(order('weighted:0.9'), [1, 2, 3, 4]);
    // w=0.1: 3: 0.9, 4: 0.675, 2: 0.05, 1: 0.1 -> 3, 4, 1, 2
    assert.deepEqual(order('weighted:0.1'), [3, 4, 1, 2]);
  });

  test('selective fuses as weighted:<w> (0.8 unless given) when it fuses at all', () => {
    assert.deepEqual(parseFusion('selective'), { kind: 'selective', weight: 0.8 });
    assert.deepEqual(parseFusion('selective:0.1'), { kind: 'selective', weight: 0.1 });
    assert.deepEqual(order('selective:0.1'), order('weighted:0.1'));
    assert.deepEqual(fuse([LEXICAL, VECTOR], parseFusion('selective')), fuse([LEXICAL, VECTOR], parseFusion('weighted:0.8')));
  });

  test('adaptive: weighted RRF whose lexical share comes from the query', () => {
    // lexical 0.9: 1: .9/61+.1/63 = .01634, 3: .9/63+.1/61 = .01593, 2: .9/62 = .01452, 4: .1/62
    assert.deepEqual(order('adaptive', 0.9), [1, 3, 2, 4]);
    // lexical 0.1: 3: .1/63+.9/61 = .01634, 1: .1/61+.9/63 = .01593, 4: .9/62 = .01452, 2: .1/62
    assert.deepEqual(order('adaptive', 0.1), [3, 1, 4, 2]);
  });

  test('one list passes through with its raw scores under every fusion', () => {
    for (const name of ['rrf', 'combmnz', 'additive', 'max', 'adaptive', 'weighted:0.3', 'selective']) {
      const fused = fuse([VECTOR], parseFusion(name));
      assert.deepEqual(fused.map((f) => [f.n, f.score]), [[3, 0.9], [4, 0.8], [1, 0.5]], name);
    }
  });

  test('unknown fusions are refused with the list of names', () => {
    for (const bad of ['', 'RRF', 'weighted', 'weighted:1.5', 'weighted:-1', 'weighted:x', 'selective:2', 'selective:', 'rrf; DROP TABLE x']) {
      assert.throws(() => parseFusion(bad), (err: unknown) => err instanceof RecallError && err.code === 'bad-argument' && /weighted:<w>/.test(err.message), bad);
    }
    assert.deepEqual(parseFusion('weighted:0.7'), { kind: 'weighted', weight: 0.7 });
    assert.deepEqual(parseFusion('weighted:1'), { kind: 'weighted', weight: 1 });
  });
});

describe('query terms', () => {
  test('word tokens, lower case, distinct, stopwords dropped unless nothing else is left', () => {
    assert.deepEqual(queryTerms('Fix the LOGIN bug, the login!'), ['fix', 'login', 'bug']);
    assert.deepEqual(queryTerms('what is it'), ['what', 'is', 'it']);
    assert.deepEqual(queryTerms('модель запросила InputSimulator.cs'), ['модель', 'запросила', 'inputsimulator', 'cs']);
  });

  test('FTS5 syntax in user text becomes plain quoted words', () => {
    const hostile = 'core: NEAR("a" "b", 2) foo* ^bar "unterminated AND OR NOT ( ) {core} : -x \'; DROP TABLE exchanges; --';
    const expr = ftsExpression(queryTerms(hostile))!;
    for (const part of expr.split(' OR ')) assert.match(part, /^"[\p{L}\p{N}\p{M}]+"$/u, part);
    assert.equal(ftsExpression(queryTerms('')), undefined);
    assert.equal(ftsExpression(queryTerms('*** ^^^ "" ()')), undefined);
    assert.equal(ftsColumnExpression(['a', 'b'], ['core', 'context']), '{core context} : ("a" OR "b")');
  });

  test('a 10 KB query is cut to MAX_TERMS terms', () => {
    const words = Array.from({ length: 2000 }, (_, i) => `word${i}`).join(' ');
    assert.equal(queryTerms(words).length, MAX_TERMS);
  });
});
