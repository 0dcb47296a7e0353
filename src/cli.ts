import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { RecallError } from './core/errors';
import { type DistillInput, type Distiller, distillerInput } from './core/distill/distiller';
import { formatPlan, planDistillation } from './core/distill/plan';
import { distilledText } from './core/distill/types';
import { type CompactReport, type CompressionStats, type IndexProgress, LLM_BACKLOG, Memory, type MigrationProgress, type StoreStats } from './core/memory';
import { countTokens } from './core/tokens';
import { DEFAULT_SEGMENT_OPTIONS } from './core/segment';
import { defaultDiscovery, unreadableRoots } from './core/sources/discover';
import { setIndexFlags } from './processFlags';
import { runAsProcess } from './processMain';
import { embedCommand, evalCommand, type Io, openCliEmbedder, parseLayers, searchCommand } from './searchCli';

/** A thin command line over core/: every command opens the store, does one thing, prints, closes. */

const USAGE = `Usage: agent-recall <command> [options]

Commands:
  index  --db FILE (--workspace DIR | --root DIR...) [--root DIR...] [--min-chars N] [--max-plies N] [--embed-model ID_OR_DIR]
         [--threads N]
         Index the transcripts of a workspace (the agents' own folders, sessions kept by recorded cwd, as in
         VS Code) and every transcript under the roots, distill them (offline distiller) and, with
         --embed-model, embed what is distilled (see embed). A large run parses and distills on --threads worker
         threads (default: the cores but one, at least 1, at most 4; 0: this thread only).
  distill --db FILE --distiller offline|anthropic [--limit N] [--dry-run] [--embed-model ID_OR_DIR]
         Distill exchanges that have no distilled object yet (index does this with the offline distiller);
         --dry-run prints what would be stored (anthropic: what would be sent, redacted, and its cost).
         anthropic: key from ANTHROPIC_API_KEY (ANTHROPIC_BASE_URL for another endpoint); [--model ID]
         [--concurrency N] [--batch-size N]; cost estimate at [--price-in USD] [--price-out USD] per MTok.
  embed  --db FILE [--embed-model ID_OR_DIR] [--embed-layers core,...|all]
         Embed distilled exchanges (and verbatim chunks with layer verbatim) that have no vector yet.
  search --db FILE [--mode M] [--fusion X] [--limit N] [--json] [--strict] [--] QUERY   (-- lets a query start with -)
  search --db FILE --batch QUERIES.jsonl [--mode M] [--fusion X] [--limit N]
         Filters: --agent A (repeatable) --since ISO --until ISO --file PATH --room ID --conversation ID --project DIR
         --per-conversation N --exclude ID (repeatable). --embed-model ID_OR_DIR for vector modes.
  eval   --db FILE --queries Q.jsonl --corpus-root DIR [--mode M|all] [--fusion X[,Y]|all] [--limit N] [--strict]
         MRR, P@1, nDCG@10, Recall@5, Recall@10 and p50/p95 latency per mode.
  stats  --db FILE            Conversations, exchanges per agent, skipped lines by reason, tokens, compression.
  list   --db FILE [--limit N] One line per exchange.
  show   --db FILE ID         The verbatim exchange and its distilled object (ID or a unique prefix of 6+ characters).
  check  --db FILE [--repair] Integrity check; --repair rebuilds derived tables (or a damaged store).
  compact --db FILE           Give the store's free pages back to the disk (VACUUM; the store is locked while it runs).
  rooms  --db FILE [--all]    The rooms as the tree shows them (3+ exchanges from 2+ conversations; --all: every room).
  mcp    --workspace DIR... | --db FILE [--no-redact] [--embed-model ID_OR_DIR [--model-cache DIR]]
         An MCP server on stdin/stdout (tools search, read_exchange, file_history, recent) over the memory the
         extension keeps for DIR (or FILE), read-only; secrets in what it returns are replaced (--no-redact: not);
         --embed-model (or $AGENT_RECALL_EMBED_MODEL) searches by meaning too; a hub model only if already
         downloaded (into --model-cache DIR, else the library's default cache): the server never downloads.

Every command accepts --json.`;

