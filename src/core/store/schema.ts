import { RecallError } from '../errors';
import { rereadCommandOutputSources } from './commandOutputSources';
import { rereadCommandSources } from './commandSources';
import { CONTENTLESS_FTS_SQL } from './contentlessFts';
import type { Db } from './db';
import { DISTILLED_CORE_FTS_SQL } from './distilledCoreFts';
import { DISCOVERY_MEMO_SQL } from './discoveryMemo';
import { rebuildDistilledFts } from './distilledStore';
import { buildLexicon, retermCyrillic } from './exchangeFts';
import { EXCHANGE_HASHES_SQL, hashStoredExchanges } from './exchangeHashes';
import { fillThreeColumnFts } from './legacyFts';
import { LEXICON_SCHEMA } from './lexicon';
import { rereadNotificationSources } from './notificationSources';
import { rereadPlanSources } from './planSources';
import { rereadPromptSources } from './promptSources';
import { rereadQueueAndReplaySources } from './queueAndReplaySources';
import { rereadReadLineSources } from './readLineSources';
import { markAllRoomsDirty, refreshRooms } from './roomStats';
import { RETRY_PROMPT } from './rows';
import { rereadTodoListSources } from './todoListSources';
import { UNCOUNTED_INDEX_SQL } from './uncountedIndex';

/**
 * Forward-only migrations keyed by schema version. Each runs in one transaction with its version stamp.
 * A store stamped with a version newer than the last migration was written by a newer Agent Recall and is
 * refused rather than guessed at.
 */
interface Migration {
  readonly version: number;
  readonly sql: string;
  /** Work SQL alone cannot do (e.g. text computed in JavaScript), run after `sql` in the same transaction. */
  readonly run?: (db: Db, progress: (done: number, total: number) => void) => Promise<void>;
  /** What `run` does, in a few words, for the progress it reports (a long run reports). */
  readonly step?: string;
}

/** How far a long migration has come: `done` of `total` (exchanges), for a progress notification. */
export interface MigrationProgress {
  readonly version: number;
  readonly step: string;
  readonly done: number;
  readonly total: number;
}

