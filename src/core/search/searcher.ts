import type { Embedder } from '../embed/embedder';
import { RecallError } from '../errors';
import type { ShownRooms } from '../store/hitRows';
import type { SearchReads } from '../store/searchReads';
import { exchangeFilter } from '../store/searchFilter';
import { Candidates } from './candidates';
import { KnownPlaces } from './continuation';
import type { DistanceBounds } from './distanceBound';
import { type Fusion, parseFusion, type SignalList } from './fusion';
import { TermStats } from './idf';
import { LexiconBm25 } from './lexiconBm25';
import { modeSignals, parseMode } from './modes';
import { NearestVectors } from './nearestVectors';
import { type SearchPlan, SignalPlanner, withoutModel } from './plan';
import { rank, type Ranking } from './ranking';
import { RecentTexts } from './recentTexts';
import { KeptRows, type SearchAsk, SearchContext } from './searchContext';
import { explain, firstConfidence } from './shaping';
import { queryTerms } from './terms';
import type { FusionName, Layer, ModeName, SearchQuery, SearchResult, Searcher, WarmOptions } from './types';
import { WARM_UP_QUERIES } from './warmUpQueries';
import type { WarmUpTurns } from './warmUpTurns';

/**
 * Chosen by measurement on the dev queries (docs/search.md, "Choosing the default"). Without a model: BM25 on
 * verbatim. With one (semantic search turned on): BM25 on verbatim fused with the distilled layer's vectors,
 * selectively — BM25's answer alone when it is confident, the fusion where it is not — which beat BM25 alone
 * with both models measurable here, while every fusion of all queries fell short of it.
 */
export const DEFAULT_MODE: ModeName = 'verbatim/bm25';
export const SEMANTIC_MODE: ModeName = 'bm25(v)+vec(d)';
export const DEFAULT_FUSION: FusionName = 'selective';
export const DEFAULT_LIMIT = 10;
export const DEFAULT_PER_CONVERSATION = 2;
/**
 * A short query's cap, when it names none: a query of at most SHORT_QUERY_TERMS words (stopwords aside) shows up to
 * SHORT_QUERY_PER_CONVERSATION hits of one conversation. Two to five words name what a session was about more than one
 * moment of it: the session holding them is found, several of its exchanges hold them, and the one remembered was often
 * the third or later of them, which a cap of 2 left to "N more". Chosen on folds of the eval queries' 2-5-word variants
 * (docs/search.md, "Short queries"); a long query's words single its exchange out, and it keeps 2.
 */
export const SHORT_QUERY_TERMS = 5;
export const SHORT_QUERY_PER_CONVERSATION = 6;
const MAX_LIMIT = 200;

export interface SearcherOptions {
  /** The mode of a query that names none: DEFAULT_MODE, or SEMANTIC_MODE with an embedder. */
  readonly defaultMode?: ModeName;
  readonly defaultFusion?: FusionName;
  /** Why there is no embedder (e.g. the model could not load): shown with results of modes that need one. */
  readonly embedderNotice?: string;
  /**
   * The word index's reader, when the searchers of one store share it (Memory): what it read (the exchanges'
   * lengths, ~45 ms of decoding at 250,000 exchanges) stays read when a searcher for another model replaces one.
   */
  readonly lexicon?: LexiconBm25;
  /** The vectors' distance bounds, when the searchers of one store share them (Memory): a sample taken stays taken. */
  readonly bounds?: DistanceBounds;
}

/**
 * The searcher over one store: runs the signals of a mode (candidates.ts), fuses them and keeps at most N hits
 * per conversation (ranking.ts), and explains every hit: score parts, matched terms, snippet, confidence
 * (shaping.ts). Without an embedder, modes that need vectors fall back to their lexical signals and say so in
 * `notice` (plan.ts). It reads the store through `reads` only.
 */
export function createSearcher(reads: SearchReads, embedder?: Embedder, options: SearcherOptions = {}): Searcher {
  return new StoreSearcher(reads, embedder, options);
}

/** What a query asks, its defaults filled in and checked. */
interface ParsedQuery extends Omit<SearchAsk, 'excluded' | 'redact'> {
  readonly mode: ModeName;
  readonly fusionName: FusionName;
  readonly fusion: Fusion;
}

