import type { TouchKind } from '../model';
import type { DistillInput } from './distiller';
import { isStopWord } from './stopWords';
import type { TermStats } from './termStats';
import type { RoomAssignment } from './types';
import type { VerbatimPart } from './verbatimParts';

/**
 * Offline room proposals (1–3 per exchange): a concept room from the most distinctive term the participants
 * kept using, a file room from the file most worked on, a workflow room from tool commands. Keys are
 * proposed as written; rooms.ts normalises and merges them when they are stored.
 */

const FILE_RELEVANCE: Record<TouchKind, number> = { write: 0.9, edit: 0.9, read: 0.6, mention: 0.4 };

interface Workflow {
  readonly key: string;
  readonly label: string;
  readonly re: RegExp;
  /** Also matched against the user's prompt (not for words prose uses otherwise: "make sure"). */
  readonly inPrompt: boolean;
}

/** Matched against tool calls (commands, paths) and, where `inPrompt`, the user's prompt. */
const WORKFLOWS: readonly Workflow[] = [
  {
    key: 'tests',
    label: 'Tests',
    inPrompt: true,
    re: /\b(?:npm (?:run )?test|yarn test|pnpm test|pytest|jest|vitest|mocha|go test|cargo test|node --test|unittest|rspec|phpunit|playwright test)\b|\.(?:test|spec)\.[jt]sx?\b/i,
  },
  {
    key: 'git',
    label: 'Git',
    inPrompt: true,
    re: /\bgit (?:commit|push|pull|merge|rebase|checkout|switch|branch|diff|log|status|stash|cherry-pick|reset|add|tag|clone)\b|\bgh (?:pr|issue|run|release|repo)\b/i,
  },
  {
    key: 'build',
    label: 'Build',
    inPrompt: false,
    re: /\b(?:npm run build|yarn build|pnpm build|tsc|make|cmake|cargo build|go build|gradle|mvn|webpack|esbuild|vite build|docker build|docker compose build)\b/i,
  },
  {
    key: 'deploy',
    label: 'Deploy',
    inPrompt: true,
    re: /\b(?:deploy\w*|kubectl|helm|terraform (?:apply|plan)|docker push|vercel|netlify|fly deploy|gcloud|heroku|systemctl)\b/i,
  },
  {
    key: 'dependencies',
    label: 'Dependencies',
    inPrompt: true,
    re: /\b(?:npm (?:install|i|ci|uninstall)|yarn add|pnpm add|pip3? install|poetry add|uv (?:add|pip)|cargo add|go get|bundle install|brew install|apt(?:-get)? install)\b/i,
  },
  { key: 'lint', label: 'Lint & format', inPrompt: true, re: /\b(?:eslint|prettier|ruff|flake8|pylint|clippy|rustfmt|gofmt|biome)\b/i },
];

/** A prompt about something broken, in the languages of the corpus. */
const TROUBLE_RE = /error|bug|fail|broken|crash|exception|traceback|doesn't work|not working|ошибк|не работает|сломал|fallo|falla|no funciona|erreur|fehler/iu;

export function proposeRooms(input: DistillInput, parts: readonly VerbatimPart[], stats: TermStats): RoomAssignment[] {
  const rooms: RoomAssignment[] = [];
  const concepts = conceptRooms(input.prompt, parts, stats);
  if (concepts[0]) rooms.push(concepts[0]);
  const file = fileRoom(input);
  if (file) rooms.push(file);
  const workflow = workflowRoom(input.prompt, parts);
  if (workflow) rooms.push(workflow);
  if (rooms.length < 3 && concepts[1]) rooms.push(concepts[1]);
  return rooms.slice(0, 3);
}

/**
 * The file most worked on: written or edited before read before mentioned. A bare mentioned name
 * (`Nuxt.js`, `README.md` in prose) is too often not a file of the project to found a room on.
 */
function fileRoom(input: DistillInput): RoomAssignment | undefined {
  const ranked = input.filesTouched.filter((f) => f.how !== 'mention' || f.path.includes('/')).sort(
    (a, b) => FILE_RELEVANCE[b.how] - FILE_RELEVANCE[a.how] || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0),
  );
  const top = ranked[0];
  return top ? { type: 'file', key: top.path, label: fileLabel(top.path), relevance: FILE_RELEVANCE[top.how] } : undefined;
}

/** A path short enough for the rooms tree: its last segments, led by an ellipsis when cut. */
export function fileLabel(path: string): string {
  if (path.length <= 60) return path;
  const segments = path.split('/');
  let label = segments.pop()!;
  while (segments.length && label.length + segments[segments.length - 1]!.length + 1 <= 56) label = `${segments.pop()}/${label}`;
  return `…/${label}`;
}

function workflowRoom(prompt: string, parts: readonly VerbatimPart[]): RoomAssignment | undefined {
  const lines = parts.filter((p) => p.kind === 'tool').map((p) => p.text);
  const errors = parts.filter((p) => p.kind === 'error').length;
  let best: { w: Workflow; hits: number } | undefined;
  for (const w of WORKFLOWS) {
    const hits = lines.filter((l) => w.re.test(l)).length + (w.inPrompt && w.re.test(prompt) ? 1 : 0);
    if (hits > 0 && (!best || hits > best.hits)) best = { w, hits };
  }
  const debugging = errors >= 2 || (errors >= 1 && TROUBLE_RE.test(prompt)) ? 1 + errors : 0;
  if (debugging > (best?.hits ?? 0)) return { type: 'workflow', key: 'debugging', label: 'Debugging', relevance: relevance(debugging) };
  return best ? { type: 'workflow', key: best.w.key, label: best.w.label, relevance: relevance(best.hits) } : undefined;
}