const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    sql: `
      CREATE TABLE sources (
        id INTEGER PRIMARY KEY,
        path TEXT NOT NULL UNIQUE,
        agent TEXT NOT NULL,
        size INTEGER NOT NULL DEFAULT 0,
        mtime_ms INTEGER NOT NULL DEFAULT 0,
        head_hash TEXT NOT NULL DEFAULT '',
        anchor_hash TEXT NOT NULL DEFAULT '',
        parsed_offset INTEGER NOT NULL DEFAULT 0,
        next_line INTEGER NOT NULL DEFAULT 1,
        resume_offset INTEGER NOT NULL DEFAULT 0,
        resume_line INTEGER NOT NULL DEFAULT 1,
        resume_ply INTEGER NOT NULL DEFAULT 0,
        resume_meta TEXT,
        pending_partial INTEGER NOT NULL DEFAULT 0,
        last_error TEXT,
        indexed_at INTEGER
      );
      CREATE TABLE conversations (
        id TEXT PRIMARY KEY,
        source_id INTEGER NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
        agent TEXT NOT NULL,
        session_id TEXT NOT NULL,
        project TEXT,
        git_branch TEXT,
        title TEXT,
        started_at TEXT,
        is_subagent INTEGER NOT NULL DEFAULT 0,
        parent_session_id TEXT,
        model TEXT,
        line INTEGER NOT NULL
      );
      CREATE INDEX conversations_source ON conversations(source_id, line);
      CREATE TABLE exchanges (
        n INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
        source_id INTEGER NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
        part INTEGER NOT NULL,
        ply_start INTEGER NOT NULL,
        ply_end INTEGER NOT NULL,
        line_start INTEGER NOT NULL,
        line_end INTEGER NOT NULL,
        byte_start INTEGER NOT NULL,
        started_at TEXT,
        ended_at TEXT,
        prompt TEXT NOT NULL,
        verbatim TEXT NOT NULL,
        verbatim_tokens INTEGER
      );
      CREATE INDEX exchanges_source ON exchanges(source_id, byte_start);
      CREATE INDEX exchanges_conversation ON exchanges(conversation_id, line_start);
      CREATE INDEX exchanges_time ON exchanges(started_at);
      CREATE TABLE files_touched (
        exchange_n INTEGER NOT NULL REFERENCES exchanges(n) ON DELETE CASCADE,
        path TEXT NOT NULL,
        how TEXT NOT NULL,
        lines TEXT,
        PRIMARY KEY (exchange_n, path)
      ) WITHOUT ROWID;
      CREATE INDEX files_touched_path ON files_touched(path);
      CREATE TABLE skipped_lines (
        source_id INTEGER NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
        line INTEGER NOT NULL,
        reason TEXT NOT NULL,
        PRIMARY KEY (source_id, line)
      ) WITHOUT ROWID;
      CREATE TABLE dropped_exchanges (
        source_id INTEGER NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
        byte_start INTEGER NOT NULL,
        line_start INTEGER NOT NULL,
        line_end INTEGER NOT NULL,
        prompts INTEGER NOT NULL,
        PRIMARY KEY (source_id, byte_start)
      ) WITHOUT ROWID;
      -- External-content FTS over the verbatim text; triggers keep it in step with exchanges.
      CREATE VIRTUAL TABLE exchanges_fts USING fts5(
        prompt, verbatim, content='exchanges', content_rowid='n', tokenize='porter unicode61'
      );
      CREATE TRIGGER exchanges_ai AFTER INSERT ON exchanges BEGIN
        INSERT INTO exchanges_fts(rowid, prompt, verbatim) VALUES (new.n, new.prompt, new.verbatim);
      END;
      CREATE TRIGGER exchanges_ad AFTER DELETE ON exchanges BEGIN
        INSERT INTO exchanges_fts(exchanges_fts, rowid, prompt, verbatim) VALUES ('delete', old.n, old.prompt, old.verbatim);
      END;
      CREATE TRIGGER exchanges_au AFTER UPDATE OF prompt, verbatim ON exchanges BEGIN
        INSERT INTO exchanges_fts(exchanges_fts, rowid, prompt, verbatim) VALUES ('delete', old.n, old.prompt, old.verbatim);
        INSERT INTO exchanges_fts(rowid, prompt, verbatim) VALUES (new.n, new.prompt, new.verbatim);
      END;
    `,
  },
  {
    // Distillation (paper 3.2). `distill_cache` is keyed by content, prompt version and model and survives
    // re-indexing, so an LLM is never paid twice for the same exchange text.
    version: 2,
    sql: `
      CREATE TABLE distilled (
        exchange_n INTEGER PRIMARY KEY REFERENCES exchanges(n) ON DELETE CASCADE,
        core TEXT NOT NULL,
        context TEXT NOT NULL,
        distiller TEXT NOT NULL,
        model TEXT,
        prompt_version TEXT NOT NULL,
        content_hash TEXT NOT NULL,
        tokens INTEGER NOT NULL,
        created_at INTEGER NOT NULL
      );
      CREATE TABLE distill_failures (
        exchange_n INTEGER PRIMARY KEY REFERENCES exchanges(n) ON DELETE CASCADE,
        distiller TEXT NOT NULL,
        attempts INTEGER NOT NULL,
        last_error TEXT NOT NULL,
        next_attempt_at INTEGER NOT NULL
      );
      CREATE TABLE distill_cache (
        content_hash TEXT NOT NULL,
        prompt_version TEXT NOT NULL,
        model TEXT NOT NULL,
        result TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        PRIMARY KEY (content_hash, prompt_version, model)
      ) WITHOUT ROWID;
      CREATE TABLE rooms (
        id TEXT PRIMARY KEY,
        type TEXT NOT NULL,
        key TEXT NOT NULL,
        label TEXT NOT NULL,
        project TEXT
      );
      CREATE TABLE exchange_rooms (
        exchange_n INTEGER NOT NULL REFERENCES exchanges(n) ON DELETE CASCADE,
        room_id TEXT NOT NULL REFERENCES rooms(id) ON DELETE CASCADE,
        relevance REAL NOT NULL,
        PRIMARY KEY (exchange_n, room_id)
      ) WITHOUT ROWID;
      CREATE INDEX exchange_rooms_room ON exchange_rooms(room_id);
      -- Distilled facets, one row per distilled exchange (rowid = exchanges.n); small, so stored in full.
      CREATE VIRTUAL TABLE distilled_fts USING fts5(core, context, files, rooms, tokenize='porter unicode61');
      CREATE TRIGGER distilled_ad AFTER DELETE ON distilled BEGIN
        DELETE FROM distilled_fts WHERE rowid = old.exchange_n;
      END;
    `,
  },
  {
    // Embeddings (issue 5). The vec0 tables themselves are created by the embedding stage, which knows the
    // dimension (and has sqlite-vec loaded); here live the plain tables that say which vectors are valid.
    // `embedding_model` names the one vector space of the store: a different model means re-embedding all.
    // `vector_rows` marks an exchange as embedded on a layer; it goes with its exchange (cascade) and, for
    // the distilled layers, with its distilled row (trigger), so a vector is used only while its text stands.
    // Chunk ids never repeat (AUTOINCREMENT): a vector of a deleted chunk can never be taken for a new one.
    version: 3,
    sql: `
      CREATE TABLE embedding_model (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        model_id TEXT NOT NULL,
        dimension INTEGER NOT NULL,
        created_at INTEGER NOT NULL
      );
      CREATE TABLE vector_rows (
        layer TEXT NOT NULL,
        exchange_n INTEGER NOT NULL REFERENCES exchanges(n) ON DELETE CASCADE,
        PRIMARY KEY (layer, exchange_n)
      ) WITHOUT ROWID;
      CREATE INDEX vector_rows_exchange ON vector_rows(exchange_n);
      CREATE TABLE verbatim_chunks (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        exchange_n INTEGER NOT NULL REFERENCES exchanges(n) ON DELETE CASCADE,
        ord INTEGER NOT NULL,
        UNIQUE (exchange_n, ord)
      );
      CREATE TRIGGER distilled_vectors_ad AFTER DELETE ON distilled BEGIN
        DELETE FROM vector_rows WHERE exchange_n = old.exchange_n AND layer <> 'verbatim';
      END;
    `,
  },
  {
    // How precise an exchange's date is (model.ts DatePrecision). Dates stored so far came from messages;
    // exchanges without one take their conversation's start (a heading, a session header), as a new parse
    // would, so time filters and recency work without re-parsing. File-name dates come with the next parse.
    version: 4,
    sql: `
      ALTER TABLE exchanges ADD COLUMN date_precision TEXT;
      UPDATE exchanges SET date_precision = 'message' WHERE started_at IS NOT NULL;
      UPDATE exchanges SET started_at = (SELECT c.started_at FROM conversations c WHERE c.id = exchanges.conversation_id),
        date_precision = 'session'
        WHERE started_at IS NULL
          AND (SELECT c.started_at FROM conversations c WHERE c.id = exchanges.conversation_id) IS NOT NULL;
    `,
  },
  {
    // Search quality (issue 13): the verbatim index holds what people said, not the rendering's role labels,
    // with apostrophes resolved and Chinese/Japanese/Thai cut into words (store/ftsText.ts). That text is
    // computed in JavaScript, so the table keeps its own copy and rows are written by exchangeFts.ts; it is
    // rebuilt here from the stored verbatim (no transcript is read again). Columns: prompt, said, tools.
    version: 5,
    sql: `
      DROP TRIGGER IF EXISTS exchanges_ai;
      DROP TRIGGER IF EXISTS exchanges_au;
      DROP TRIGGER IF EXISTS exchanges_ad;
      DROP TABLE IF EXISTS exchanges_fts;
      CREATE VIRTUAL TABLE exchanges_fts USING fts5(prompt, said, tools, tokenize='porter unicode61');
      CREATE TRIGGER exchanges_ad AFTER DELETE ON exchanges BEGIN
        DELETE FROM exchanges_fts WHERE rowid = old.n;
      END;
    `,
    run: fillThreeColumnFts,
  },
  {
    // Rooms a person would browse (issue 14): each exchange link keeps the words that exchange used for the
    // room (the room's label is the one used most), and each room keeps its counts for the tree's minimum
    // size (store/roomStats.ts). Counts are recomputed for rooms marked dirty by the link triggers; rooms of
    // older stores start dirty and are counted by the next distill stage.
    version: 6,
    sql: `
      ALTER TABLE exchange_rooms ADD COLUMN label TEXT;
      ALTER TABLE rooms ADD COLUMN exchanges INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE rooms ADD COLUMN conversations INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE rooms ADD COLUMN last_at TEXT;
      ALTER TABLE rooms ADD COLUMN dirty INTEGER NOT NULL DEFAULT 1;
      CREATE INDEX rooms_dirty ON rooms(dirty) WHERE dirty = 1;
      CREATE TRIGGER exchange_rooms_ai AFTER INSERT ON exchange_rooms BEGIN
        UPDATE rooms SET dirty = 1 WHERE id = new.room_id AND dirty = 0;
      END;
      CREATE TRIGGER exchange_rooms_ad AFTER DELETE ON exchange_rooms BEGIN
        UPDATE rooms SET dirty = 1 WHERE id = old.room_id AND dirty = 0;
      END;
    `,
  },
  {
    // The same conversation saved twice (SpecStory's two file names for one session, a Copilot session
    // copied to another workspace) is one exchange row, under the first source; each other source that
    // holds it is a copy: provenance only, owned by that source's parse. Keyed by exchange id, not row,
    // so a re-parse of the owning source (new row, same id) keeps its copies.
    version: 7,
    sql: `
      CREATE TABLE IF NOT EXISTS exchange_copies (
        exchange_id TEXT NOT NULL,
        source_id INTEGER NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
        line_start INTEGER NOT NULL,
        line_end INTEGER NOT NULL,
        PRIMARY KEY (exchange_id, source_id)
      ) WITHOUT ROWID;
      CREATE INDEX IF NOT EXISTS exchange_copies_source ON exchange_copies(source_id, line_start);
    `,
  },
  {
    // A database of many conversations (Cursor's, OpenCode's) is re-read conversation by conversation: each
    // one's fingerprint and record numbers as last read (rows.ts RecordGroup), as JSON by conversation id.
    version: 8,
    sql: 'ALTER TABLE sources ADD COLUMN record_groups TEXT;',
  },
  {
    // Claude Code subagents' cache warm-ups ("Warmup") are no exchanges any more: their files are read again
    // whole, which replaces what they held (nothing, for a warm-up alone).
    version: 9,
    sql: `
      UPDATE sources SET size = -1, head_hash = '', anchor_hash = '', record_groups = NULL
      WHERE agent = 'claude-code' AND id IN (SELECT source_id FROM exchanges WHERE prompt = 'Warmup');
    `,
  },
  {
    // SpecStory exchanges are identified by their prompt with its answer, without message times
    // (sources/specstory.ts withContentIds): its files are read again whole, which brings back the exchanges
    // an earlier id lost as another's copy and joins a session saved by two SpecStory versions.
    version: 10,
    sql: `UPDATE sources SET size = -1, head_hash = '', anchor_hash = '', record_groups = NULL WHERE agent = 'specstory';`,
  },
  {
    // BM25 on verbatim reads an index of its own (store/lexicon.ts: per-term postings, scored in JavaScript),
    // built here from the text the verbatim FTS5 table holds; no transcript or verbatim is read again.
    version: 11,
    sql: LEXICON_SCHEMA,
    run: buildLexicon,
    step: 'Building the word index',
  },
  {
    // What a search asks of ~100 candidates (their conversation, whether a human spoke, their place in it:
    // continuation.ts) is read from two narrow indexes, by conversation (which also serves Previous/Next and the
    // listing, as exchanges_conversation did) and by row number, not from the rows: a row holds the exchange's
    // whole text, and reading 100 of them cost a search at 50K exchanges ~2 ms more (docs/search-log.md, "Latency passes").
    // `asked` is a column, not an expression, as this SQLite (3.39) reads an indexed expression from the
    // table. Whitespace is ASCII here and Unicode in the writer (isAsked): a prompt of Unicode spaces alone
    // was never seen.
    version: 12,
    sql: `
      ALTER TABLE exchanges ADD COLUMN asked INTEGER NOT NULL DEFAULT 1;
      UPDATE exchanges SET asked = 0 WHERE trim(prompt, char(32, 9, 10, 11, 12, 13)) = '';
      DROP INDEX exchanges_conversation;
      CREATE INDEX exchanges_order ON exchanges(conversation_id, line_start, byte_start, part, asked);
      CREATE INDEX exchanges_place ON exchanges(n, conversation_id, line_start, byte_start, part, asked);
    `,
  },
  {
    // Room families (issue 39, store/roomFamilies.ts): a concept room whose key holds a one-word room's key of
    // its project ("Gemini CLI", "Gemini") is shown as part of it; the member keeps the head's id. Families are
    // found by key within a project (rooms_scope), members by head (rooms_family); every room's family is
    // assigned here and the heads recounted.
    version: 13,
    sql: `
      ALTER TABLE rooms ADD COLUMN family TEXT;
      CREATE INDEX rooms_family ON rooms(family) WHERE family IS NOT NULL;
      CREATE INDEX rooms_scope ON rooms(type, project, key);
    `,
    run: async (db) => {
      await markAllRoomsDirty(db);
      await refreshRooms(db);
    },
  },
  {
    // The verbatim full-text table keeps the prompt column alone (issue 41): BM25 on verbatim reads the lexicon
    // (v11), and the table serves only near-copy detection (search/copies.ts: a phrase of the prompt column).
    // Its copy of what was said and what the tools did was a third of the store at 50K exchanges and most of the
    // time an index run spent writing. The prompts' index text is kept as it was (computed in JavaScript:
    // ftsText.ts), in one segment. The pages freed stay in the file for the rows to come. (Written on a branch as v13
    // beside the room families; a store at v13 is one with room families.)
    version: 14,
    sql: `
      CREATE TEMP TABLE fts_prompts AS SELECT rowid AS n, prompt FROM exchanges_fts;
      DROP TABLE exchanges_fts;
      CREATE VIRTUAL TABLE exchanges_fts USING fts5(prompt, tokenize='porter unicode61');
      INSERT INTO exchanges_fts(rowid, prompt) SELECT n, prompt FROM temp.fts_prompts;
      DROP TABLE temp.fts_prompts;
      INSERT INTO exchanges_fts(exchanges_fts) VALUES('optimize');
      DROP TRIGGER IF EXISTS exchanges_ad;
      CREATE TRIGGER exchanges_ad AFTER DELETE ON exchanges BEGIN
        DELETE FROM exchanges_fts WHERE rowid = old.n;
      END;
    `,
  },
  {
    // Search terms (issue 39 (b)): the words an exchange is found by that its headline and detail do not say
    // (distill/searchTerms.ts), a facet of the all-facets layer. Objects distilled before have none ('') until the
    // offline distiller's new version redoes them; the distilled full-text table gains the column and is refilled.
    version: 15,
    sql: `
      ALTER TABLE distilled ADD COLUMN terms TEXT NOT NULL DEFAULT '';
      DROP TABLE distilled_fts;
      CREATE VIRTUAL TABLE distilled_fts USING fts5(core, context, files, rooms, terms, tokenize='porter unicode61');
    `,
    run: (db) => rebuildDistilledFts(db, false),
    step: 'Adding search terms to the distilled index',
  },
  {
    // Whether an exchange's verbatim text holds no secret (issue 42): the version of the redaction rules that
    // changed nothing in it (distill/redact.ts REDACTION_VERSION), found when it was distilled (every distiller is
    // given the redacted text), else NULL. A search that leaves the store (MCP, redact) shows such a text as it is
    // instead of running every rule over it again. Objects distilled before have none: their texts are redacted.
    version: 16,
    sql: 'ALTER TABLE distilled ADD COLUMN clean TEXT;',
  },
  {
    // The core layer's own full-text index (issue 39 (b)): BM25 on the headline and detail alone, normalised by
    // their length, not by a row that holds the search terms, files and rooms as well (distilledCoreFts.ts).
    version: 17,
    sql: `${DISTILLED_CORE_FTS_SQL}
      INSERT INTO distilled_core_fts(distilled_core_fts) VALUES ('rebuild');`,
  },
  {
    // A retry ("@agent Try Again", rows.ts RETRY_PROMPT) asks nothing new: it answers the request before it again,
    // so search ranks it after that request as it ranks a continuation (search/continuation.ts; docs/search-log.md).
    version: 18,
    sql: `UPDATE exchanges SET asked = 0 WHERE trim(prompt, char(32, 9, 10, 11, 12, 13)) = '${RETRY_PROMPT}';`,
  },
  {
    // Cyrillic words are terms by their stem (cyrillic.ts: `файлам` and `файлы` are `файл`), so a Russian or
    // Ukrainian memory finds the exchange whatever the words' endings: the exchanges with Cyrillic text are indexed
    // again from the verbatim (the others' terms did not change).
    version: 19,
    sql: '',
    run: retermCyrillic,
    step: 'Updating the word index',
  },
  {
    // An error's repeated lines (a retry loop) are one line each (render.ts withoutRepeatedLines), so the error that
    // ended the loop is within the output kept: the sources of exchanges with an error output cut short are read
    // again whole, which renders them anew.
    version: 20,
    sql: `
      UPDATE sources SET size = -1, head_hash = '', anchor_hash = '', record_groups = NULL
      WHERE id IN (SELECT source_id FROM exchanges WHERE verbatim LIKE '%[error]%' AND verbatim LIKE '%more chars]%');
    `,
  },
  {
    // A Claude Code slash command the model answers is an exchange of its own, its prompt the command as typed
    // (sources/claudeCode.ts); its reply had been the last answer of the exchange before. The Claude Code
    // transcripts holding a command's wrapper are read again whole (commandSources.ts); no other source is.
    version: 21,
    sql: '',
    run: rereadCommandSources,
  },
  {
    // A Claude Code background task's report the model answers is an exchange of its own, named by the report's
    // summary, and a plan-mode plan is shown whole (sources/claudeCode.ts): the Claude Code transcripts holding a
    // `<task-notification>` or an `ExitPlanMode` call are read again whole (notificationSources.ts); no other source is.
    version: 22,
    sql: '',
    run: rereadNotificationSources,
  },
  {
    // Codex's header above a command's output (wall time, `Output:`) is not the output, and an exec command that
    // exited with an error is one (sources/codex.ts): the Codex rollouts whose stored outputs hold the header are
    // read again whole (commandOutputSources.ts); no other source is.
    version: 23,
    sql: '',
    run: rereadCommandOutputSources,
  },
  {
    // An agent's to-do list is a checklist, its updates by the steps they moved, and its tools' fixed
    // acknowledgements are left out (render.ts): the sources whose stored exchanges hold a plan call are read again
    // whole (planSources.ts); no other source is.
    version: 24,
    sql: '',
    run: rereadPlanSources,
  },
  {
    // A Gemini CLI prompt is what the person typed (not an @ reference's files, the session or hook context the CLI
    // adds, its "Please continue."), read_file's note to the model is not the file, and a Copilot Chat prompt mentions
    // the files it attached (sources/gemini.ts, copilot.ts): those agents' files holding such records are read again
    // whole (promptSources.ts); no other source is.
    version: 25,
    sql: '',
    run: rereadPromptSources,
  },
  {
    // A transcript appended to keeps the record ids read before its resume point (seen_ids), so a replayed record is
    // skipped in steps as in a whole read (sources/recordIds.ts), and a Claude Code message typed while the model works
    // and taken into its turn is a prompt (sources/claudeCode.ts): the Claude Code and Qwen Code transcripts that repeat
    // an id and the Claude Code ones that hold a queued message taken are read again whole (queueAndReplaySources.ts);
    // the others' next change is read whole once.
    version: 26,
    sql: '',
    run: rereadQueueAndReplaySources,
  },
  {
    // A read's limit without an offset, and Gemini CLI's read_file start_line/end_line, give the lines read (files.ts);
    // a Gemini CLI output it masked is read whole, a 0.31-0.36 subagent's chat is marked with its parent
    // (sources/gemini.ts): the sources whose file holds such a record are read again whole (readLineSources.ts); no
    // other source is.
    version: 27,
    sql: '',
    run: rereadReadLineSources,
  },
  {
    // Roo Code's and Kilo Code's to-do list held in one string and Copilot Chat's read of its list are checklists
    // like the other plan tools (render.ts): the sources whose stored exchanges hold such a call are read again whole
    // (todoListSources.ts); no other source is.
    version: 28,
    sql: '',
    run: rereadTodoListSources,
  },
  {
    // The exchanges without a token count are indexed (uncountedIndex.ts): an index run finds them without reading
    // every exchange's row three times.
    version: 29,
    sql: UNCOUNTED_INDEX_SQL,
  },
  {
    // The verbatim and distilled full-text tables keep no copy of the text they index (issue 41, contentlessFts.ts):
    // their delete triggers give FTS5 the text from the rows that hold it and from two side tables for the rest.
    version: 30,
    sql: CONTENTLESS_FTS_SQL,
  },
  {
    // Each exchange keeps its content hash (exchangeHashes.ts): a source read again whole keeps the exchanges it still
    // holds unchanged, with their distilled objects, vectors and token counts, and writes only the others.
    version: 31,
    sql: EXCHANGE_HASHES_SQL,
    run: hashStoredExchanges,
    step: 'Noting what each exchange holds',
  },
  {
    // What discoveries found of each transcript is kept (issue 41, discoveryMemo.ts): a new process's first whole
    // run reads no head of a file unchanged since.
    version: 32,
    sql: DISCOVERY_MEMO_SQL,
  },
];

