/**
 * The normalised domain model every source adapter produces and every later stage consumes.
 * Transcripts -> Conversation/Message (this file) -> Exchange (segment.ts) -> store rows.
 */

export type AgentKind =
  | 'claude-code' | 'codex' | 'specstory' | 'aider' | 'copilot' | 'gemini' | 'cline' | 'roo-code'
  | 'continue' | 'opencode' | 'cursor'
  | 'copilot-cli' | 'qwen-code' | 'amp' | 'pi'
  | 'kilo' | 'kiro' | 'zed'
  | 'goose' | 'crush' | 'factory-droid'
  | 'trae' | 'openhands' | 'kimi' | 'warp' | 'antigravity' | 'junie';

export const AGENT_KINDS: readonly AgentKind[] = [
  'claude-code', 'codex', 'specstory', 'aider', 'copilot', 'gemini', 'cline', 'roo-code',
  'continue', 'opencode', 'cursor',
  'copilot-cli', 'qwen-code', 'amp', 'pi',
  'kilo', 'kiro', 'zed',
  'goose', 'crush', 'factory-droid',
  'trae', 'openhands', 'kimi', 'warp', 'antigravity', 'junie',
];

/** Each agent as people call it, for what the user reads (ids stay in data, filters and the CLI). */
export const AGENT_NAMES: Readonly<Record<AgentKind, string>> = {
  'claude-code': 'Claude Code', codex: 'Codex', specstory: 'SpecStory', aider: 'Aider', copilot: 'Copilot Chat', gemini: 'Gemini CLI',
  cline: 'Cline', 'roo-code': 'Roo Code', continue: 'Continue', opencode: 'OpenCode', cursor: 'Cursor',
  'copilot-cli': 'Copilot CLI', 'qwen-code': 'Qwen Code', amp: 'Amp', pi: 'Pi',
  kilo: 'Kilo Code', kiro: 'Kiro', zed: 'Zed',
  goose: 'Goose', crush: 'Crush', 'factory-droid': 'Factory Droid',
  trae: 'Trae', openhands: 'OpenHands', kimi: 'Kimi Code', warp: 'Warp', antigravity: 'Antigravity', junie: 'Junie',
};

/** A tool invocation made by the assistant, with its input as the agent recorded it. */
export interface ToolCall {
  readonly id?: string;
  readonly name: string;
  /** Parsed input object (Codex `arguments` strings are JSON-decoded when possible). */
  readonly input: unknown;
  /**
   * The lines the call reads, when its adapter read them by the agent's own convention (Pi's `read` counts its
   * offset from 1 where OpenCode's `read` counts from 0): taken instead of the input's offset and limit.
   */
  readonly lines?: readonly LineRange[];
  /**
   * What the agent says to the person through the call, taken out of its input by the adapter: Claude Code's plan in
   * plan mode (`ExitPlanMode`'s `plan`). Rendered whole as the assistant's words after the call's line, where an
   * input is cut to TOOL_INPUT_CHARS (render.ts).
   */
  readonly said?: string;
}

/** Line ranges an edit touched, when the transcript records them (Claude Code `structuredPatch`). */
export interface LineRange {
  readonly start: number;
  readonly end: number;
}

/** The output of a tool call as the agent recorded it. */
export interface ToolResult {
  readonly toolUseId?: string;
  readonly text: string;
  readonly isError: boolean;
  /** Structured facts some agents attach (Claude Code `toolUseResult`): the file and the edited lines. */
  readonly filePath?: string;
  readonly editedLines?: readonly LineRange[];
}

/**
 * Who produced a message and what it is:
 * - `prompt`: a real human prompt (never a wrapper, meta line or injected context)
 * - `context`: user-side text that is not human (compaction summaries, injected instructions)
 * - `tool-results`: the user-side line(s) carrying tool outputs
 * - `reply`: an assistant message (text and/or tool calls)
 */
export type MessageKind = 'prompt' | 'context' | 'tool-results' | 'reply';

export interface Message {
  readonly kind: MessageKind;
  readonly role: 'user' | 'assistant';
  /** Human-readable text (system reminders stripped, thinking omitted). */
  text: string;
  readonly toolCalls: ToolCall[];
  readonly toolResults: ToolResult[];
  readonly timestamp?: string;
  /** 1-based first and last line of the source file this message came from (inclusive). */
  readonly line: number;
  lineEnd: number;
  /** Byte offset in the source file where this message's first line starts. */
  readonly offset: number;
  readonly uuid?: string;
  /**
   * A `context` message that opens an exchange of its own, and that exchange's prompt in the agent's words: a
   * background task's report the model answers (Claude Code's `<task-notification>`, its summary). segment.ts starts
   * an exchange at it as at a prompt; the rendering still shows it as `[context]`: nobody typed it.
   */
  readonly opens?: string;
  /**
   * A `prompt` the person typed while the model worked, taken into the running turn (Claude Code's queue): it joins
   * the exchange open, where segment.ts would start one at a typed prompt.
   */
  readonly taken?: true;
  /**
   * Files the agent's own side records say this message read, edited or wrote (Cline's task metadata and UI
   * messages), when the message itself does not carry the tool call; or what its adapter read from tool inputs
   * files.ts does not know (Kiro's, Zed's, Goose's `text_editor` commands), with the lines those inputs name.
   */
  touched?: readonly RecordedTouch[];
}

