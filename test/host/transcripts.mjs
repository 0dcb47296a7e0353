// Builders for invented agent transcripts in the formats the agents write (see the transcript notes):
// Claude Code session JSONL, Codex CLI rollouts (envelope layout), SpecStory markdown, Aider histories, Copilot
// Chat session documents, Gemini CLI sessions, Cline and legacy Kilo Code task histories, Continue sessions and Kiro IDE
// sessions.
// Used for the test fixtures (JSONL sessions must carry the temp workspace path as their cwd, so they are
// generated at run time) and for the `npm start` sample. Output is deterministic for the same input.
import { createHash } from 'node:crypto';

/** A conversation: turns of a human prompt followed by steps (text replies and tool calls). */
/**
 * @typedef {{ text: string } | { tool: string, input: object, result: string, isError?: boolean, toolUseResult?: object }} Step
 * @typedef {{ prompt: string, steps: Step[], minutes?: number }} Turn
 */

/** Claude Code's project folder name for a cwd: every non-alphanumeric character becomes `-`. */
export function claudeProjectDir(cwd) {
  return cwd.replace(/[^A-Za-z0-9]/g, '-');
}

function ids(seed) {
  let n = 0;
  const next = () => createHash('sha1').update(`${seed}:${n++}`).digest('hex');
  return {
    uuid: () => {
      const h = next();
      return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
    },
    hex: (len) => next().slice(0, len),
  };
}

function clock(start) {
  let t = Date.parse(start);
  return (seconds = 7) => new Date((t += seconds * 1000)).toISOString();
}

const jsonl = (records) => records.map((r) => JSON.stringify(r)).join('\n') + '\n';

/** A Claude Code session (`~/.claude/projects/<enc>/<sessionId>.jsonl`). */
export function claudeSession({ cwd, sessionId, start, turns, model = 'claude-sonnet-4-5-20250929', version = '2.1.14', gitBranch = 'main' }) {
  const id = ids(sessionId);
  const at = clock(start);
  const out = [];
  let parent = null;
  const push = (rec) => {
    const full = { parentUuid: parent, isSidechain: false, userType: 'external', cwd, sessionId, version, gitBranch, ...rec, uuid: id.uuid() };
    out.push(full);
    parent = full.uuid;
  };
  const assistant = (msgId, block, timestamp) =>
    push({
      message: { model, id: msgId, type: 'message', role: 'assistant', content: [block], stop_reason: null, stop_sequence: null,
        usage: { input_tokens: 4, cache_read_input_tokens: 12000, output_tokens: 180, service_tier: 'standard' } },
      requestId: `req_${id.hex(24)}`, type: 'assistant', timestamp,
    });
  for (const turn of turns) {
    if (turn.minutes) at(turn.minutes * 60);
    out.push({ type: 'file-history-snapshot', messageId: id.uuid(), snapshot: { trackedFileBackups: {}, timestamp: at(0) }, isSnapshotUpdate: false });
    push({ type: 'user', message: { role: 'user', content: turn.prompt }, timestamp: at(5) });
    for (const step of turn.steps) {
      const msgId = `msg_${id.hex(24)}`;
      if ('text' in step) {
        assistant(msgId, { type: 'text', text: step.text }, at(12));
        continue;
      }
      const toolUseId = `toolu_${id.hex(24)}`;
      assistant(msgId, { type: 'tool_use', id: toolUseId, name: step.tool, input: step.input }, at(6));
      push({
        type: 'user',
        message: { role: 'user', content: [{ tool_use_id: toolUseId, type: 'tool_result', content: step.result, ...(step.isError ? { is_error: true } : {}) }] },
        ...(step.toolUseResult ? { toolUseResult: step.toolUseResult } : {}),
        timestamp: at(2),
      });
    }
  }
  return jsonl(out);
}

