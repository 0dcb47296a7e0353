import { redact } from '../distill/redact';
import type { Embedder } from '../embed/embedder';
import { storedVectorSpace, VECTOR_TABLES } from '../store/vectorStore';
import { RecallError } from '../errors';
import type { Store } from '../store/store';
import { type ConfidenceEvidence, confidenceOf, confidencesByRank, SELECTIVE_TRUST } from './confidence';
import { afterRequests, requestsOf } from './continuation';
import { buildFilter, type SqlFilter } from './filters';
import { demoteWordless } from './evidence';
import { type Fused, type Fusion, fuse, parseFusion, type SignalList } from './fusion';
import { copiesAmong } from './copies';
import { type Capped, capPerConversation } from './diversity';
import { conversationsOf, firstPrompts, type HitRow, loadHitRows, readShownRooms, rowNumbersOf, type ShownRooms } from './hits';
import { bm25, type Scored } from './lexical';
import { LexiconBm25 } from './lexiconBm25';
import { lexicalFallback, modeSignals, parseMode, type SignalSpec, signalName } from './modes';
import { IDF_FLOOR, TermStats } from './idf';
import { type TextsOf, withProximity } from './proximity';
import { NearestVectors } from './nearestVectors';
import { makeSnippet, type Snippet } from './snippet';
import { queryTerms } from './terms';
import type { Confidence, FusionName, Hit, Layer, ModeName, SavedCopy, SearchQuery, SearchResult, Searcher, WordsOnlyReason } from './types';
import { vectorSearch } from './vector';

/**
 * Chosen by measurement on the dev queries (README, "Choosing the default"). Without a model: BM25 on
 * verbatim. With one (semantic search turned on): BM25 on verbatim fused with the distilled layer's vectors,
 * selectively — BM25's answer alone when it is confident, the fusion where it is not — which beat BM25 alone
 * with both models measurable here, while every fusion of all queries fell short of it.
 */
export const DEFAULT_MODE: ModeName = 'verbatim/bm25';
export const SEMANTIC_MODE: ModeName = 'bm25(v)+vec(d)';
export const DEFAULT_FUSION: FusionName = 'selective';
export const DEFAULT_LIMIT = 10;
export const DEFAULT_PER_CONVERSATION = 2;
const MAX_LIMIT = 200;
/**
 * What `warm` searches for, results unused: several words and one, confident and unsure answers (the second
 * signal and its fusion), a code name and a path, so that every stage of a search has run; and a question in
 * each script words.ts reads its own way (Cyrillic, Chinese, Korean), whose first search otherwise pays for
 * the segmenter's dictionary and for code V8 had not yet seen (README, "Latency", thirteenth pass).
 */
const WARM_UP_QUERIES = [
  'why does the build fail after the update',
  'add a test for the parser error',
  'config',
  'rename getUserName in src/api/client.ts',
  'slow database query when the cache is cold',
  'how did we decide on the retry limit',
  'почему тесты падают после обновления зависимостей',
  '为什么更新依赖以后测试失败了',
  '의존성을 업데이트한 뒤 테스트가 실패하는 이유',
];

/** Why a layer's vectors cannot be used now: the reason, and the words for the notice. */
interface VectorObstacle {
  readonly reason: WordsOnlyReason;
  readonly text: string;
}

export interface SearcherOptions {
  /** The mode of a query that names none: DEFAULT_MODE, or SEMANTIC_MODE with an embedder. */
  readonly defaultMode?: ModeName;
  readonly defaultFusion?: FusionName;
  /** Why there is no embedder (e.g. the model could not load): shown with results of modes that need one. */
  readonly embedderNotice?: string;
}

/** Each signal fetches this many candidates, so the per-conversation cap and "not these" still leave enough. */
function candidateCount(limit: number, perConversation: number): number {
  return Math.max(100, limit * Math.max(5, Math.ceil(10 / perConversation)));
}

/**
 * The searcher over one store: runs the signals of a mode, fuses them, keeps at most N hits per
 * conversation and explains every hit (score parts, matched terms, snippet, confidence). Without an
 * embedder, modes that need vectors fall back to their lexical signals and say so in `notice`.
 */
