// Builders for invented sessions of Kimi Code, Junie and the OpenHands CLI, in the shapes their readers take
// (src/core/sources/kimi.ts, junie.ts, openHands.ts): a Kimi Code wire log, a Junie event log and its index line, an
// OpenHands conversation folder. Turns and steps as in cliTranscripts.mjs, with each agent's own tool names in the
// steps. Output is deterministic for the same input.
import { createHash } from 'node:crypto';

/**
 * @typedef {{ text: string } | { tool: string, input: object, result: string, isError?: boolean }} Step
 * @typedef {{ prompt: string, steps: Step[], minutes?: number }} Turn
 */

const jsonl = (records) => records.map((r) => JSON.stringify(r)).join('\n') + '\n';

function hexIds(seed) {
  let n = 0;
  return () => createHash('sha1').update(`${seed}:${n++}`).digest('hex');
}

function msClock(start) {
  let t = Date.parse(start);
  return (seconds = 7) => (t += seconds * 1000);
}

/** A Kimi Code session's main agent log (`agents/main/wire.jsonl`) and its `state.json`. */
export function kimiSession({ cwd, sessionId, start, turns, title, model = 'kimi-code/kimi-for-coding' }) {
  const at = msClock(start);
  const next = hexIds(sessionId);
  const out = [
    { type: 'metadata', protocol_version: '1.4', created_at: at(0) },
    { type: 'config.update', cwd, modelAlias: model, profileName: 'agent', time: at(0) },
  ];
  const text = (s) => [{ type: 'text', text: s }];
  for (const [t, turn] of turns.entries()) {
    if (turn.minutes) at(turn.minutes * 60);
    const time = at(5);
    out.push({ type: 'turn.prompt', input: text(turn.prompt), origin: { kind: 'user' }, time });
    out.push({ type: 'context.append_message', message: { role: 'user', content: text(turn.prompt), toolCalls: [], origin: { kind: 'user' } }, time });
    for (const [s, step] of turn.steps.entries()) {
      const stepUuid = next().slice(0, 12);
      const loop = (event, seconds = 1) => out.push({ type: 'context.append_loop_event', event: { turnId: String(t), step: s + 1, ...event }, time: at(seconds) });
      loop({ type: 'step.begin', uuid: stepUuid });
      if ('text' in step) loop({ type: 'content.part', uuid: next().slice(0, 12), stepUuid, part: { type: 'text', text: step.text } }, 9);
      else {
        const toolCallId = `${step.tool}:${s}`;
        loop({ type: 'tool.call', uuid: next().slice(0, 12), stepUuid, toolCallId, name: step.tool, args: step.input }, 4);
        loop({ type: 'tool.result', parentUuid: stepUuid, toolCallId, result: { output: step.result, ...(step.isError ? { isError: true } : {}) } }, 3);
      }
      loop({ type: 'step.end', uuid: stepUuid, finishReason: 'text' in step ? 'end_turn' : 'tool_use' }, 0);
    }
  }
  const state = { createdAt: start, updatedAt: new Date(at(0)).toISOString(), title, isCustomTitle: false, agents: { main: { type: 'main', parentAgentId: null } }, custom: {} };
  return { wire: jsonl(out), state: `${JSON.stringify(state, null, 2)}\n` };
}

/**
 * A Junie session's event log (`sessions/<id>/events.jsonl`) and its line of `sessions/index.jsonl`: a prompt, then a
 * block per step (`ViewFilesBlockUpdatedEvent` for `view`, `FileChangesBlockUpdatedEvent` for `change`,
 * `TerminalBlockUpdatedEvent` for `terminal`, a result block for the answer).
 */