/** The `toolUseResult` Claude Code records for an Edit (with its structured patch). */
export function claudeEditResult(filePath, oldString, newString, startLine) {
  const oldLines = oldString.split('\n');
  const newLines = newString.split('\n');
  return {
    filePath, oldString, newString, replaceAll: false, userModified: false,
    structuredPatch: [{ oldStart: startLine, oldLines: oldLines.length, newStart: startLine, newLines: newLines.length,
      lines: [...oldLines.map((l) => `-${l}`), ...newLines.map((l) => `+${l}`)] }],
  };
}

/** A Codex CLI rollout (`$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<ts>-<id>.jsonl`, envelope layout). */
export function codexRollout({ cwd, id: sessionId, start, turns, model = 'gpt-5.1-codex' }) {
  const id = ids(sessionId);
  const at = clock(start);
  const out = [];
  const rec = (type, payload, seconds) => out.push({ timestamp: at(seconds), type, payload });
  rec('session_meta', { id: sessionId, timestamp: start, cwd, originator: 'codex_cli_rs', cli_version: '0.63.0', instructions: null, source: 'cli',
    model_provider: 'openai', git: { commit_hash: id.hex(40), branch: 'main', repository_url: 'https://example.invalid/shop.git' } }, 0);
  rec('response_item', { type: 'message', role: 'user', content: [{ type: 'input_text',
    text: `<environment_context>\n  <cwd>${cwd}</cwd>\n  <approval_policy>on-request</approval_policy>\n  <sandbox_mode>workspace-write</sandbox_mode>\n  <network_access>restricted</network_access>\n  <shell>bash</shell>\n</environment_context>` }] }, 0);
  for (const turn of turns) {
    rec('response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: turn.prompt }] }, (turn.minutes ?? 0) * 60 + 10);
    rec('event_msg', { type: 'user_message', message: turn.prompt, images: [] }, 0);
    rec('turn_context', { cwd, approval_policy: 'on-request', sandbox_policy: { type: 'workspace-write' }, model, summary: 'auto' }, 0);
    for (const step of turn.steps) {
      if ('text' in step) {
        rec('response_item', { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: step.text }] }, 9);
        rec('event_msg', { type: 'agent_message', message: step.text }, 0);
        continue;
      }
      const callId = `call_${id.hex(24)}`;
      rec('response_item', { type: 'reasoning', summary: [{ type: 'summary_text', text: `**Running ${step.tool}**` }], content: null, encrypted_content: null }, 3);
      if (step.tool === 'apply_patch') {
        rec('response_item', { type: 'custom_tool_call', status: 'completed', call_id: callId, name: 'apply_patch', input: step.input.patch }, 4);
        rec('response_item', { type: 'custom_tool_call_output', call_id: callId, output: step.result }, 1);
      } else {
        rec('response_item', { type: 'function_call', name: step.tool, arguments: JSON.stringify({ ...step.input, workdir: cwd }), call_id: callId }, 4);
        rec('response_item', { type: 'function_call_output', call_id: callId,
          output: JSON.stringify({ output: step.result, metadata: { exit_code: step.isError ? 1 : 0, duration_seconds: 0.4 } }) }, 1);
      }
    }
  }
  return jsonl(out);
}

/** The path of a rollout below `$CODEX_HOME`. */
export function codexRolloutPath(id, start) {
  const d = new Date(start);
  const p = (n) => String(n).padStart(2, '0');
  const ts = `${d.getUTCFullYear()}-${p(d.getUTCMonth() + 1)}-${p(d.getUTCDate())}T${p(d.getUTCHours())}-${p(d.getUTCMinutes())}-${p(d.getUTCSeconds())}`;
  return `sessions/${d.getUTCFullYear()}/${p(d.getUTCMonth() + 1)}/${p(d.getUTCDate())}/rollout-${ts}-${id}.jsonl`;
}

const specstoryTime = (iso) => iso.slice(0, 16).replace('T', ' ') + 'Z';