export function createSearcher(store: Store, embedder?: Embedder, options: SearcherOptions = {}): Searcher {
  const db = store.db;
  const defaultMode = options.defaultMode ?? (embedder ? SEMANTIC_MODE : DEFAULT_MODE);
  const defaultFusion = options.defaultFusion ?? DEFAULT_FUSION;

  const lexicon = new LexiconBm25(db);
  const stats = new TermStats(db, lexicon);
  const knn = new NearestVectors(db, embedder?.dimension ?? 0);

  /** vectorObstacle's answers since the store last changed (two statements a search saved). */
  const obstacles = new Map<Layer, Promise<VectorObstacle | undefined>>();
  function vectorObstacle(layer: Layer): Promise<VectorObstacle | undefined> {
    let known = obstacles.get(layer);
    if (!known) {
      obstacles.set(layer, (known = findVectorObstacle(layer)));
      known.catch(() => obstacles.delete(layer)); // a failed read is asked again
    }
    return known;
  }

  /** The rooms shown as chips, read once since the store last changed. */
  let shownRooms: Promise<ShownRooms> | undefined;
  function roomsShown(): Promise<ShownRooms> {
    if (!shownRooms) {
      const reading = (shownRooms = readShownRooms(db));
      reading.catch(() => {
        if (shownRooms === reading) shownRooms = undefined; // a failed read is asked again
      });
    }
    return shownRooms;
  }

  /** Why vectors of `layer` cannot be used now, or undefined when they can. */
  async function findVectorObstacle(layer: Layer): Promise<VectorObstacle | undefined> {
    if (!embedder) return { reason: 'no-model', text: options.embedderNotice ?? 'No embedding model is configured' };
    if (!store.vectorsAvailable) return { reason: 'no-vector-extension', text: store.vectorError ?? 'sqlite-vec is not loaded' };
    const space = await storedVectorSpace(db);
    if (!space) return { reason: 'not-embedded', text: 'Nothing has been embedded yet (run the indexer with an embedding model)' };
    if (space.modelId !== embedder.modelId || space.dimension !== embedder.dimension) {
      return { reason: 'not-embedded', text: `The stored vectors come from ${space.modelId} (${space.dimension}-d), not ${embedder.modelId}; re-index to embed again` };
    }
    const any = await db.get<{ one: number }>('SELECT 1 AS one FROM vector_rows WHERE layer = ? LIMIT 1', [layer]);
    if (!any) return { reason: 'not-embedded', text: `The ${layer} layer has no vectors (${VECTOR_TABLES[layer]} is empty)` };
    return undefined;
  }

  /** The signals that can run now, and what was given up (for `notice`; `wordsOnly`: the first reason). */
  async function plan(mode: ModeName): Promise<{ specs: SignalSpec[]; notice?: string; wordsOnly?: WordsOnlyReason }> {
    const wanted = modeSignals(mode);
    const found: VectorObstacle[] = [];
    const usable: SignalSpec[] = [];
    for (const spec of wanted) {
      const obstacle = spec.mechanism === 'vector' ? await vectorObstacle(spec.layer) : undefined;
      if (obstacle === undefined) usable.push(spec);
      else if (!found.some((o) => o.text === obstacle.text)) found.push(obstacle);
    }
    if (found.length === 0) return { specs: usable };
    const specs = usable.length > 0 ? usable : lexicalFallback(wanted);
    return {
      specs,
      notice: `${found.map((o) => o.text.replace(/\.+$/, '')).join('; ')}. ${mode} falls back to lexical search (${specs.map(signalName).join(' + ')}).`,
      ...(specs.some((s) => s.mechanism === 'vector') ? {} : { wordsOnly: found[0]!.reason }),
    };
  }

  /**
   * Proximity's texts: its candidates' whole hit rows, kept in `rows`. The hits shown are nearly always among
   * them (all 650 of the dev queries' at 50K exchanges): one statement and one reading of each text, not two.
   */
  function hitRowTexts(rows: Map<number, HitRow>): TextsOf {
    return async (ns) => {
      const texts = new Map<number, string>();
      for (const [n, row] of await loadHitRows(db, ns, await roomsShown())) {
        rows.set(n, row);
        texts.set(n, row.verbatim);
      }
      return texts;
    };
  }

  /**
   * `conversations` gathers the candidates' conversations a signal happens to read (for the per-conversation
   * cap), `rows` the hit rows it reads (for the hits shown).
   */
  async function runSignal(spec: SignalSpec, terms: readonly string[], queryVector: Float32Array | undefined, k: number, filter: SqlFilter | undefined, conversations: Map<number, string>, rows: Map<number, HitRow>): Promise<Scored[]> {
    if (spec.mechanism === 'bm25') {
      if (spec.layer !== 'verbatim') return bm25(db, spec.layer, terms, k, filter);
      const hits = await lexicon.search(terms, k, filter);
      // the continuations' statement on the second connection, beside proximity's reading
      const reader = await store.reader();
      const [near, requests] = await Promise.all([
        // one word has no neighbour: no proximity, and no IDF lookup on every single-word search
        terms.length < 2 ? hits : stats.idf(terms).then((idf) => withProximity(hitRowTexts(rows), terms, idf, hits)),
        requestsOf(reader ?? db, hits, conversations),
      ]);
      return afterRequests(near, requests);
    }
    if (!queryVector) throw new RecallError('bad-argument', `The ${signalName(spec)} signal needs a query vector.`);
    return vectorSearch(db, spec.layer, queryVector, k, { filter, knn, conversations });
  }

  /** The hits kept, and the near copies folded into each (row numbers), by its row number. */
  type Ranking = Capped<Fused> & { readonly folded: ReadonlyMap<number, readonly number[]> };

  interface ShapeContext {
    readonly terms: readonly string[];
    readonly limit: number;
    readonly perConversation: number;
    /** Conversations and hit rows the signals already read. */
    readonly known: Map<number, string>;
    readonly read: Map<number, HitRow>;
    /** Row numbers of the exchanges the user said "not these" about. */
    readonly excluded: ReadonlySet<number>;
    /** The snippets made so far, by row number (selective's first hit is explained again). */
    readonly snippets: Map<number, Snippet>;
    /** Snippets shown are cut from the redacted text (SearchQuery.redact). */
    readonly redact: boolean;
  }

  /** The snippet of `row` for this search, made once. */
  function snippetOf(row: HitRow, c: ShapeContext): Snippet {
    let snippet = c.snippets.get(row.n);
    if (!snippet) c.snippets.set(row.n, (snippet = makeSnippet(row.verbatim, c.terms)));
    return snippet;
  }

  /**
   * Fuses the signals' lists and keeps at most N hits per conversation, each exchange once: a hit that is the
   * same exchange as a candidate above it (copies.ts) is folded into that one, and the next candidate takes its
   * place. The candidates above are those kept and those the cap left out whose rows were read already (the
   * first RERANK_DEPTH, proximity's), so that a conversation saved twice does not come back through its copy
   * once the cap has left its original out, nor the copy of an exchange the user said "not these" about. Where
   * vectors took part, a fused hit holding no query word goes below those that hold one.
   */
  async function rank(lists: readonly SignalList[], fusion: Fusion, c: ShapeContext): Promise<Ranking> {
    const merged = fuse(lists, fusion, fusion.kind === 'adaptive' ? await stats.lexicalWeight(c.terms) : undefined);
    const semantic = lists.some((l) => l.mechanism === 'vector');
    const fused = lists.length > 1 && semantic ? await demoteWordless(db, c.terms, merged) : merged;
    const conversation = await conversationsOf(db, fused.map((f) => f.n), c.known);
    const folded = new Map<number, number[]>();
    for (let candidates = fused; ; ) {
      const capped = capPerConversation(candidates, conversation, c.perConversation, c.limit);
      const last = capped.kept.at(-1);
      const above = last ? candidates.slice(0, candidates.indexOf(last) + 1).map((f) => f.n) : [];
      const rows = await rowsOf([...c.excluded, ...capped.kept.map((f) => f.n)], c.read);
      const copies = copiesAmong([...c.excluded, ...above], (n) => rows.get(n));
      if (copies.size === 0) return { ...capped, folded };
      for (const [copy, original] of copies) if (!c.excluded.has(original)) folded.set(original, [...(folded.get(original) ?? []), copy]);
      candidates = candidates.filter((f) => !copies.has(f.n));
    }
  }

  /** The hit rows of `ns`: those read already, the others loaded (and kept in `read`). */
  async function rowsOf(ns: readonly number[], read: Map<number, HitRow>): Promise<Map<number, HitRow>> {
    const unread = ns.filter((n) => !read.has(n));
    if (unread.length > 0) for (const [n, row] of await loadHitRows(db, unread, await roomsShown())) read.set(n, row);
    return read;
  }

  /** Where else the exchange of `row` was saved: its exact copies, and the near copies folded into it with theirs. */
  function savedCopies(row: HitRow, folded: readonly number[], rows: ReadonlyMap<number, HitRow>): SavedCopy[] {
    const out = [...row.copies];
    for (const n of folded) {
      const copy = rows.get(n);
      if (copy) out.push({ file: copy.file, lineStart: copy.lineStart, lineEnd: copy.lineEnd }, ...copy.copies);
    }
    return out;
  }

  /** Whether selective fusion may trust a ranking's first hit alone: its label by SELECTIVE_TRUST's rules. */
  async function firstConfidence(kept: readonly Fused[], c: ShapeContext): Promise<Confidence> {
    const first = kept[0];
    const row = first && (await rowsOf([first.n], c.read)).get(first.n);
    if (!row) return 'low';
    const coverage = coverageOf(snippetOf(row, c).matchedTerms, c.terms, await stats.idf(c.terms));
    return confidenceOf({ coverage, position: 1, relative: 1, margin: marginOf(kept) }, SELECTIVE_TRUST);
  }

  /** Explains every kept hit (snippet, matched words, what the cap left out of its conversation) with its confidence. */
  async function explain({ kept, left, folded }: Ranking, c: ShapeContext): Promise<{ hits: Hit[]; confidence: Confidence }> {
    const { terms } = c;
    const rows = await rowsOf(kept.map((f) => f.n), c.read);
    const untitled = kept.map((f) => rows.get(f.n)).filter((r) => r && !r.title && left.has(r.conversationId)).map((r) => r!.conversationId);
    const openings = untitled.length === 0 ? new Map<string, string>() : await firstPrompts(db, [...new Set(untitled)]);
    const top = kept[0]?.score ?? 0;
    const margin = marginOf(kept);
    const idf = kept.length > 0 ? await stats.idf(terms) : new Map<string, number>();
    const shaped: Array<{ hit: Omit<Hit, 'confidence'>; evidence: ConfidenceEvidence }> = [];
    for (const [i, f] of kept.entries()) {
      const row = rows.get(f.n);
      if (!row) continue; // deleted between ranking and loading (a concurrent re-index)
      const snippet = snippetOf(row, c);
      const coverage = coverageOf(snippet.matchedTerms, terms, idf);
      const { n: _n, verbatim: _v, ...shown } = row;
      const opening = openings.get(row.conversationId);
      shaped.push({
        hit: {
          ...shown,
          score: f.score,
          parts: f.parts,
          snippet: c.redact ? makeSnippet(redact(row.verbatim), terms).text : snippet.text,
          matchedTerms: telling(snippet.matchedTerms, idf),
          more: left.get(row.conversationId) ?? 0,
          ...(opening !== undefined ? { firstPrompt: opening } : {}),
          copies: savedCopies(row, folded.get(f.n) ?? [], rows),
        },
        evidence: { coverage, position: i + 1, relative: top > 0 ? f.score / top : 0, margin },
      });
    }
    const labels = confidencesByRank(shaped.map((s) => s.evidence));
    const hits: Hit[] = shaped.map((s, i) => ({ ...s.hit, confidence: labels[i]! }));
    return { hits, confidence: hits[0]?.confidence ?? 'low' };
  }

  /** The change check: what was read of the store as it was is read again when next needed. */
  async function refresh(): Promise<void> {
    if (await stats.refresh()) {
      obstacles.clear();
      knn.storeChanged();
      shownRooms = undefined;
      void roomsShown(); // read beside the search's first statements, ready when its hit rows are
    }
  }

  /** Whether `warm` ran the warm-up searches (once a searcher: the code they run stays compiled). */
  let exercised = false;

  const searcher: Searcher = {
    async warm(): Promise<void> {
      await refresh();
      const { specs } = await plan(defaultMode);
      const k = candidateCount(DEFAULT_LIMIT, DEFAULT_PER_CONVERSATION);
      await Promise.all([
        lexicon.warm(),
        store.reader(),
        ...specs.filter((s) => s.mechanism === 'vector').map((s) => knn.warm(s.layer, k)),
      ]);
      if (exercised) return;
      exercised = true;
      // A process's first searches run in V8's interpreter: at 50K the first five took 20-50 ms each where a
      // warm process takes ~7 (README, "Latency"). A few searches here compile the path the user's first ones take.
      for (const text of WARM_UP_QUERIES) await searcher.search({ text }).catch(() => undefined);
    },

    async search(query: SearchQuery): Promise<SearchResult> {
      const started = performance.now();
      const mode = query.mode !== undefined ? parseMode(query.mode) : defaultMode;
      const fusionName = query.fusion ?? defaultFusion;
      const fusion: Fusion = parseFusion(fusionName);
      const limit = clampInt(query.limit ?? DEFAULT_LIMIT, 1, MAX_LIMIT, 'limit');
      // within one conversation every match is wanted: no per-conversation cap
      const perConversation = query.filters?.conversation ? MAX_LIMIT : clampInt(query.perConversation ?? DEFAULT_PER_CONVERSATION, 1, MAX_LIMIT, 'perConversation');
      const terms = queryTerms(query.text);

      if (modeSignals(mode).some((s) => s.mechanism === 'bm25' && s.layer === 'verbatim')) lexicon.readAhead(terms);
      // once: BM25, proximity's IDF, adaptive fusion and the plan share the statistics of this moment
      await refresh();
      let { specs, notice, wordsOnly } = await plan(mode);
      let queryVector: Float32Array | undefined;
      let embedding: Promise<void> | undefined;
      /** The query's vector, embedded (once) when a vector signal first needs it. */
      const embedQuery = (): Promise<void> =>
        (embedding ??= (async () => {
          if (!specs.some((s) => s.mechanism === 'vector') || query.text.trim() === '') return;
          try {
            [queryVector] = await embedder!.embed([query.text]);
          } catch (err) {
            // The model died after loading: keep answering, lexically, and say why.
            specs = lexicalFallback(specs);
            wordsOnly = 'model-failed';
            notice = `${(err as Error).message.replace(/\.+$/, '')}. ${mode} falls back to lexical search (${specs.map(signalName).join(' + ')}).`;
          }
        })());

      const filter = buildFilter(query.filters);
      const excluded = await rowNumbersOf(db, query.exclude ?? []);
      const k = candidateCount(limit, perConversation) + excluded.size;
      const known = new Map<number, string>();
      const read = new Map<number, HitRow>();
      const listOf = async (spec: SignalSpec): Promise<SignalList> => {
        const hits = spec.mechanism === 'vector' && !queryVector ? [] : (await runSignal(spec, terms, queryVector, k, filter, known, read)).filter((h) => !excluded.has(h.n));
        return { signal: signalName(spec), mechanism: spec.mechanism, hits };
      };
      const context: ShapeContext = { terms, limit, perConversation, known, read, excluded, snippets: new Map(), redact: query.redact ?? false };

      let ranking: Ranking | undefined;
      const lists: SignalList[] = [];
      if (specs[0]?.mechanism === 'vector') await embedQuery();
      if (fusion.kind === 'selective' && specs.length > 1) {
        // The first signal alone first: when its answer is confident the others only blur it (they help where
        // it is unsure), and are not run (README, "Choosing the default"). Not started beside it either: vec0's
        // scan cannot be interrupted, so a KNN started for a confident query would run to its end for nothing.
        lists.push(await listOf(specs[0]!));
        const alone = await rank(lists, fusion, context);
        if ((await firstConfidence(alone.kept, context)) === 'high') ranking = alone;
      }
      if (!ranking) {
        await embedQuery();
        for (const spec of specs.slice(lists.length)) lists.push(await listOf(spec));
        ranking = await rank(lists, fusion, context);
      }
      const answer = await explain(ranking, context);
      return {
        hits: answer.hits,
        mode,
        fusion: fusionName,
        confidence: answer.confidence,
        semantic: specs.some((s) => s.mechanism === 'vector'),
        ...(notice ? { notice } : {}),
        ...(wordsOnly ? { wordsOnly } : {}),
        tookMs: performance.now() - started,
      };
    },
  };
  return searcher;
}

