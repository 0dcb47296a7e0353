import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv-provider.js';
import { RecallError } from '../core/errors';
import { QUOTED_DESCRIPTION, visibleControls, visibleControlsIn } from '../core/quoted';
import { LineTransport } from './lineTransport';
import { fileHistoryInput, readExchangeInput, recentInput, searchInput } from './schemas';
import type { ScopedMemory } from './scopedMemory';
import { type ToolAnswer, ToolInputError, MemoryTools, type ToolOptions } from './tools';

/**
 * The MCP server over one workspace's memory (stdio): four read-only tools. The SDK validates input
 * against the schemas and turns a failed validation into an error result the agent can read; the tools
 * answer what the schemas cannot know (unknown ids) the same way. Every description says that what comes
 * back is quoted transcript data (tools.ts fences it), never instructions.
 */

const INSTRUCTIONS =
  'Memory of past conversations between the user and AI coding agents (Claude Code, Codex, Copilot, Gemini CLI, Aider, …) in this ' +
  'workspace. Each exchange is distilled into one sentence plus one exact detail; ids lead to the verbatim text. ' +
  'Use search for what was discussed or decided before, file_history before changing a file, recent to catch up; ' +
  `then read_exchange for the exact words. ${QUOTED_DESCRIPTION}`;

/**
 * How long the server waits after the client's handshake, no tool called, before it warms itself up (ScopedMemory.warmUp):
 * an agent starts its servers with its session and calls a tool seconds or minutes later, and its first calls then
 * meet compiled code; a client that calls at once (a script, mcpLatency.mjs) meets no warm-up before its first answer.
 */
export const IDLE_BEFORE_WARM_UP_MS = 500;

/**
 * The SDK's JSON Schema validator, made when first asked for: the SDK makes Ajv with its formats in the server's
 * constructor, and checks with it only a client's answer to an elicitation, which this server never asks (esbuild.mjs
 * leaves Ajv's modules unloaded until then).
 */
function validatorOnFirstUse(): jsonSchemaValidator {
  let made: AjvJsonSchemaValidator | undefined;
  return { getValidator: (schema) => (made ??= new AjvJsonSchemaValidator()).getValidator(schema) };
}

export function createMcpServer(memory: ScopedMemory, options: ToolOptions, version: string, afterFirstAnswer?: () => void): McpServer {
  const tools = new MemoryTools(memory, options);
  let answered = false;
  let called = false;
  let warming = false;
  // once: its searches take the search tool's whole path, to the answer's visible characters
  const warmUp = (): void => {
    if (warming) return;
    warming = true;
    void tools.warmUp((a) => answer(() => Promise.resolve(a))).catch(() => undefined);
  };
  // the hook runs once the first answer is on its way (the SDK writes it once the handler's promise settles), and the
  // warm-up then, unless the server was idle long enough before it to start it
  const reply = (run: () => Promise<ToolAnswer>): Promise<CallToolResult> => {
    called = true;
    return answer(run).finally(() => {
      if (answered) return;
      answered = true;
      if (afterFirstAnswer) setImmediate(afterFirstAnswer);
      setImmediate(warmUp);
    });
  };
  const server = new McpServer({ name: 'agent-recall', version }, { instructions: INSTRUCTIONS, jsonSchemaValidator: validatorOnFirstUse() });
  server.server.oninitialized = () => {
    setTimeout(() => called || warmUp(), IDLE_BEFORE_WARM_UP_MS).unref();
  };
  const readOnly = { readOnlyHint: true, openWorldHint: false } as const;

  server.registerTool(
    'search',
    {
      title: 'Search past agent conversations',
      description:
        'Searches the memory of past exchanges with AI coding agents in this workspace. Returns distilled exchanges, best ' +
        'first: id, date, agent, confidence, a one-sentence core, one exact detail, files touched, rooms and a short ' +
        'verbatim snippet, within a token budget. Filters: agent, since/until (ISO dates), file, room, conversation (at most ' +
        'two results come from one conversation; a result says how many more matched, and conversation asks for all of them). ' +
        QUOTED_DESCRIPTION,
      inputSchema: searchInput,
      annotations: readOnly,
    },
    (input) => reply(() => tools.search(input)),
  );
  server.registerTool(
    'read_exchange',
    {
      title: 'Read a past exchange verbatim',
      description:
        'One past exchange verbatim (the prompt, the replies, one line per tool call and result), cut to a token budget, ' +
        'with its transcript location, distilled core, files touched and the ids of the previous and next exchange of its conversation. ' +
        QUOTED_DESCRIPTION,
      inputSchema: readExchangeInput,
      annotations: readOnly,
    },
    (input) => reply(() => tools.readExchange(input)),
  );
  server.registerTool(
    'file_history',
    {
      title: 'Past exchanges that touched a file',
      description: `The past exchanges that read, edited, wrote or mentioned a file, newest first, with how and at which lines. ${QUOTED_DESCRIPTION}`,
      inputSchema: fileHistoryInput,
      annotations: readOnly,
    },
    (input) => reply(() => tools.fileHistory(input)),
  );
  server.registerTool(
    'recent',
    {
      title: 'Newest past exchanges',
      description: `The newest past exchanges of this workspace, distilled, newest first. ${QUOTED_DESCRIPTION}`,
      inputSchema: recentInput,
      annotations: readOnly,
    },
    (input) => reply(() => tools.recent(input)),
  );
  return server;
}

/**
 * Serves `memory` on stdin/stdout until the client ends its input and every request read is answered.
 * What the server could not serve (a line too long, not JSON, no JSON-RPC message) is answered on stdout
 * and told on stderr, through `log`. `afterFirstAnswer` runs once, after the first tool's answer is on its way.
 */
export async function serveStdio(
  memory: ScopedMemory,
  options: ToolOptions,
  version: string,
  log: (line: string) => void,
  afterFirstAnswer?: () => void,
): Promise<void> {
  const server = createMcpServer(memory, options, version, afterFirstAnswer);
  const closed = new Promise<void>((resolve) => {
    server.server.onclose = () => resolve();
  });
  server.server.onerror = (error) => log(`agent-recall mcp: ${error.message}`);
  await server.connect(new LineTransport());
  await closed;
}

/**
 * A tool's answer as an MCP result, every character of it visible (core/quoted.ts: nothing hidden from the
 * user reaches the agent); a request it cannot serve becomes an error result with the reason.
 */
async function answer(run: () => Promise<ToolAnswer>): Promise<CallToolResult> {
  try {
    const a = await run();
    return { content: [{ type: 'text', text: visibleControls(a.text) }], structuredContent: visibleControlsIn(a.data) };
  } catch (err) {
    const known = err instanceof ToolInputError || (err instanceof RecallError && err.code === 'bad-argument');
    const message = err instanceof Error ? err.message : String(err);
    return { content: [{ type: 'text', text: known ? message : `Agent Recall could not read its memory: ${message}` }], isError: true };
  }
}