/** A SpecStory export (`.specstory/history/<date>-<slug>.md`); steps' text only (tool calls as <tool-use>). */
export function specstoryMarkdown({ sessionId, title, start, turns, agent = 'Agent (model claude-sonnet-4.5, mode Agent)' }) {
  const at = clock(start);
  const header = `<!-- Generated by SpecStory -->\n\n<!-- vscode Session ${sessionId} (${specstoryTime(start)}) -->\n\n# ${title} (${specstoryTime(start)})\n\n`;
  const parts = [];
  for (const turn of turns) {
    parts.push(`_**User (${specstoryTime(at((turn.minutes ?? 3) * 60))})**_\n\n${turn.prompt}\n`);
    const body = turn.steps.map((s) =>
      'text' in s ? s.text : `<tool-use data-tool-type="${s.tool === 'read_file' ? 'read' : 'write'}" data-tool-name="${s.tool}">\n${s.result}\n</tool-use>`,
    );
    parts.push(`_**${agent}**_\n\n${body.join('\n\n')}\n`);
  }
  return header + parts.join('\n---\n\n') + '\n---\n\n';
}

export function specstoryFileName(start, title) {
  const slug = title.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
  return `${start.slice(0, 10)}_${start.slice(11, 16).replace(':', '-')}Z-${slug}.md`;
}

/** An Aider history (`.aider.chat.history.md`): sessions of `#### prompt` + markdown reply + `> ` tool output. */
export function aiderHistory(sessions) {
  const out = [];
  for (const s of sessions) {
    const started = s.start.slice(0, 19).replace('T', ' ');
    out.push(`\n# aider chat started at ${started}\n`);
    out.push(`> /home/dev/.local/bin/aider --model sonnet  \n> Aider v0.86.2  \n> Main model: anthropic/claude-sonnet-4-5 with diff edit format  \n> Git repo: .git with ${s.repoFiles ?? 12} files  \n> Repo-map: using 4096 tokens, auto refresh  \n`);
    for (const turn of s.turns) {
      out.push(`#### ${turn.prompt.replace(/\n/g, '  \n#### ')}  \n`);
      for (const step of turn.steps) {
        if ('text' in step) out.push(`${step.text}\n`);
        else out.push(`> ${step.result.replace(/\n/g, '  \n> ')}  \n`);
      }
    }
  }
  return out.join('\n');
}

/**
 * A GitHub Copilot Chat session document (`<ud>/User/workspaceStorage/<id>/chatSessions/<sessionId>.json`): one
 * request per turn, tool calls in the request's tool-call rounds with their results, an `edit` step as the
 * `textEditGroup` the editor applies (`{ tool, input, result, edit: { path, line, text } }`).
 */
export function copilotSession({ sessionId, start, turns, model = 'copilot/gpt-5' }) {
  const id = ids(sessionId);
  const at = clock(start);
  const requests = turns.map((turn) => {
    if (turn.minutes) at(turn.minutes * 60);
    const timestamp = Date.parse(at(5));
    const toolCalls = [];
    const toolCallResults = {};
    const response = [];
    for (const step of turn.steps) {
      if ('text' in step) {
        response.push({ value: step.text, supportThemeIcons: false, supportHtml: false });
        continue;
      }
      const callId = `call_${id.hex(24)}`;
      toolCalls.push({ id: callId, name: step.tool, arguments: JSON.stringify(step.input) });
      toolCallResults[callId] = { content: [{ value: step.result }] };
      if (step.edit) {
        const { path, line, text } = step.edit;
        response.push({ kind: 'textEditGroup', uri: { $mid: 1, scheme: 'file', path, fsPath: path }, edits: [[{ text, range: { startLineNumber: line, startColumn: 1, endLineNumber: line, endColumn: 1 } }]], done: true });
      }
    }
    return {
      requestId: `request_${id.uuid()}`,
      timestamp,
      modelId: model,
      message: { text: turn.prompt, parts: [{ kind: 'text', text: turn.prompt }] },
      variableData: { variables: [] },
      response,
      result: { timings: { firstProgress: 900, totalElapsed: 14000 }, metadata: { toolCallRounds: [{ response: '', toolCalls }], toolCallResults } },
    };
  });
  return `${JSON.stringify({ version: 3, requesterUsername: 'dev', responderUsername: 'GitHub Copilot', initialLocation: 'panel', sessionId, creationDate: requests[0]?.timestamp, requests }, null, 2)}\n`;
}