const defaultIo: Io = {
  out: (s) => process.stdout.write(s + '\n'),
  err: (s) => process.stderr.write(s + '\n'),
};

export async function main(argv: string[], io: Io = defaultIo): Promise<number> {
  const [command, ...rest] = argv;
  // the MCP server has options of its own and loads the SDK only when asked for
  if (command === 'mcp') return (require('./mcp/command') as typeof import('./mcp/command')).mcpCommand(rest, io.err);
  const { values, positionals } = parseCommandLine(rest);
  if (!command || command === 'help' || command === '--help' || command === '-h' || values.help) {
    io.out(USAGE);
    return command ? 0 : 2;
  }
  if (!values.db) throw new RecallError('bad-argument', `${command} needs --db FILE.\n\n${USAGE}`);
  const db = path.resolve(values.db);
  const json = values.json ?? false;

  if (command === 'check') return check(db, values.repair ?? false, json, io);
  // before the store is opened (or created): a mistyped root is an error, not an index of nothing
  if (command === 'index') {
    const missing = await unreadableRoots((values.root ?? []).map((r) => path.resolve(r)));
    if (missing.length) throw new RecallError('bad-argument', missing.map((m) => `index --root ${m.root}: ${m.reason}.`).join('\n'));
  }

  const memory = await Memory.open(db, { onMigration: migrationPrinter(io) });
  try {
    switch (command) {
      case 'index': {
        const roots = (values.root ?? []).map((r) => path.resolve(r));
        if (roots.length === 0 && !values.workspace) throw new RecallError('bad-argument', 'index needs --workspace DIR or at least one --root DIR.');
        setIndexFlags();
        const t0 = performance.now();
        const opened = values['embed-model'] !== undefined ? await openCliEmbedder(values, io) : undefined;
        const workspaceRoots = values.workspace ? [path.resolve(values.workspace)] : [];
        const report = await memory.index(
          {
            ...(opened?.embedder ? { embed: { embedder: opened.embedder, layers: parseLayers(values['embed-layers']) } } : {}),
            // a workspace gets what VS Code gives it (the agents' folders too); roots alone are taken as they are
            discover: workspaceRoots.length
              ? defaultDiscovery({ workspaceRoots, extraRoots: roots })
              : { workspaceRoots, claudeRoots: [], codexRoots: [], extraRoots: roots, includeSubagents: true },
            collectAfterParse: true,
            ...(values.threads !== undefined ? { parallel: { threads: intOption(values.threads, 0) } } : {}),
            segment: {
              minChars: intOption(values['min-chars'], DEFAULT_SEGMENT_OPTIONS.minChars),
              maxPlies: intOption(values['max-plies'], DEFAULT_SEGMENT_OPTIONS.maxPlies),
              ...(values.workspace ? { workspaceRoot: path.resolve(values.workspace) } : {}),
            },
          },
          values.quiet ? undefined : progressPrinter(io),
        ).finally(() => opened?.embedder?.dispose());
        const wallMs = performance.now() - t0;
        const stats = await memory.stats();
        const summary = {
          ...report,
          wallMs: Math.round(wallMs),
          parseMs: Math.round(report.parseMs),
          mbPerSecond: report.parseMs > 0 ? +(report.bytesParsed / 1e6 / (report.parseMs / 1000)).toFixed(2) : 0,
          stats,
        };
        if (json) io.out(JSON.stringify(summary));
        else {
          io.out(
            `Indexed ${report.parsed} of ${report.sources} sources (${report.unchanged} unchanged, ${report.failed.length} failed): ` +
              `${report.exchangesWritten} exchanges written, ` +
              (report.exchangesKept > 0 ? `${report.exchangesKept} read again and kept as they were, ` : '') +
              `${report.duplicates} duplicates skipped.`,
          );
          io.out(
            `Parse+segment+store: ${(report.bytesParsed / 1e6).toFixed(1)} MB in ${(report.parseMs / 1000).toFixed(2)} s = ${summary.mbPerSecond} MB/s; ` +
              `wall ${(wallMs / 1000).toFixed(2)} s (incl. ${report.tokensCounted} token counts).`,
          );
          if (report.distill) io.out(distillLine(report.distill));
          for (const f of report.failed) io.err(`failed: ${f.path}: ${f.error}`);
          printStats(stats, io);
        }
        if (!json && report.embedded) io.out(`Embedded with ${report.embedded.modelId}: ${JSON.stringify(report.embedded.embedded)}.`);
        if (report.embedNotice) io.err(`agent-recall: ${report.embedNotice}`);
        return report.failed.length > 0 ? 1 : 0;
      }
      case 'distill': {
        const name = values.distiller ?? 'offline';
        if (name !== 'offline' && name !== 'anthropic') throw new RecallError('bad-argument', `Unknown distiller ${name}: expected offline or anthropic.`);
        const limit = intOption(values.limit, -1);
        if (limit === 0 || limit < -1) throw new RecallError('bad-argument', `--limit must be a positive number, got ${values.limit}.`);
        const batchSize = intOption(values['batch-size'], 1);
        const concurrency = intOption(values.concurrency, 4);
        if (batchSize < 1 || concurrency < 1) throw new RecallError('bad-argument', '--batch-size and --concurrency must be at least 1.');
        if (name === 'anthropic' && values['dry-run']) {
          // Nothing is sent: the prompts exactly as they would go (redacted), request count, tokens and cost.
          // the backlog an LLM takes over: what has no object or only the offline distiller's
          const pending = await memory.pendingDistillation(limit > 0 ? limit : Number.MAX_SAFE_INTEGER, LLM_BACKLOG);
          const plan = planDistillation(pending, {
            pricePerMTokIn: priceOption(values['price-in'], 1),
            pricePerMTokOut: priceOption(values['price-out'], 5),
            batchSize,
            samples: 1,
          });
          if (json) io.out(JSON.stringify(plan));
          else {
            io.out(formatPlan(plan, process.env['ANTHROPIC_BASE_URL'] || 'api.anthropic.com'));
            for (const s of plan.samples) io.out(`\n--- first request (exchanges ${s.ns.join(', ')}) ---\n${s.text}`);
          }
          return 0;
        }
        const distiller: Distiller = name === 'anthropic' ? anthropicDistiller({ ...(values.model ? { model: values.model } : {}), concurrency, batchSize }) : memory.offlineDistiller();
        if (values['dry-run']) {
          // Distil without writing: shows what the stage would store (nothing leaves the machine offline).
          const batch = await memory.pendingDistillation(limit > 0 ? limit : 20, distiller);
          const outcomes = await distiller.distill(batch.map(distillerInput), { isCancellationRequested: false });
          for (const o of outcomes) {
            const e = batch.find((b) => b.n === o.n) as DistillInput;
            const row = o.ok
              ? { exchangeId: e.exchangeId, ...o.value, distilledTokens: countTokens(distilledText(o.value)) }
              : { exchangeId: e.exchangeId, error: o.error };
            io.out(json ? JSON.stringify(row) : `${e.exchangeId.slice(0, 12)}  ${JSON.stringify(row)}`);
          }
          return 0;
        }
        const report = await memory.distill(distiller, values.quiet ? undefined : progressPrinter(io), undefined, limit > 0 ? { limit } : {});
        const compression = await memory.compression();
        // the stage after distillation: vectors for what was just distilled
        const embedded = values['embed-model'] !== undefined ? (await embedCommand(memory, values, io)).report : undefined;
        if (json) io.out(JSON.stringify({ ...report, ms: Math.round(report.ms), perSecond: perSecond(report), compression, ...(embedded ? { embedded } : {}) }));
        else {
          io.out(distillLine(report));
          io.out(compressionLine(compression));
          if (embedded) io.out(`Embedded with ${embedded.modelId}: ${JSON.stringify(embedded.embedded)}.`);
        }
        return report.failed > 0 ? 1 : 0;
      }
      case 'embed': {
        const r = await embedCommand(memory, values, io);
        if (json) io.out(JSON.stringify(r.report ?? { notice: r.notice }));
        else if (r.report) {
          io.out(
            `Embedded with ${r.report.modelId} (${r.report.dimension}-d)${r.report.reset ? ', after dropping the vectors of the previous model' : ''}: ` +
              `${Object.entries(r.report.embedded).map(([l, n]) => `${l} ${n}`).join(', ') || 'nothing new'}` +
              `${r.report.chunks ? ` (${r.report.chunks} verbatim chunks)` : ''}.`,
          );
        }
        return r.code;
      }
      case 'search':
        return await searchCommand(memory, values, positionals, io);
      case 'eval':
        return await evalCommand(memory, values, io);
      case 'rooms': {
        for (const room of await memory.roomListings(values.all ?? false)) {
          const also = room.aliases.length ? `  (also: ${room.aliases.join(', ')})` : '';
          const line = `${String(room.exchanges).padStart(4)} ex ${String(room.conversations).padStart(3)} conv  ${room.type.padEnd(8)} ${room.label}${also}  [${room.project ?? 'no project'}]`;
          io.out(json ? JSON.stringify(room) : line);
        }
        return 0;
      }
      case 'stats': {
        const stats = await memory.stats();
        if (json) io.out(JSON.stringify(stats));
        else printStats(stats, io);
        return 0;
      }
      case 'compact': {
        const r = await memory.compact();
        io.out(json ? JSON.stringify(r) : compactLine(r));
        return 0;
      }
      case 'list': {
        const rows = await memory.list({ limit: intOption(values.limit, -1) });
        for (const r of rows) {
          io.out(
            json
              ? JSON.stringify(r)
              : `${r.exchangeId.slice(0, 12)}  ${r.agent.padEnd(11)} ${(r.startedAt ?? '').slice(0, 10).padEnd(10)}  ` +
                  `${path.basename(r.file)}:${r.lineStart}-${r.lineEnd}  ${oneLine(r.prompt, 80)}`,
          );
        }
        return 0;
      }
      case 'show': {
        const id = positionals[0];
        if (!id) throw new RecallError('bad-argument', 'show needs an exchange ID.');
        const ex = await memory.exchange(id);
        if (!ex) {
          io.err(`No exchange ${id}.`);
          return 1;
        }
        const [distilled, copies] = await Promise.all([memory.distilled(ex.exchangeId), memory.savedCopies(ex)]);
        if (json) {
          io.out(
            JSON.stringify({
              ...ex,
              ...(copies.length ? { copies } : {}),
              ...(distilled ? { exchangeCore: distilled.exchangeCore, specificContext: distilled.specificContext, rooms: distilled.rooms, facets: distilled.facets } : {}),
              ...(distilled ? { distiller: distilled.distiller, distilledTokens: distilled.distilledTokens } : {}),
            }),
          );
        } else {
          io.out(`# ${ex.exchangeId}  ${ex.agent}  ${ex.startedAt ?? ''}`);
          io.out(`# ${ex.file}:${ex.lineStart}-${ex.lineEnd}  session ${ex.sessionId}${ex.title ? `  "${ex.title}"` : ''}`);
          for (const c of copies) io.out(`# also saved in ${c.file}:${c.lineStart}-${c.lineEnd}`);
          if (ex.filesTouched.length) io.out(`# files: ${ex.filesTouched.map((f) => `${f.path} (${f.how})`).join(', ')}`);
          if (distilled) {
            io.out(`# core: ${distilled.exchangeCore}`);
            if (distilled.specificContext) io.out(`# context: ${distilled.specificContext}`);
            if (distilled.rooms.length) io.out(`# rooms: ${distilled.rooms.map((r) => `${r.type}:${r.label} (${r.relevance})`).join(', ')}`);
          }
          io.out('');
          io.out(ex.verbatim);
        }
        return 0;
      }
      default:
        throw new RecallError('bad-argument', `Unknown command ${command}.\n\n${USAGE}`);
    }
  } finally {
    await memory.close();
  }
}