/**
 * Where an exchange's date comes from, most precise first: the time its own messages carry (`message`),
 * its conversation's start (`session`: a SpecStory heading or session header, an Aider `# aider chat started
 * at` line, a legacy Codex rollout's first line), or a date in the transcript's file name (`file-name`).
 * Only `message` is exact; the others are approximate: the exchange happened then or later.
 */
export type DatePrecision = 'message' | 'session' | 'file-name';

export interface ConversationMeta {
  readonly agent: AgentKind;
  /** The agent's own session id when it has one; otherwise a stable id derived from the file and header line. */
  readonly sessionId: string;
  /** Working directory the agent ran in (from the records, never from folder names). */
  readonly project?: string;
  readonly gitBranch?: string;
  readonly title?: string;
  readonly startedAt?: string;
  /** Where `startedAt` comes from when no message carries a time: a heading or header (default) or the file name. */
  readonly startedAtPrecision?: Exclude<DatePrecision, 'message'>;
  readonly isSubagent: boolean;
  readonly parentSessionId?: string;
  readonly model?: string;
  /** 1-based line where this conversation starts in its source file. */
  readonly line: number;
}

export interface Conversation {
  readonly sourceFile: string;
  meta: ConversationMeta;
  readonly messages: Message[];
}

/** Why a line was not turned into a message. Counted per source and reported by `stats`. */
export type SkipReason =
  | 'malformed-json'
  | 'unknown-record'
  | 'not-an-object'
  | 'duplicate-uuid'
  | 'oversized-line'
  | 'partial-line';

export type SkipCounts = Partial<Record<SkipReason, number>>;

/** One skipped line of a source, kept by position so an incremental re-parse can replace it. */
export interface SkippedLine {
  readonly line: number;
  readonly reason: SkipReason;
}

/** An exchange: a human prompt and everything the agent did until its substantive answer (paper 3.1). */
export interface Exchange {
  /** Stable id: the same bytes always give the same id. */
  readonly id: string;
  readonly conversationKey: string;
  readonly agent: AgentKind;
  readonly sourceFile: string;
  readonly sessionId: string;
  readonly project?: string;
  /** Piece index when a long exchange was split at fixed ply intervals (0 when not split). */
  readonly part: number;
  readonly plyStart: number;
  readonly plyEnd: number;
  readonly lineStart: number;
  readonly lineEnd: number;
  readonly byteStart: number;
  readonly startedAt?: string;
  /** How precise `startedAt` is (set with it). */
  readonly datePrecision?: DatePrecision;
  readonly endedAt?: string;
  /** The human prompt text ('' for continuation pieces). */
  readonly prompt: string;
  /** The verbatim rendering (see docs/architecture.md, "Verbatim rendering"). */
  readonly verbatim: string;
  readonly messages: readonly Message[];
  readonly filesTouched: readonly FileTouch[];
}

/** An exchange as listed and as a search hit shows it (no verbatim text). */
export interface ExchangeSummary {
  readonly exchangeId: string;
  readonly agent: AgentKind;
  /** Absolute path of the source transcript. */
  readonly file: string;
  /** 1-based inclusive line range of the exchange in `file`. */
  readonly lineStart: number;
  readonly lineEnd: number;
  readonly sessionId: string;
  readonly project?: string;
  readonly startedAt?: string;
  /** How precise `startedAt` is (set with it): anything but `message` is approximate. */
  readonly datePrecision?: DatePrecision;
  readonly prompt: string;
}

export type TouchKind = 'read' | 'edit' | 'write' | 'mention';

/** A file as a message's source records touching it: the path as written (files.ts resolves it), with the lines when named. */
export interface RecordedTouch {
  readonly path: string;
  readonly how: TouchKind;
  readonly lines?: readonly LineRange[];
}

export interface FileTouch {
  /** Workspace-relative POSIX path when inside the workspace, otherwise the absolute path as recorded. */
  readonly path: string;
  readonly how: TouchKind;
  readonly lines?: readonly LineRange[];
}

/* ---- The distilled layer (paper 3.2); distill/ produces it, store/ keeps it, views read it. ---- */

export type RoomType = 'file' | 'concept' | 'workflow';

export const ROOM_TYPES: readonly RoomType[] = ['file', 'concept', 'workflow'];

/** A thematic room an exchange belongs to, as a distiller proposes it. */
export interface RoomAssignment {
  readonly type: RoomType;
  /**
   * Identity within a type. Distillers propose it as written; rooms.ts normalises it (case, separators,
   * stems) and merges near-duplicates before it is stored.
   */
  readonly key: string;
  /** Human label shown in the rooms tree. */
  readonly label: string;
  /** 0–1: how central the room is to the exchange. */
  readonly relevance: number;
}