export function junieSession({ cwd, sessionId, start, turns, title, model = 'claude-sonnet-4-5' }) {
  const at = msClock(start);
  const out = [];
  let step = 0;
  const block = (agentEvent, seconds, state = 'COMPLETED') => out.push({ kind: 'SessionA2uxEvent', timestampMs: at(seconds), event: { state, agentEvent: { stepId: `step-${++step}`, ...agentEvent } } });
  for (const [t, turn] of turns.entries()) {
    if (turn.minutes) at(turn.minutes * 60);
    out.push({ kind: 'UserPromptEvent', timestampMs: at(5), requestId: `${sessionId}-req-${t}`, prompt: turn.prompt, presentablePrompt: turn.prompt, delivery: 'Delivered' });
    out.push({ kind: 'SessionA2uxEvent', timestampMs: at(1), event: { state: 'IN_PROGRESS', agentEvent: { kind: 'LlmResponseMetadataEvent', modelUsage: [{ model, inputTokens: 9000, outputTokens: 300 }] } } });
    for (const s of turn.steps) {
      if ('text' in s) block({ kind: 'ResultBlockUpdatedEvent', result: `<!-- ANSWER -->${s.text}`, changes: [] }, 12);
      else if (s.tool === 'view') block({ kind: 'ViewFilesBlockUpdatedEvent', status: 'COMPLETED', files: [{ relativePath: s.input.path, ...(s.input.lines ? { lineFrom: s.input.lines[0], lineTo: s.input.lines[1] } : {}) }] }, 4);
      else if (s.tool === 'change') block({ kind: 'FileChangesBlockUpdatedEvent', status: 'COMPLETED', changes: [{ beforeRelativePath: s.input.path, afterRelativePath: s.input.path, beforeContent: { kind: 'TextFileContent', text: s.input.before }, afterContent: { kind: 'TextFileContent', text: s.input.after } }] }, 6);
      else block({ kind: 'TerminalBlockUpdatedEvent', status: s.isError ? 'FAILED' : 'COMPLETED', command: s.input.command, output: s.result }, 5);
    }
  }
  out.push({ kind: 'SessionTitleSetEvent', timestampMs: at(1), name: title });
  const index = { sessionId, createdAt: Date.parse(start), updatedAt: at(0), projectDir: cwd, taskName: title, status: 'Done' };
  return { events: jsonl(out), index: JSON.stringify(index) };
}

/**
 * An OpenHands conversation folder: `base_state.json` and one file per event under `events/` (the file editor's and the
 * terminal's calls as `ActionEvent`s, their results as `ObservationEvent`s), by relative path.
 */
export function openHandsConversation({ cwd, conversationId, start, turns, model = 'litellm_proxy/claude-sonnet-4-5-20250929' }) {
  let t = Date.parse(start);
  const next = hexIds(conversationId);
  // Python's local isoformat(), without a zone
  const stamp = (seconds = 7) => new Date((t += seconds * 1000)).toISOString().replace('Z', '000');
  const id = conversationId.replace(/^(.{8})(.{4})(.{4})(.{4})(.{12})$/, '$1-$2-$3-$4-$5');
  const files = { 'base_state.json': JSON.stringify({ id, agent: { kind: 'Agent', llm: { model } }, workspace: { kind: 'LocalWorkspace', working_dir: cwd }, execution_status: 'finished' }) };
  let n = 0;
  const event = (body, seconds) => {
    const eventId = next();
    const uuid = `${eventId.slice(0, 8)}-${eventId.slice(8, 12)}-4${eventId.slice(13, 16)}-8${eventId.slice(17, 20)}-${eventId.slice(20, 32)}`;
    files[`events/event-${String(n++).padStart(5, '0')}-${uuid}.json`] = JSON.stringify({ id: uuid, timestamp: stamp(seconds), ...body });
  };
  const text = (s) => [{ type: 'text', text: s }];
  for (const [i, turn] of turns.entries()) {
    if (turn.minutes) stamp(turn.minutes * 60);
    event({ kind: 'MessageEvent', source: 'user', llm_message: { role: 'user', content: text(turn.prompt) }, activated_skills: [], extended_content: [] }, 5);
    for (const [s, step] of turn.steps.entries()) {
      if ('text' in step) {
        event({ kind: 'MessageEvent', source: 'agent', llm_message: { role: 'assistant', content: text(step.text) }, activated_skills: [], extended_content: [] }, 12);
        continue;
      }
      const callId = `toolu_${i}${s}`;
      event({ kind: 'ActionEvent', source: 'agent', thought: [], tool_name: step.tool, tool_call_id: callId, tool_call: { id: callId, name: step.tool, arguments: JSON.stringify(step.input) },
        llm_response_id: `resp-${i}-${s}`, action: { kind: step.tool === 'terminal' ? 'TerminalAction' : 'FileEditorAction', ...step.input } }, 4);
      event({ kind: 'ObservationEvent', source: 'environment', tool_name: step.tool, tool_call_id: callId, action_id: 'x',
        observation: { kind: step.tool === 'terminal' ? 'TerminalObservation' : 'FileEditorObservation', content: text(step.result), is_error: step.isError === true } }, 3);
    }
  }
  return files;
}