/**
 * Options and positionals. After `--` everything is a positional, so a query may start with `-`
 * (`search --db F -- -d`); an unknown option is a bad argument (exit 2) whose message says so.
 */
/**
 * The Anthropic distiller, required when asked for: its SDK (1.4 MB) is then read and compiled by a run that
 * distils with it, not by every command (an MCP server's first answer waited ~40 ms for it).
 */
function anthropicDistiller(options: { model?: string; concurrency: number; batchSize: number }): Distiller {
  const { AnthropicDistiller, anthropicEnv } = require('./core/distill/anthropic') as typeof import('./core/distill/anthropic');
  return new AnthropicDistiller({ ...anthropicEnv(), ...options });
}

function parseCommandLine(args: string[]) {
  try {
    return parseArgs({
      args,
      allowPositionals: true,
      options: {
        db: { type: 'string' },
        root: { type: 'string', multiple: true },
        workspace: { type: 'string' },
        'min-chars': { type: 'string' },
        'max-plies': { type: 'string' },
        threads: { type: 'string' },
        limit: { type: 'string' },
        distiller: { type: 'string' },
        'dry-run': { type: 'boolean' },
        model: { type: 'string' },
        concurrency: { type: 'string' },
        'batch-size': { type: 'string' },
        'price-in': { type: 'string' },
        'price-out': { type: 'string' },
        repair: { type: 'boolean' },
        all: { type: 'boolean' },
        json: { type: 'boolean' },
        quiet: { type: 'boolean' },
        mode: { type: 'string' },
        fusion: { type: 'string' },
        batch: { type: 'string' },
        queries: { type: 'string' },
        'corpus-root': { type: 'string' },
        'embed-model': { type: 'string' },
        'embed-layers': { type: 'string' },
        'per-conversation': { type: 'string' },
        agent: { type: 'string', multiple: true },
        since: { type: 'string' },
        until: { type: 'string' },
        file: { type: 'string' },
        room: { type: 'string' },
        conversation: { type: 'string' },
        project: { type: 'string' },
        exclude: { type: 'string', multiple: true },
        strict: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    if ((err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) throw new RecallError('bad-argument', (err as Error).message);
    throw err;
  }
}

async function check(db: string, repair: boolean, json: boolean, io: Io): Promise<number> {
  let memory: Memory;
  try {
    memory = await Memory.open(db, { onMigration: migrationPrinter(io) });
  } catch (err) {
    if (!(err instanceof RecallError && err.code === 'store-corrupt') || !repair) throw err;
    const rebuilt = await Memory.rebuild(db);
    await rebuilt.memory.close();
    const salvaged = rebuilt.salvaged ?? [];
    const lines = salvaged
      .filter((t) => t.copied > 0 || t.damaged)
      .map((t) => `  ${t.table}: ${t.copied} copied${t.lost !== undefined ? `, ${t.lost} lost` : t.damaged ? ', some lost (how many is not recorded)' : ''}`);
    const msg =
      `The store was damaged; it was moved to ${rebuilt.movedTo}. ` +
      (rebuilt.salvaged ? `Every readable row was copied into a new store:\n${lines.join('\n') || '  (nothing could be read)'}` : 'A new empty store was created.') +
      '\nRun index again to re-read the transcripts that still exist.';
    io.out(json ? JSON.stringify({ ok: true, rebuilt: true, movedTo: rebuilt.movedTo, salvaged, problems: [] }) : msg);
    return 0;
  }
  try {
    let report = await memory.check();
    if (!report.ok && repair) {
      await memory.repair();
      const after = await memory.check();
      report = { ok: after.ok, problems: [...report.problems.map((p) => `repaired: ${p}`), ...after.problems] };
    }
    if (json) io.out(JSON.stringify(report));
    else io.out(report.ok ? `ok${report.problems.length ? `\n${report.problems.join('\n')}` : ''}` : report.problems.join('\n'));
    return report.ok ? 0 : 1;
  } finally {
    await memory.close();
  }
}

function printStats(s: StoreStats, io: Io): void {
  io.out(`sources ${s.sources}, conversations ${s.conversations}, exchanges ${s.exchanges}`);
  for (const [agent, n] of Object.entries(s.exchangesByAgent)) io.out(`  ${agent.padEnd(12)} ${n}`);
  const skipped = Object.entries(s.skippedLines);
  io.out(`skipped lines: ${skipped.length ? skipped.map(([r, n]) => `${r} ${n}`).join(', ') : 'none'}`);
  io.out(`dropped exchanges (< min chars): ${s.droppedExchanges} (holding ${s.droppedPrompts} prompts)`);
  io.out(
    `verbatim: ${s.verbatimChars} chars, ${s.verbatimTokens} tokens (cl100k)` +
      (s.tokensPending ? `, ${s.tokensPending} exchanges not counted yet` : ''),
  );
  io.out(compressionLine(s.compression));
  if (s.sourcesWithErrors) io.out(`sources with errors: ${s.sourcesWithErrors}`);
}

function compactLine(r: CompactReport): string {
  const mb = (p: CompactReport['before']): string => ((p.pages * p.pageSize) / 2 ** 20).toFixed(1);
  const share = r.before.pages ? Math.round((100 * r.before.freePages) / r.before.pages) : 0;
  return (
    `Compacted ${mb(r.before)} MB to ${mb(r.after)} MB (${r.before.freePages} free pages, ${share} %) in ${(r.ms / 1000).toFixed(1)} s.` +
    (r.walBytes ? ` The write-ahead log (${(r.walBytes / 2 ** 20).toFixed(1)} MB) is folded in once no other process reads the store.` : '')
  );
}

function compressionLine(c: CompressionStats): string {
  if (c.distilled === 0) return 'distilled: none yet';
  return (
    `distilled: ${c.distilled} exchanges, ${c.distilledTokens} tokens (mean ${c.meanDistilledTokens}); ` +
    `compression ${c.ratio}x of ${c.verbatimTokens} verbatim tokens (corpus totals), per-item mean ${c.meanItemRatio}x` +
    (c.failures ? `; ${c.failures} failures waiting for a retry` : '')
  );
}

function distillLine(r: { distilled: number; cacheHits: number; failed: number; ms: number; cancelled: boolean }): string {
  return (
    `Distilled ${r.distilled} exchanges (${r.cacheHits} from the cache, ${r.failed} failed) in ${(r.ms / 1000).toFixed(2)} s` +
    ` = ${perSecond(r)} exchanges/s${r.cancelled ? ' (cancelled)' : ''}.`
  );
}

function perSecond(r: { distilled: number; failed: number; ms: number }): number {
  return r.ms > 0 ? Math.round(((r.distilled + r.failed) / r.ms) * 1000) : 0;
}

function progressPrinter(io: Io): (p: IndexProgress) => void {
  let last = 0;
  return (p) => {
    const now = Date.now();
    if (now - last < 500 && p.done !== p.total) return;
    last = now;
    io.err(`[${p.phase}] ${p.done}/${p.total}`);
  };
}

/** A store an older version wrote is updated when opened: a long step (~50 s at 50,000 exchanges) says how far it is. */
function migrationPrinter(io: Io): (p: MigrationProgress) => void {
  return (p) => io.err(`[store update to v${p.version}] ${p.step}: ${p.done}/${p.total} exchanges`);
}

/** USD per million tokens for the dry run's estimate. */
function priceOption(v: string | undefined, fallback: number): number {
  if (v === undefined) return fallback;
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0) throw new RecallError('bad-argument', `Expected a price in USD per million tokens, got ${v}.`);
  return n;
}

function intOption(v: string | undefined, fallback: number): number {
  if (v === undefined) return fallback;
  const n = Number(v);
  if (!Number.isInteger(n)) throw new RecallError('bad-argument', `Expected a whole number, got ${v}.`);
  return n;
}

function oneLine(s: string, max: number): string {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length > max ? t.slice(0, max - 1) + '…' : t;
}

// run as a file of its own (out/src/cli.js); the bundle dist/commands.js is started by launcher.ts
if (require.main === module) runAsProcess(() => main(process.argv.slice(2)));