export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;
/** The versions a store may have been written at (a branch may leave a number to another's migration). */
export const SCHEMA_VERSIONS: readonly number[] = MIGRATIONS.map((m) => m.version);

/** Whether `migrate` would write: the store is of an older version (or new). */
export async function migrationDue(db: Db): Promise<boolean> {
  return ((await db.get<{ user_version: number }>('PRAGMA user_version'))?.user_version ?? 0) < SCHEMA_VERSION;
}

/**
 * Brings the store to SCHEMA_VERSION (tests stop at an older `target`). Returns the version it found (0 for a new
 * store). `onProgress` hears from the migrations that report (a long JavaScript step over every exchange).
 */
export async function migrate(db: Db, target = SCHEMA_VERSION, onProgress?: (progress: MigrationProgress) => void): Promise<number> {
  const row = await db.get<{ user_version: number }>('PRAGMA user_version');
  const found = row?.user_version ?? 0;
  if (found > SCHEMA_VERSION) {
    throw new RecallError(
      'store-too-new',
      `The store ${db.file} has schema version ${found}, written by a newer Agent Recall (this one knows up to ${SCHEMA_VERSION}). ` +
        'Update the extension, or delete the store to rebuild it.',
    );
  }
  for (const m of MIGRATIONS) {
    if (m.version <= found || m.version > target) continue;
    await db.transaction(async () => {
      // Another process may have migrated while this one waited for the write lock: read the version again
      // under the lock, so a migration never runs twice ("table already exists").
      const now = (await db.get<{ user_version: number }>('PRAGMA user_version'))?.user_version ?? 0;
      if (now >= m.version) return;
      await db.exec(m.sql);
      await m.run?.(db, (done, total) => onProgress?.({ version: m.version, step: m.step ?? `Updating the store to version ${m.version}`, done, total }));
      await db.exec(`PRAGMA user_version = ${m.version}`);
    });
  }
  return found;
}