/** A Gemini CLI session (`~/.gemini/tmp/<projectHash>/chats/session-*.json`), pretty-printed as the CLI writes it. */
export function geminiSession({ sessionId, projectHash, start, turns, model = 'gemini-2.5-pro' }) {
  const id = ids(sessionId);
  const at = clock(start);
  const messages = [];
  for (const turn of turns) {
    if (turn.minutes) at(turn.minutes * 60);
    messages.push({ id: id.uuid(), timestamp: at(5), type: 'user', content: turn.prompt });
    let calls = [];
    for (const step of turn.steps) {
      if ('text' in step) {
        messages.push({ id: id.uuid(), timestamp: at(12), type: 'gemini', model, content: step.text, ...(calls.length ? { toolCalls: calls } : {}) });
        calls = [];
        continue;
      }
      const callId = `${step.tool}-${Date.parse(at(6))}-${id.hex(12)}`;
      calls.push({ id: callId, name: step.tool, args: step.input, status: 'success', timestamp: at(1),
        result: [{ functionResponse: { id: callId, name: step.tool, response: { output: step.result } } }] });
    }
  }
  return `${JSON.stringify({ sessionId, projectHash, startTime: start, lastUpdated: messages.at(-1)?.timestamp ?? start, messages }, null, 2)}\n`;
}

/**
 * A Cline task history (`<ud>/User/globalStorage/saoudrizwan.claude-dev/tasks/<ms>/api_conversation_history.json`):
 * the Anthropic messages on one line, each stamped with `ts`; the first prompt in `<task>`, later ones in `<feedback>`,
 * the environment details Cline injects (naming the working directory) after each.
 */
export function clineTask({ cwd, start, turns, visible = [] }) {
  const id = ids(`${cwd}:${start}`);
  const at = clock(start);
  const ts = (seconds) => Date.parse(at(seconds));
  const env = `<environment_details>\n# VSCode Visible Files\n${visible.join('\n')}\n\n# Current Working Directory (${cwd}) Files\nsrc/\ntest/\n</environment_details>`;
  const out = [];
  for (const [i, turn] of turns.entries()) {
    if (turn.minutes) at(turn.minutes * 60);
    const tag = i === 0 ? 'task' : 'feedback';
    out.push({ role: 'user', content: [{ type: 'text', text: `<${tag}>\n${turn.prompt}\n</${tag}>` }, { type: 'text', text: env }], ts: ts(5) });
    for (const step of turn.steps) {
      if ('text' in step) {
        out.push({ role: 'assistant', content: [{ type: 'text', text: step.text }], ts: ts(12) });
        continue;
      }
      const useId = `toolu_${id.hex(24)}`;
      out.push({ role: 'assistant', content: [{ type: 'text', text: `<thinking>${step.why ?? 'Look at the code first.'}</thinking>` }, { type: 'tool_use', id: useId, name: step.tool, input: step.input }], ts: ts(6) });
      out.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: useId, content: [{ type: 'text', text: step.result }] }, { type: 'text', text: env }], ts: ts(2) });
    }
  }
  return JSON.stringify(out);
}

/**
 * A Continue session (`~/.continue/sessions/<id>.json`, pretty-printed) and its `sessions.json` entry: history
 * items of user, assistant (with tool calls and their states) and tool messages; Continue records no times.
 */