class StoreSearcher implements Searcher {
  private readonly defaultMode: ModeName;
  private readonly defaultFusion: FusionName;
  private readonly lexicon: LexiconBm25;
  private readonly stats: TermStats;
  private readonly knn: NearestVectors;
  private readonly planner: SignalPlanner;
  private readonly candidates: Candidates;
  private readonly recent = new RecentTexts();
  /** The candidates' conversations and requests read so far, kept until the store changes. */
  private readonly places: KnownPlaces;
  /** The hit rows read so far, kept until the store changes. */
  private readonly rows = new KeptRows();
  /** The rooms shown as chips, read once since the store last changed. */
  private shownRooms: Promise<ShownRooms> | undefined;
  /** Whether `warm` ran the warm-up searches (once a searcher: the code they run stays compiled). */
  private exercised = false;

  constructor(
    private readonly reads: SearchReads,
    private readonly embedder: Embedder | undefined,
    options: SearcherOptions,
  ) {
    this.defaultMode = options.defaultMode ?? (embedder ? SEMANTIC_MODE : DEFAULT_MODE);
    this.defaultFusion = options.defaultFusion ?? DEFAULT_FUSION;
    this.lexicon = options.lexicon ?? new LexiconBm25(reads);
    this.stats = new TermStats(reads, this.lexicon);
    this.knn = new NearestVectors(reads, embedder?.dimension ?? 0, options.bounds);
    this.planner = new SignalPlanner(reads, embedder, options.embedderNotice);
    this.places = new KnownPlaces(reads);
    this.candidates = new Candidates(reads, this.lexicon, this.stats, this.knn, this.places);
  }

  async warm(turns?: WarmUpTurns, options: WarmOptions = {}): Promise<void> {
    const layers = await this.defaultVectorLayers();
    const k = candidateCount(DEFAULT_LIMIT, DEFAULT_PER_CONVERSATION);
    // the model's own tables too, a slice at a time (the extension host's thread is every extension's)
    const model = layers.length ? this.embedder?.prepare?.() : undefined;
    await Promise.all([this.lexicon.warm(), this.reads.openReader(), ...layers.map((layer) => this.knn.warm(layer, k)), model]);
    if (this.exercised || options.searches === false) return;
    this.exercised = true;
    // A process's first searches run in V8's interpreter: at 50K the first five took 20-50 ms each where a
    // warm process takes ~7 (docs/search-log.md, "Latency passes"). A few searches here compile the path the user's first ones take.
    for (const text of WARM_UP_QUERIES) {
      if (turns && !(await turns.next())) return;
      await this.search({ text }).catch(() => undefined);
    }
  }

  async prepare(): Promise<void> {
    const layers = await this.defaultVectorLayers();
    const k = candidateCount(DEFAULT_LIMIT, DEFAULT_PER_CONVERSATION);
    await Promise.all([this.lexicon.warm(), ...layers.map((layer) => this.knn.prepare(layer, k))]);
  }

  /** The layers the default mode searches by vector, once the store's changes are taken in (what warm and prepare read ahead for). */
  private async defaultVectorLayers(): Promise<Layer[]> {
    await this.refresh();
    const { specs } = await this.planner.plan(this.defaultMode);
    return specs.filter((s) => s.mechanism === 'vector').map((s) => s.layer);
  }