export interface DistilledExchange {
  /** 1–2 sentences: what was done or decided, in the participants' own terms. */
  readonly exchangeCore: string;
  /** One exact detail copied from the exchange: a number, error message, parameter name or path. */
  readonly specificContext: string;
  /** 1–3 rooms. */
  readonly rooms: readonly RoomAssignment[];
  /**
   * Words the exchange is found by that core and context do not say, space-separated (the offline distiller's
   * names, identifiers and the human's key words, distill/searchTerms.ts): searched in the `all-facets` layer,
   * never shown, not counted in the distilled tokens.
   */
  readonly searchTerms?: string;
}


/** A room as stored: the distiller's proposal resolved to an identity (rooms.ts). */
export interface StoredRoom extends RoomAssignment {
  readonly id: string;
  readonly project?: string;
}

/** A stored distilled object as every reader sees it (viewer, `show`, "more like this"). */
export interface DistilledView extends DistilledExchange {
  /** Rooms of the tree: 3+ exchanges from 2+ conversations (store/roomStats.ts). */
  readonly rooms: readonly StoredRoom[];
  /** The exchange's other room candidates: searchable facets, not rooms of the tree (yet). */
  readonly facets?: readonly StoredRoom[];
  readonly distiller: string;
  readonly model?: string;
  readonly promptVersion: string;
  /** cl100k tokens of core + "\n" + context. */
  readonly distilledTokens: number;
}

/**
 * What a distiller sees of one exchange: its verbatim rendering plus the provenance the prompt needs
 * (project, ply range) and the tool/regex-derived files (context for rooms; never re-derived by an LLM).
 */
export interface DistillInput {
  /** Store row number (exchanges.n): the key results are written back under. */
  readonly n: number;
  readonly exchangeId: string;
  readonly agent: AgentKind;
  readonly project?: string;
  /** The conversation's title, when its agent recorded one (Claude Code's summary, Gemini CLI's, a SpecStory heading). */
  readonly title?: string;
  readonly plyStart: number;
  readonly plyEnd: number;
  readonly prompt: string;
  readonly verbatim: string;
  readonly filesTouched: readonly FileTouch[];
}

/* ---- Search: what a hit is and how sure the ranking is (search/ ranks, views display). ---- */

/** Which layer or facet a signal searched. */
export type Layer = 'verbatim' | 'core' | 'core+files' | 'core+rooms' | 'all-facets';

export type Confidence = 'high' | 'medium' | 'low';

/** One signal's contribution to a hit: which mechanism on which layer found it, at what rank and score. */
export interface ScorePart {
  readonly signal: string;
  readonly rank: number;
  /** The mechanism's raw score (bm25: positive, higher is better; vector: cosine similarity). */
  readonly score: number;
}

/** What a search may be limited to (every filter given must hold). */
export interface SearchFilters {
  readonly agents?: readonly AgentKind[];
  /** ISO timestamps, inclusive. */
  readonly since?: string;
  readonly until?: string;
  /** Workspace-relative path of a touched file. */
  readonly file?: string;
  /** Room id. */
  readonly room?: string;
  /** Conversation id: only its exchanges, and all of its matches (the per-conversation cap does not apply). */
  readonly conversation?: string;
  readonly project?: string;
  /** Only exchanges whose project lies inside one of these folders (a workspace's boundary). */
  readonly within?: readonly string[];
}

export interface HitRoom {
  readonly id: string;
  readonly type: RoomType;
  readonly label: string;
}

/** Another place an exchange was found: a transcript holding the same exchange (the conversation saved twice). */
export interface SavedCopy {
  readonly file: string;
  readonly lineStart: number;
  readonly lineEnd: number;
}

export interface Hit extends ExchangeSummary {
  readonly conversationId: string;
  /** The conversation's title, when the agent recorded one. */
  readonly title?: string;
  /** Fused score (higher is better). */
  readonly score: number;
  readonly parts: readonly ScorePart[];
  readonly confidence: Confidence;
  /** Distilled object, when the exchange has been distilled. */
  readonly core?: string;
  readonly context?: string;
  readonly rooms: readonly HitRoom[];
  readonly filesTouched: readonly FileTouch[];
  /** A short verbatim excerpt; matched terms wrapped in \u0001 … \u0002 (the UI escapes, then marks). */
  readonly snippet: string;
  /** Query terms that matched, for "why it matched": those that tell exchanges apart, unless none does. */
  readonly matchedTerms: readonly string[];
  /** Matches of this hit's conversation that the per-conversation cap left out (among the candidates scored). */
  readonly more: number;
  /** The conversation's first prompt, when some were left out and it has no title (to name the conversation). */
  readonly firstPrompt?: string;
  /**
   * Other places this exchange was saved: exact copies (joined when read) and near-identical exchanges the
   * search folded into this hit (search/copies.ts). Empty for most.
   */
  readonly copies: readonly SavedCopy[];
}