function relevance(hits: number): number {
  return +(0.5 + 0.1 * Math.min(hits, 4)).toFixed(2);
}

interface TermCount {
  surface: string;
  tf: number;
  inPrompt: boolean;
}

/**
 * Concept rooms: words and two-word phrases the participants used repeatedly (or the human asked about),
 * distinctive in the store (IDF) yet recurring across exchanges (seen in another exchange), so the room
 * groups exchanges instead of naming one. On a store too small to tell (< 20 exchanges) recurrence is not
 * required.
 */
function conceptRooms(prompt: string, parts: readonly VerbatimPart[], stats: TermStats): RoomAssignment[] {
  const terms = new Map<string, TermCount>();
  const count = (text: string, inPrompt: boolean): void => {
    const seq = contentWords(text);
    for (let i = 0; i < seq.length; i++) {
      const w = seq[i]!;
      if (w.lower.length >= 3) bump(terms, w.lower, w.surface, inPrompt);
      const next = seq[i + 1];
      if (next && next.adjacent) bump(terms, `${w.lower} ${next.lower}`, `${w.surface} ${next.surface}`, inPrompt);
    }
  };
  count(prompt.slice(0, 8_000), true);
  // the assistant's words, latest first, up to a budget: long exchanges repeat themselves
  let budget = 12_000;
  for (let i = parts.length - 1; i >= 0 && budget > 0; i--) {
    const p = parts[i]!;
    if (p.kind !== 'assistant') continue;
    count(p.text.slice(0, Math.min(8_000, budget)), false);
    budget -= p.text.length;
  }

  const small = stats.documents < 20;
  const maxDf = Math.max(2, stats.documents * 0.25);
  const scored: Array<{ t: TermCount; score: number }> = [];
  for (const [lower, t] of terms) {
    const isPhrase = lower.includes(' ');
    if (t.tf < 2 && !(t.inPrompt && !isPhrase)) continue;
    if (!small) {
      const df = isPhrase ? Math.min(...lower.split(' ').map((w) => stats.documentFrequency(w))) : stats.documentFrequency(lower);
      if (df < 2 || df > maxDf) continue;
    }
    const score = Math.log1p(t.tf) * termIdf(lower, stats) * (isPhrase ? 1.3 : 1) * (t.inPrompt ? 1.2 : 1);
    scored.push({ t, score });
  }
  scored.sort((a, b) => b.score - a.score || (a.t.surface < b.t.surface ? -1 : a.t.surface > b.t.surface ? 1 : 0));
  if (scored.length === 0) {
    // nothing recurs in the store (a greeting, a new topic): the word said most, rarest, longest still
    // gives the exchange a room
    const fallback = [...terms.entries()]
      .filter(([lower]) => !lower.includes(' '))
      .map(([lower, t]) => ({ ...t, idf: stats.idf(lower) }))
      .sort(
        (a, b) =>
          b.tf - a.tf || b.idf - a.idf || b.surface.length - a.surface.length || (a.surface < b.surface ? -1 : a.surface > b.surface ? 1 : 0),
      )[0];
    return fallback ? [{ type: 'concept', key: fallback.surface, label: fallback.surface, relevance: 0.5 }] : [];
  }
  const out: RoomAssignment[] = [];
  for (const { t, score } of scored) {
    // a phrase and its own words are one topic: keep the first-ranked
    if (out.some((r) => overlaps(r.label.toLowerCase(), t.surface.toLowerCase()))) continue;
    const rel = out.length === 0 ? 0.9 : Math.min(0.8, +(0.9 * (score / scored[0]!.score)).toFixed(2));
    if (out.length === 1 && rel < 0.6) break;
    out.push({ type: 'concept', key: t.surface, label: t.surface, relevance: rel });
    if (out.length === 2) break;
  }
  return out;
}

function overlaps(a: string, b: string): boolean {
  const wa = a.split(' ');
  return b.split(' ').some((w) => wa.includes(w));
}

function bump(terms: Map<string, TermCount>, lower: string, surface: string, inPrompt: boolean): void {
  const t = terms.get(lower);
  if (t) {
    t.tf++;
    t.inPrompt ||= inPrompt;
  } else terms.set(lower, { surface, tf: 1, inPrompt });
}

/** A phrase is as distinctive as the mean of its words. */
function termIdf(lower: string, stats: TermStats): number {
  const space = lower.indexOf(' ');
  return space < 0 ? stats.idf(lower) : (stats.idf(lower.slice(0, space)) + stats.idf(lower.slice(space + 1))) / 2;
}

/**
 * Content words in order, with whether each follows the previous one directly (no stop word, number or
 * punctuation between), so two adjacent content words can form a phrase. Code blocks are skipped.
 */
function contentWords(text: string): Array<{ lower: string; surface: string; adjacent: boolean }> {
  const prose = text.replace(/```[\s\S]*?(?:```|$)/g, '\n');
  const out: Array<{ lower: string; surface: string; adjacent: boolean }> = [];
  let lastEnd = -1;
  for (const m of prose.matchAll(/[\p{L}][\p{L}\p{N}_]*/gu)) {
    const surface = m[0].replace(/_+$/, '');
    const lower = surface.toLowerCase();
    const start = m.index ?? 0;
    if (isStopWord(lower) || lower.length < 2) {
      lastEnd = -1;
      continue;
    }
    const gap = lastEnd >= 0 ? prose.slice(lastEnd, start) : '';
    out.push({ lower, surface, adjacent: lastEnd >= 0 && /^(?:[ \t]+|-)$/.test(gap) });
    lastEnd = start + m[0].length;
  }
  return out;
}