  async search(query: SearchQuery): Promise<SearchResult> {
    const started = performance.now();
    const q = this.parse(query);
    if (modeSignals(q.mode).some((s) => s.mechanism === 'bm25' && s.layer === 'verbatim')) this.lexicon.readAhead(q.terms);
    // once: BM25, proximity's IDF, adaptive fusion and the plan share the statistics of this moment
    await this.refresh();
    let plan = await this.planner.plan(q.mode);
    let queryVector: Float32Array | undefined;
    let embedding: Promise<void> | undefined;
    /** The query's vector, embedded (once) when a vector signal first needs it. */
    const embedQuery = (): Promise<void> =>
      (embedding ??= (async () => {
        if (!plan.specs.some((s) => s.mechanism === 'vector') || query.text.trim() === '') return;
        try {
          [queryVector] = await this.embedder!.embed([query.text]);
        } catch (err) {
          plan = withoutModel(plan, q.mode, err as Error); // the model died after loading: keep answering, lexically
        }
      })());

    const filter = exchangeFilter(query.filters);
    const excluded = await this.reads.rowNumbersOf(query.exclude ?? []);
    const k = candidateCount(q.limit, q.perConversation) + excluded.size;
    const c = new SearchContext(this.reads, this.recent, this.roomsShown(), { terms: q.terms, limit: q.limit, perConversation: q.perConversation, excluded, redact: query.redact ?? false }, this.rows);
    const listOf = async (spec: SearchPlan['specs'][number]): Promise<SignalList> => this.candidates.list(spec, { k, filter, queryVector }, c);

    let ranking: Ranking | undefined;
    const lists: SignalList[] = [];
    if (plan.specs[0]?.mechanism === 'vector') await embedQuery();
    if (q.fusion.kind === 'selective' && plan.specs.length > 1) {
      // The first signal alone first: when its answer is confident the others only blur it (they help where
      // it is unsure), and are not run (docs/search.md, "Choosing the default"). Not started beside it either: vec0's
      // scan cannot be interrupted, so a KNN started for a confident query would run to its end for nothing.
      lists.push(await listOf(plan.specs[0]!));
      const alone = await rank(this.reads, this.stats, lists, q.fusion, c);
      if ((await firstConfidence(this.stats, alone.kept, c)) === 'high') ranking = alone;
    }
    if (!ranking) {
      await embedQuery();
      for (const spec of plan.specs.slice(lists.length)) lists.push(await listOf(spec));
      ranking = await rank(this.reads, this.stats, lists, q.fusion, c);
    }
    const answer = await explain(this.stats, ranking, c);
    return {
      hits: answer.hits,
      mode: q.mode,
      fusion: q.fusionName,
      confidence: answer.confidence,
      semantic: plan.specs.some((s) => s.mechanism === 'vector'),
      ...(plan.notice ? { notice: plan.notice } : {}),
      ...(plan.wordsOnly ? { wordsOnly: plan.wordsOnly } : {}),
      tookMs: performance.now() - started,
    };
  }

  /** The query's mode, fusion, limits and words, defaults filled in; a bad one is a `bad-argument`. */
  private parse(query: SearchQuery): ParsedQuery {
    const fusionName = query.fusion ?? this.defaultFusion;
    const terms = queryTerms(query.text);
    return {
      mode: query.mode !== undefined ? parseMode(query.mode) : this.defaultMode,
      fusionName,
      fusion: parseFusion(fusionName),
      limit: clampInt(query.limit ?? DEFAULT_LIMIT, 1, MAX_LIMIT, 'limit'),
      // within one conversation every match is wanted: no per-conversation cap
      perConversation: query.filters?.conversation ? MAX_LIMIT : clampInt(query.perConversation ?? defaultPerConversation(terms), 1, MAX_LIMIT, 'perConversation'),
      terms,
    };
  }

  /** The change check: what was read of the store as it was is read again when next needed. */
  private async refresh(): Promise<void> {
    const stamp = await this.stats.refresh();
    if (stamp !== undefined) {
      this.planner.storeChanged();
      this.knn.storeChanged(stamp);
      this.recent.storeChanged();
      this.places.storeChanged();
      this.rows.storeChanged();
      this.shownRooms = undefined;
      void this.roomsShown(); // read beside the search's first statements, ready when its hit rows are
    }
  }

  private roomsShown(): Promise<ShownRooms> {
    if (!this.shownRooms) {
      const reading = (this.shownRooms = this.reads.shownRooms());
      reading.catch(() => {
        if (this.shownRooms === reading) this.shownRooms = undefined; // a failed read is asked again
      });
    }
    return this.shownRooms;
  }
}

/** The per-conversation cap of a query of `terms` (queryTerms) that sets none: SHORT_QUERY_PER_CONVERSATION on a short one. */
export function defaultPerConversation(terms: readonly string[]): number {
  return terms.length > 0 && terms.length <= SHORT_QUERY_TERMS ? SHORT_QUERY_PER_CONVERSATION : DEFAULT_PER_CONVERSATION;
}

/** Each signal fetches this many candidates, so the per-conversation cap and "not these" still leave enough. */
function candidateCount(limit: number, perConversation: number): number {
  return Math.max(100, limit * Math.max(5, Math.ceil(10 / perConversation)));
}

function clampInt(value: number, min: number, max: number, name: string): number {
  if (!Number.isInteger(value) || value < min) throw new RecallError('bad-argument', `${name} must be a whole number of at least ${min}, got ${value}.`);
  return Math.min(value, max);
}