export function continueSession({ sessionId, title, workspace, start, turns }) {
  const id = ids(sessionId);
  const history = [];
  for (const turn of turns) {
    history.push({ message: { role: 'user', content: turn.prompt }, contextItems: turn.context ?? [] });
    for (const step of turn.steps) {
      if ('text' in step) {
        history.push({ message: { role: 'assistant', content: step.text }, contextItems: [] });
        continue;
      }
      const call = { id: `call_${id.hex(24)}`, type: 'function', function: { name: step.tool, arguments: JSON.stringify(step.input) } };
      history.push({ message: { role: 'assistant', content: '', toolCalls: [call] }, contextItems: [],
        toolCallStates: [{ toolCallId: call.id, toolCall: call, status: 'done', parsedArgs: step.input, output: [{ name: step.tool, description: step.tool, content: step.result }] }] });
      history.push({ message: { role: 'tool', content: step.result, toolCallId: call.id }, contextItems: [] });
    }
  }
  const session = `${JSON.stringify({ sessionId, title, workspaceDirectory: workspace, history }, null, 2)}\n`;
  return { session, index: { sessionId, title, dateCreated: String(Date.parse(start)), workspaceDirectory: workspace } };
}

/**
 * A legacy Kilo Code task (`<ud>/User/globalStorage/kilocode.kilo-code/tasks/<uuid>/`): Cline's history with Kilo's
 * wording of the workspace line and no `ts` (so its date is the first UI message's), and that UI message.
 */
export function kiloTask({ cwd, start, turns, visible = [] }) {
  const history = JSON.parse(clineTask({ cwd, start, turns, visible })).map(({ ts: _ts, ...m }) => m);
  const text = JSON.stringify(history).replaceAll('# Current Working Directory (', '# Current Workspace Directory (');
  const ui = JSON.stringify([{ ts: Date.parse(start), type: 'say', say: 'text', text: turns[0]?.prompt ?? '' }]);
  return { id: ids(`${cwd}:${start}:kilo`).uuid(), history: text, ui };
}

/**
 * A Kiro IDE session (`<Kiro ud>/User/globalStorage/kiro.kiroagent/`): the session document under
 * `workspace-sessions/<base64 of the workspace>/`, its `sessions.json`, and one execution log per answer under
 * `<sha256 of the workspace, 32 hex>/414d1636299d2b9e4ce7e17fb11f63e9/` holding what the agent said and did.
 * Returns the files by their path under `kiro.kiroagent`.
 */
export function kiroIdeSession({ workspace, sessionId, title, start, turns }) {
  const id = ids(sessionId);
  const folder = `workspace-sessions/${Buffer.from(workspace).toString('base64')}`;
  const logs = `${createHash('sha256').update(workspace).digest('hex').slice(0, 32)}/414d1636299d2b9e4ce7e17fb11f63e9`;
  const files = {};
  const history = [];
  for (const turn of turns) {
    history.push({ message: { role: 'user', content: `<kiro-ide-message>${turn.prompt}</kiro-ide-message>`, id: id.uuid() } });
    const executionId = id.uuid();
    const actions = turn.steps.map((step) => ('text' in step
      ? { actionId: id.uuid(), actionType: 'say', output: { message: step.text } }
      : { actionId: id.uuid(), actionType: step.tool, input: { file: step.input.file, ...(step.input.modifiedContent ? { modifiedContent: step.input.modifiedContent } : {}) } }));
    files[`${logs}/${id.hex(32)}`] = JSON.stringify({ executionId, workflowType: 'chat-agent', actions });
    history.push({ message: { role: 'assistant', content: '', id: id.uuid() }, executionId });
  }
  files[`${folder}/${sessionId}.json`] = `${JSON.stringify({ sessionId, title, workspaceDirectory: workspace, history }, null, 2)}\n`;
  files[`${folder}/sessions.json`] = `${JSON.stringify([{ sessionId, title, dateCreated: String(Date.parse(start)), workspaceDirectory: workspace }], null, 2)}\n`;
  return files;
}
