// Builders for invented transcripts of the terminal agents read since issue 40, in the shapes the notes give
// (../shared/notes/transcript-formats-2.md): GitHub Copilot CLI event logs, Qwen Code chat logs and Amp threads.
// Turns and steps as in transcripts.mjs; a step may carry `diff: { line, old, new }` (the edit's place in the new
// file and the replaced and replacing text), written as the unified diff each agent records with an edit.
// Output is deterministic for the same input.
import { createHash } from 'node:crypto';

/**
 * @typedef {{ text: string } | { tool: string, input: object, result: string, isError?: boolean, diff?: { line: number, old: string, new: string } }} Step
 * @typedef {{ prompt: string, steps: Step[], minutes?: number }} Turn
 */

export function ids(seed) {
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

export function clock(start) {
  let t = Date.parse(start);
  return (seconds = 7) => new Date((t += seconds * 1000)).toISOString();
}

const jsonl = (records) => records.map((r) => JSON.stringify(r)).join('\n') + '\n';

/** The unified diff of replacing `old` by `new` at line `line` of `path`. */
export function unifiedDiff(path, { line, old, new: replacement }) {
  const a = old.split('\n');
  const b = replacement.split('\n');
  return [`--- a/${path}`, `+++ b/${path}`, `@@ -${line},${a.length} +${line},${b.length} @@`, ...a.map((l) => `-${l}`), ...b.map((l) => `+${l}`)].join('\n') + '\n';
}

/**
 * A GitHub Copilot CLI session: `session-state/<sessionId>/events.jsonl` (one event per line, payloads under
 * `data`) and the `workspace.yaml` beside it.
 */
export function copilotCliSession({ cwd, sessionId, start, turns, title, model = 'claude-sonnet-4.6' }) {
  const id = ids(sessionId);
  const at = clock(start);
  const out = [];
  let parent = null;
  const ev = (type, data, seconds) => {
    const rec = { type, data, id: id.uuid(), timestamp: at(seconds), parentId: parent };
    parent = rec.id;
    out.push(rec);
  };
  ev('session.start', { sessionId, version: 1, producer: 'copilot-agent', copilotVersion: '1.0.71', startTime: start, selectedModel: model, context: { cwd, branch: 'main', gitRoot: cwd } }, 0);
  for (const turn of turns) {
    if (turn.minutes) at(turn.minutes * 60);
    ev('user.message', { content: turn.prompt }, 5);
    ev('assistant.turn_start', { turnId: id.hex(8) }, 0);
    for (const step of turn.steps) {
      if ('text' in step) {
        ev('assistant.message', { messageId: id.uuid(), content: step.text, model }, 12);
        continue;
      }
      const toolCallId = `call_${id.hex(24)}`;
      ev('assistant.message', { messageId: id.uuid(), content: '', toolRequests: [{ toolCallId, name: step.tool, arguments: JSON.stringify(step.input) }], model }, 6);
      ev('tool.execution_start', { toolCallId, toolName: step.tool, arguments: step.input }, 0);
      const result = { content: step.result, ...(step.diff ? { detailedContent: unifiedDiff(step.input.path, step.diff) } : {}) };
      ev('tool.execution_complete', step.isError ? { toolCallId, success: false, error: { message: step.result } } : { toolCallId, success: true, result }, 2);
    }
    ev('assistant.turn_end', {}, 0);
  }
  const workspaceYaml = `id: ${sessionId}\ncwd: ${cwd}\ngit_root: ${cwd}\nbranch: main\n${title ? `name: ${JSON.stringify(title)}\n` : ''}summary_count: 1\ncreated_at: ${start}\n`;
  return { events: jsonl(out), workspaceYaml };
}

/** A Qwen Code chat log (`projects/<cwd with separators as dashes>/chats/<sessionId>.jsonl`). */
export function qwenSession({ cwd, sessionId, start, turns, title, model = 'qwen3-coder-plus' }) {
  const id = ids(sessionId);
  const at = clock(start);
  const out = [];
  let parent = null;
  const rec = (type, seconds, fields) => {
    const r = { uuid: id.uuid(), parentUuid: parent, sessionId, timestamp: at(seconds), type, cwd, version: '0.15.6', gitBranch: 'main', ...fields };
    parent = r.uuid;
    out.push(r);
  };
  for (const turn of turns) {
    if (turn.minutes) at(turn.minutes * 60);
    rec('user', 5, { message: { role: 'user', parts: [{ text: turn.prompt }] } });
    for (const step of turn.steps) {
      if ('text' in step) {
        rec('assistant', 12, { model, message: { role: 'model', parts: [{ text: step.text }] } });
        continue;
      }
      const callId = `call_${id.hex(24)}`;
      rec('assistant', 6, { model, message: { role: 'model', parts: [{ functionCall: { id: callId, name: step.tool, args: step.input } }] } });
      const response = step.isError ? { error: step.result } : { output: step.result };
      const display = step.diff ? { fileDiff: unifiedDiff(step.input.file_path, step.diff), fileName: step.input.file_path.split('/').pop(), originalContent: null, newContent: step.diff.new } : step.result;
      rec('tool_result', 2, {
        message: { role: 'user', parts: [{ functionResponse: { id: callId, name: step.tool, response } }] },
        toolCallResult: { callId, status: step.isError ? 'error' : 'success', resultDisplay: display },
      });
    }
  }
  if (title) rec('system', 0, { subtype: 'custom_title', systemPayload: { customTitle: title, titleSource: 'auto' } });
  return jsonl(out);
}

/** Qwen Code's project folder name for a cwd: separators (and other non-alphanumerics) as dashes. */
export function qwenProjectDir(cwd) {
  return cwd.replace(/[^A-Za-z0-9]/g, '-');
}

/** An Amp thread (`threads/T-<uuid>.json`), pretty-printed; its tool results in Amp's own `run` shape. */
export function ampThread({ cwd, threadId, start, turns, title, model = 'claude-sonnet-4-5' }) {
  const id = ids(threadId);
  const at = clock(start);
  const messages = [];
  const push = (message) => messages.push({ messageId: messages.length, ...message });
  for (const turn of turns) {
    if (turn.minutes) at(turn.minutes * 60);
    push({ role: 'user', content: [{ type: 'text', text: turn.prompt }], meta: { sentAt: Date.parse(at(5)) } });
    for (const step of turn.steps) {
      if ('text' in step) {
        push({ role: 'assistant', content: [{ type: 'text', text: step.text }], state: { type: 'complete', stopReason: 'end_turn' }, usage: { model, timestamp: at(12), inputTokens: 10, outputTokens: 160 } });
        continue;
      }
      const useId = `toolu_${id.hex(24)}`;
      push({ role: 'assistant', content: [{ type: 'tool_use', id: useId, name: step.tool, input: step.input, complete: true }], state: { type: 'complete', stopReason: 'tool_use' }, usage: { model, timestamp: at(6) } });
      const result = step.diff ? { diff: unifiedDiff(step.input.path, step.diff) } : { output: step.result };
      at(2);
      push({ role: 'user', content: [{ type: 'tool_result', toolUseID: useId, run: step.isError ? { status: 'error', error: { message: step.result } } : { status: 'done', result } }] });
    }
  }
  const name = cwd.split('/').pop();
  return `${JSON.stringify({ v: messages.length * 3, id: threadId, created: Date.parse(start), title, messages, env: { initial: { trees: [{ displayName: name, uri: `file://${cwd}` }] } } }, null, 2)}\n`;
}