function clampInt(value: number, min: number, max: number, name: string): number {
  if (!Number.isInteger(value) || value < min) throw new RecallError('bad-argument', `${name} must be a whole number of at least ${min}, got ${value}.`);
  return Math.min(value, max);
}

/** How far the first hit stands out: (its score - the second's) / its score; 1 alone, 0 when scored 0. */
function marginOf(kept: readonly Fused[]): number {
  const top = kept[0]?.score ?? 0;
  // a first hit scored 0 (the query's words are in most exchanges) stands out from nothing
  return top <= 0 ? 0 : kept.length > 1 ? (top - kept[1]!.score) / top : 1;
}

/** A word in most exchanges ("the", "how", "do", "one"; FTS5 floors its IDF) tells none of them apart. */
function tells(term: string, idf: ReadonlyMap<string, number>): boolean {
  return (idf.get(term) ?? 0) > IDF_FLOOR;
}

/**
 * The share of the query's words a hit holds, among the words that tell exchanges apart, so a hit holding
 * only words in most exchanges covers nothing (0 when the query has no other word).
 */
function coverageOf(matched: readonly string[], terms: readonly string[], idf: ReadonlyMap<string, number>): number {
  const all = terms.filter((t) => tells(t, idf)).length;
  return all > 0 ? matched.filter((t) => tells(t, idf)).length / all : 0;
}

/** The matched words a hit shows as why it matched: those that tell exchanges apart, else (none do) all of them. */
function telling(matched: readonly string[], idf: ReadonlyMap<string, number>): string[] {
  const some = matched.filter((t) => tells(t, idf));
  return some.length > 0 ? some : [...matched];
}
