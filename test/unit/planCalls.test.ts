import assert from 'node:assert/strict';
import { test } from 'node:test';
import { completedSteps } from '../../src/core/distill/agentPlan';
import { splitVerbatim } from '../../src/core/distill/verbatimParts';
import type { Conversation, Message, ToolCall } from '../../src/core/model';
import { planOf, stepsOfChecklist } from '../../src/core/planCalls';
import { renderVerbatim } from '../../src/core/render';
import { DEFAULT_SEGMENT_OPTIONS, segmentConversation } from '../../src/core/segment';
import type { ParseOutput, SourceAdapter } from '../../src/core/sources/adapter';
import { claudeCodeAdapter } from '../../src/core/sources/claudeCode';
import { kiloLegacyAdapter, rooCodeAdapter } from '../../src/core/sources/cline';
import { codexAdapter } from '../../src/core/sources/codex';
import { copilotAdapter } from '../../src/core/sources/copilot';
import { geminiAdapter } from '../../src/core/sources/gemini';
import { openCodeAdapter } from '../../src/core/sources/opencode';
import { qwenAdapter } from '../../src/core/sources/qwen';
import { parsesAsJson, splitLines } from '../../src/core/sources/lines';

// The agents' to-do lists (planCalls.ts): a checklist with every step whole, each update between the first and the
// last only by what it moved, and the tools' fixed acknowledgements left out.

const CLAUDE_ACK =
  'Todos have been modified successfully. Ensure that you continue to use the todo list to track your progress. Please proceed with the current tasks if applicable';
const LONG_STEP = `Convert the PNG icon to an .icns file with every size macOS asks for (${'16, 32, 64, 128, 256, 512 and 1024 pixels, '.repeat(6)}each at 1x and 2x)`;
const STEPS = ['Download the custom icon image', LONG_STEP, 'Move the app to the Applications folder'];

function message(kind: Message['kind'], text: string, extra: Partial<Message> = {}): Message {
  return { kind, role: kind === 'reply' ? 'assistant' : 'user', text, toolCalls: [], toolResults: [], line: 1, lineEnd: 1, offset: 0, ...extra };
}

/** Claude Code's TodoWrite with the first `done` steps completed and the next one in progress. */
function todoWrite(id: string, done: number): ToolCall {
  const status = (i: number) => (i < done ? 'completed' : i === done ? 'in_progress' : 'pending');
  return { id, name: 'TodoWrite', input: { todos: STEPS.map((content, i) => ({ content, status: status(i), activeForm: `Doing: ${content}` })) } };
}

function planExchange(): string {
  const calls = [0, 1, 2, 3].map((done) => todoWrite(`t${done}`, done));
  return renderVerbatim([
    message('prompt', 'make a Claude Code app with this icon'),
    ...calls.flatMap((call) => [
      message('reply', '', { toolCalls: [call, { id: `b${call.id}`, name: 'Bash', input: { command: `step ${call.id}` } }] }),
      message('tool-results', '', {
        toolResults: [
          { toolUseId: call.id, text: CLAUDE_ACK, isError: false },
          { toolUseId: `b${call.id}`, text: 'ok', isError: false },
        ],
      }),
    ]),
    message('reply', 'The app is in /Applications with the icon.'),
  ]);
}

test('a plan call is a checklist: every step whole, no JSON keys, no activeForm twin, no acknowledgement', () => {
  const verbatim = planExchange();
  const planLines = verbatim.split('\n').filter((l) => l.startsWith('[tool] TodoWrite'));
  assert.deepEqual(planLines, [
    `[tool] TodoWrite ▸ ${STEPS[0]} · ○ ${STEPS[1]} · ○ ${STEPS[2]}`,
    // between the first and the last, only what the update moved, beside the work that moved it
    `[tool] TodoWrite ✓ ${STEPS[0]} · ▸ ${STEPS[1]}`,
    `[tool] TodoWrite ✓ ${STEPS[1]} · ▸ ${STEPS[2]}`,
    // the last whole: where the plan ended
    `[tool] TodoWrite ✓ ${STEPS[0]} · ✓ ${STEPS[1]} · ✓ ${STEPS[2]}`,
  ]);
  assert.ok(LONG_STEP.length > 300);
  for (const noise of ['"todos"', 'activeForm', 'Doing:', 'in_progress', 'pending', 'more chars', 'Todos have been modified']) {
    assert.ok(!verbatim.includes(noise), noise);
  }
  // the other tool's result stays
  assert.equal(verbatim.split('\n').filter((l) => l === '[result] ok').length, 4);
});

test('one plan call is shown whole; a result that says more than the acknowledgement stays', () => {
  const verbatim = renderVerbatim([
    message('prompt', 'plan it'),
    message('reply', '', { toolCalls: [todoWrite('t1', 1)] }),
    message('tool-results', '', { toolResults: [{ toolUseId: 't1', text: `${CLAUDE_ACK}\n\nThe list has 3 items.`, isError: false }] }),
  ]);
  assert.match(verbatim, /^\[tool\] TodoWrite ✓ Download the custom icon image · ▸ Convert/mu);
  assert.match(verbatim, /^\[result\] Todos have been modified successfully\./mu);
  // the acknowledgement of another tool's call is that tool's output
  const other = renderVerbatim([
    message('prompt', 'echo it'),
    message('reply', '', { toolCalls: [todoWrite('t1', 1), { id: 'b1', name: 'Bash', input: { command: 'echo' } }] }),
    message('tool-results', '', { toolResults: [{ toolUseId: 'b1', text: CLAUDE_ACK, isError: false }] }),
  ]);
  assert.ok(other.includes(`[result] ${CLAUDE_ACK}`), other);
});

test('a plan tool input that is no list of steps is shown as before (its JSON): an unknown state, a read', () => {
  assert.equal(planOf({ name: 'TodoWrite', input: { todos: [{ content: 'a', status: 'blocked' }] } }), undefined);
  assert.equal(planOf({ name: 'manage_todo_list', input: { operation: 'read' } }), undefined);
  assert.equal(planOf({ name: 'update_plan', input: { metadata: { steps: [] } } }), undefined);
  assert.equal(planOf({ name: 'Bash', input: { todos: [{ content: 'a', status: 'pending' }] } }), undefined);
  const verbatim = renderVerbatim([message('reply', '', { toolCalls: [{ name: 'update_plan', input: { metadata: { steps: [] } } }] })]);
  assert.equal(verbatim, '[tool] update_plan {"metadata":{"steps":[]}}');
});

test('the distiller reads the steps marked done from the checklist, as it read them from the JSON', () => {
  assert.deepEqual(completedSteps(splitVerbatim(planExchange())), STEPS);
  const midway = renderVerbatim([message('prompt', 'x'), message('reply', '', { toolCalls: [todoWrite('t1', 0), todoWrite('t2', 2)] })]);
  assert.deepEqual(completedSteps(splitVerbatim(midway)), STEPS.slice(0, 2));
  assert.deepEqual(
    stepsOfChecklist('Checks ran. — ✓ Run the linter · ▸ Fix · the dots · ○ Ship'),
    [
      { text: 'Run the linter', state: 'done' },
      { text: 'Fix · the dots', state: 'active' },
      { text: 'Ship', state: 'open' },
    ],
  );
});

// Each agent's reader hands its plan tool to the rendering as a call with its input and its acknowledgement as
// the call's result.

function exchangesOf(adapter: SourceAdapter, file: string, text: string): string[] {
  const lines = splitLines(Buffer.from(text), 0, 1, { holdBackPartial: adapter.lineFormat === 'jsonl', isComplete: parsesAsJson }).lines;
  const out: ParseOutput = adapter.parse({ file, lines });
  return out.conversations.flatMap((c: Conversation) => segmentConversation(c, DEFAULT_SEGMENT_OPTIONS).exchanges.map((e) => e.verbatim));
}

test('Claude Code: TodoWrite', () => {
  const base = { sessionId: 's-todo', cwd: '/home/dev/icons', version: '2.1.6', timestamp: '2026-01-02T23:07:48.000Z' };
  let n = 0;
  const rec = (type: string, message: object) => JSON.stringify({ ...base, type, uuid: `u${++n}`, message });
  const todos = (done: number) => STEPS.map((content, i) => ({ content, status: i < done ? 'completed' : 'pending', activeForm: `Doing ${i}` }));
  const text = [
    rec('user', { role: 'user', content: 'make a Claude Code app with this icon' }),
    rec('assistant', { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'TodoWrite', input: { todos: todos(0) } }] }),
    rec('user', { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: CLAUDE_ACK }] }),
    rec('assistant', { role: 'assistant', content: [{ type: 'tool_use', id: 't2', name: 'TodoWrite', input: { todos: todos(3) } }] }),
    rec('user', { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't2', content: CLAUDE_ACK }] }),
    rec('assistant', { role: 'assistant', content: [{ type: 'text', text: 'The app is in /Applications with the icon.' }] }),
  ].join('\n');
  const [verbatim] = exchangesOf(claudeCodeAdapter, '/home/dev/.claude/projects/-home-dev-icons/s-todo.jsonl', `${text}\n`);
  assert.ok(verbatim!.includes(`[tool] TodoWrite ○ ${STEPS[0]} · ○ ${STEPS[1]}`), verbatim);
  assert.ok(verbatim!.includes(`[tool] TodoWrite ✓ ${STEPS[0]} · ✓ ${STEPS[1]} · ✓ ${STEPS[2]}`), verbatim);
  assert.ok(!verbatim!.includes('Todos have been'), verbatim);
});

test("Codex: update_plan with the agent's explanation", () => {
  const item = (payload: object) => JSON.stringify({ timestamp: '2025-11-27T03:40:55.000Z', type: 'response_item', payload });
  const plan = (done: number) => ({ plan: STEPS.slice(0, 2).map((step, i) => ({ status: i < done ? 'completed' : i === done ? 'in_progress' : 'pending', step })) });
  const text = [
    JSON.stringify({ timestamp: '2025-11-27T03:40:50.000Z', type: 'session_meta', payload: { id: 'c0de', cwd: '/home/dev/icons', originator: 'codex_cli_rs', cli_version: '0.63.0' } }),
    item({ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'run the health checks of this project' }] }),
    item({ type: 'function_call', name: 'update_plan', arguments: JSON.stringify(plan(0)), call_id: 'p1' }),
    item({ type: 'function_call_output', call_id: 'p1', output: 'Plan updated' }),
    item({ type: 'function_call', name: 'update_plan', arguments: JSON.stringify({ explanation: 'Icon fetched.', ...plan(2) }), call_id: 'p2' }),
    item({ type: 'function_call_output', call_id: 'p2', output: 'Plan updated' }),
    item({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Both steps are done; the icon is in place.' }] }),
  ].join('\n');
  const [verbatim] = exchangesOf(codexAdapter, '/home/dev/.codex/sessions/2025/11/27/rollout-2025-11-27T03-40-50-c0de.jsonl', `${text}\n`);
  assert.ok(verbatim!.includes(`[tool] update_plan ▸ ${STEPS[0]} · ○ ${STEPS[1]}`), verbatim);
  assert.ok(verbatim!.includes(`[tool] update_plan Icon fetched. — ✓ ${STEPS[0]} · ✓ ${STEPS[1]}`), verbatim);
  assert.ok(!verbatim!.includes('Plan updated'), verbatim);
});

test('Gemini CLI: write_todos, whose acknowledgement repeats the list', () => {
  const call = (id: string, done: number) => {
    const todos = STEPS.map((description, i) => ({ description, status: i < done ? 'completed' : i === done ? 'in_progress' : 'pending' }));
    const listed = todos.map((t, i) => `${i + 1}. [${t.status}] ${t.description}`).join('\n');
    return {
      id,
      name: 'write_todos',
      args: { todos },
      result: [{ functionResponse: { id, name: 'write_todos', response: { output: `Successfully updated the todo list. The current list is now:\n${listed}` } } }],
      status: 'success',
      timestamp: '2025-12-24T06:34:09.602Z',
    };
  };
  const session = {
    sessionId: '6e0d0a2b-7c3d-4e8f-9a0b-1c2d3e4f5a6b',
    projectHash: 'ab',
    startTime: '2025-12-24T06:30:00.000Z',
    lastUpdated: '2025-12-24T06:40:00.000Z',
    messages: [
      { id: 'm1', timestamp: '2025-12-24T06:30:05.000Z', type: 'user', content: 'make a Claude Code app with this icon' },
      { id: 'm2', timestamp: '2025-12-24T06:34:09.000Z', type: 'gemini', content: '', toolCalls: [call('w1', 0), call('w2', 3)] },
      { id: 'm3', timestamp: '2025-12-24T06:35:00.000Z', type: 'gemini', content: 'The app is in /Applications with the icon.' },
    ],
  };
  const [verbatim] = exchangesOf(geminiAdapter, '/home/dev/.gemini/tmp/ab/chats/session-2025-12-24T06-30-6e0d0a2b.json', JSON.stringify(session, null, 2));
  assert.ok(verbatim!.includes(`[tool] write_todos ▸ ${STEPS[0]} · ○ ${STEPS[1]}`), verbatim);
  assert.ok(verbatim!.includes(`[tool] write_todos ✓ ${STEPS[0]} · ✓ ${STEPS[1]} · ✓ ${STEPS[2]}`), verbatim);
  assert.ok(!verbatim!.includes('Successfully updated the todo list'), verbatim);
});

test("Copilot Chat: manage_todo_list's write, its title the step", () => {
  const todoList = (done: number) => STEPS.map((title, id) => ({ id: id + 1, title, description: `why ${id}`, status: id < done ? 'completed' : id === done ? 'in-progress' : 'not-started' }));
  const request = {
    requestId: 'request_t1',
    timestamp: 1762077600000,
    message: { text: 'make a Claude Code app with this icon' },
    response: [{ value: 'The app is in /Applications with the icon.' }],
    result: {
      metadata: {
        toolCallRounds: [
          { response: '', toolCalls: [{ name: 'manage_todo_list', arguments: JSON.stringify({ operation: 'write', todoList: todoList(1) }), id: 'm1' }] },
          { response: '', toolCalls: [{ name: 'manage_todo_list', arguments: JSON.stringify({ operation: 'write', todoList: todoList(3) }), id: 'm2' }] },
        ],
        toolCallResults: {
          m1: { content: [{ value: 'Successfully wrote todo list' }] },
          m2: { content: [{ value: 'Successfully wrote todo list\n\nWarning: Did you mean to update so many todos at the same time? Consider working on them one by one.' }] },
        },
      },
    },
  };
  const [verbatim] = exchangesOf(copilotAdapter, '/home/dev/export.json', JSON.stringify({ requesterUsername: 'dev', responderUsername: 'GitHub Copilot', requests: [request] }, null, 2));
  assert.ok(verbatim!.includes(`[tool] manage_todo_list ✓ ${STEPS[0]} · ▸ ${STEPS[1]} · ○ ${STEPS[2]}`), verbatim);
  assert.ok(verbatim!.includes(`[tool] manage_todo_list ✓ ${STEPS[0]} · ✓ ${STEPS[1]} · ✓ ${STEPS[2]}`), verbatim);
  assert.ok(!verbatim!.includes('why 0') && !verbatim!.includes('not-started'), verbatim);
  // the plain acknowledgement is left out; the one with a warning says more and stays
  assert.equal(verbatim!.split('Successfully wrote todo list').length - 1, 1, verbatim);
  assert.match(verbatim!, /\[result\] Successfully wrote todo list\n\nWarning: Did you mean/u);
});

test('Qwen Code: todo_write', () => {
  const base = { sessionId: 'q-todo', cwd: '/home/dev/icons', version: '0.15.6', gitBranch: 'main' };
  let n = 0;
  const rec = (type: string, message: object, extra: object = {}) =>
    JSON.stringify({ uuid: `q${++n}`, parentUuid: n > 1 ? `q${n - 1}` : null, timestamp: `2026-04-02T14:00:0${n}.000Z`, type, ...base, message, ...extra });
  const todos = (done: number) => STEPS.map((content, i) => ({ id: String(i + 1), content, status: i < done ? 'completed' : 'pending' }));
  const call = (id: string, done: number) => rec('assistant', { role: 'model', parts: [{ functionCall: { id, name: 'todo_write', args: { todos: todos(done) } } }] });
  const result = (id: string) =>
    rec('tool_result', { role: 'user', parts: [{ functionResponse: { id, name: 'todo_write', response: { output: 'ok' } } }] }, { toolCallResult: { callId: id, status: 'success' } });
  const text = [
    rec('user', { role: 'user', parts: [{ text: 'make a Claude Code app with this icon' }] }),
    call('c1', 0),
    result('c1'),
    call('c2', 3),
    result('c2'),
    rec('assistant', { role: 'model', parts: [{ text: 'The app is in /Applications with the icon.' }] }),
  ].join('\n');
  const [verbatim] = exchangesOf(qwenAdapter, '/home/dev/.qwen/projects/-home-dev-icons/chats/q-todo.jsonl', `${text}\n`);
  assert.ok(verbatim!.includes(`[tool] todo_write ○ ${STEPS[0]} · ○ ${STEPS[1]} · ○ ${STEPS[2]}`), verbatim);
  assert.ok(verbatim!.includes(`[tool] todo_write ✓ ${STEPS[0]} · ✓ ${STEPS[1]} · ✓ ${STEPS[2]}`), verbatim);
  // Cursor's todo_write that merges a few steps into the list is no whole list: shown as before
  assert.equal(planOf({ name: 'todo_write', input: { merge: true, todos: [{ id: '2', content: 'x', status: 'completed' }] } }), undefined);
});

test('OpenCode: todowrite', () => {
  const todos = (done: number) => STEPS.map((content, i) => ({ id: String(i + 1), content, status: i < done ? 'completed' : i === done ? 'in_progress' : 'pending', priority: 'high' }));
  const part = (id: string, done: number) => ({
    part: { id: `prt_${id}`, sessionID: 'ses_todo', messageID: 'msg_2', type: 'tool', callID: id, tool: 'todowrite', state: { status: 'completed', input: { todos: todos(done) }, output: JSON.stringify(todos(done), null, 2) } },
  });
  const records = [
    { session: { id: 'ses_todo', directory: '/home/dev/icons', title: 'icons', time: { created: 1762246800000 } } },
    { message: { id: 'msg_1', sessionID: 'ses_todo', role: 'user', time: { created: 1762246800000 } } },
    { part: { id: 'prt_1', sessionID: 'ses_todo', messageID: 'msg_1', type: 'text', text: 'make a Claude Code app with this icon' } },
    { message: { id: 'msg_2', sessionID: 'ses_todo', role: 'assistant', time: { created: 1762246801000 } } },
    part('t1', 0),
    part('t2', 3),
    { part: { id: 'prt_9', sessionID: 'ses_todo', messageID: 'msg_2', type: 'text', text: 'The app is in /Applications with the icon.' } },
  ];
  const [verbatim] = exchangesOf(openCodeAdapter, '/home/dev/.local/share/opencode/storage/session/p/ses_todo.json', `${records.map((r) => JSON.stringify(r)).join('\n')}\n`);
  assert.ok(verbatim!.includes(`[tool] todowrite ▸ ${STEPS[0]} · ○ ${STEPS[1]} · ○ ${STEPS[2]}`), verbatim);
  assert.ok(verbatim!.includes(`[tool] todowrite ✓ ${STEPS[0]} · ✓ ${STEPS[1]} · ✓ ${STEPS[2]}`), verbatim);
  // its answer repeats the list as JSON, a form no transcript here shows: it stays
  for (const line of verbatim!.split('\n').filter((l) => l.startsWith('[tool] todowrite'))) assert.ok(!line.includes('priority'), line);
});

// Roo Code and Kilo Code (its fork) keep the list in one markdown string, a step a line (`[ ]`, `[x]`, `[-]`): as
// their native tool calls store it (api_conversation_history.json: a `tool_use` with `input.todos`, its
// `tool_result` the acknowledgement; UpdateTodoListTool.ts in RooCodeInc/Roo-Code and Kilo-Org/kilocode-legacy).

const ROO_ACK = 'Todo list updated successfully.';

function rooTask(todoLists: string[], extra: { results?: string[] } = {}): string {
  let ts = 1762081200000;
  const at = () => (ts += 60_000);
  const messages: object[] = [
    {
      role: 'user',
      content: [
        { type: 'text', text: '<task>\nmake a Claude Code app with this icon\n</task>' },
        { type: 'text', text: '<environment_details>\n# Current Working Directory (/home/dev/icons) Files\nicon.png\n</environment_details>' },
      ],
      ts: at(),
    },
  ];
  todoLists.forEach((todos, i) => {
    messages.push({ role: 'assistant', content: [{ type: 'tool_use', id: `call_u${i}`, name: 'update_todo_list', input: { todos } }], ts: at() });
    messages.push({
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: `call_u${i}`, content: extra.results?.[i] ?? ROO_ACK },
        { type: 'text', text: '<environment_details>\n# Current Time\n2025-11-02 11:0' + i + '\n</environment_details>' },
      ],
      ts: at(),
    });
    messages.push({ role: 'assistant', content: [{ type: 'tool_use', id: `call_e${i}`, name: 'execute_command', input: { command: `step ${i}` } }], ts: at() });
    messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: `call_e${i}`, content: 'ok' }], ts: at() });
  });
  messages.push({ role: 'assistant', content: [{ type: 'text', text: 'The app is in /Applications with the icon.' }], ts: at() });
  return JSON.stringify(messages);
}

test("Roo Code: update_todo_list, the list in one markdown string, a step a line", () => {
  const text = rooTask([
    `[-] ${STEPS[0]}\n[ ] ${STEPS[1]}\n[ ] ${STEPS[2]}`,
    // a leading dash and `[~]` are Roo's too; a line that is no step is passed over, as Roo does
    `Progress:\n- [x] ${STEPS[0]}\n- [~] ${STEPS[1]}\n- [ ] ${STEPS[2]}`,
    `[x] ${STEPS[0]}\n[X] ${STEPS[1]}\n[x] ${STEPS[2]}`,
  ]);
  const file = '/home/dev/.config/Code/User/globalStorage/rooveterinaryinc.roo-cline/tasks/5e2b8c1d-4f3a-4b6e-9c7d-1a2b3c4d5e6f/api_conversation_history.json';
  const [verbatim] = exchangesOf(rooCodeAdapter, file, text);
  assert.deepEqual(
    verbatim!.split('\n').filter((l) => l.startsWith('[tool] update_todo_list')),
    [
      `[tool] update_todo_list ▸ ${STEPS[0]} · ○ ${STEPS[1]} · ○ ${STEPS[2]}`,
      `[tool] update_todo_list ✓ ${STEPS[0]} · ▸ ${STEPS[1]}`,
      `[tool] update_todo_list ✓ ${STEPS[0]} · ✓ ${STEPS[1]} · ✓ ${STEPS[2]}`,
    ],
    verbatim,
  );
  for (const noise of ['"todos"', '[x]', '[-]', 'Progress:', ROO_ACK, 'more chars']) assert.ok(!verbatim!.includes(noise), noise);
  assert.equal(verbatim!.split('\n').filter((l) => l === '[result] ok').length, 3, "the other tool's results stay");
  assert.deepEqual(completedSteps(splitVerbatim(verbatim!)), STEPS, 'the distiller reads the steps done');
});

test('Roo Code: a list the person edited is said in the answer, which stays; a string with no step is shown as before', () => {
  const edited = `User edits todo:\n\n[x] ${STEPS[0]}\n[-] ${STEPS[2]}`;
  const [verbatim] = exchangesOf(
    rooCodeAdapter,
    '/home/dev/.config/Code/User/globalStorage/rooveterinaryinc.roo-cline/tasks/5e2b8c1d-4f3a-4b6e-9c7d-1a2b3c4d5e6f/api_conversation_history.json',
    rooTask([`[-] ${STEPS[0]}\n[ ] ${STEPS[2]}`, 'nothing to do'], { results: [edited, ROO_ACK] }),
  );
  assert.ok(verbatim!.includes(`[result] ${edited}`), verbatim);
  assert.ok(verbatim!.includes('[tool] update_todo_list {"todos":"nothing to do"}'), verbatim);
  // the acknowledgement of a call shown as before is no plan call's: it stays
  assert.ok(verbatim!.includes(`[result] ${ROO_ACK}`), verbatim);
  assert.equal(planOf({ name: 'update_todo_list', input: { todos: [{ content: 'a', status: 'pending' }] } }), undefined, 'a list, not a string: not Roo\'s');
  assert.equal(planOf({ name: 'TodoWrite', input: { todos: '[ ] a' } }), undefined, "a string list is Roo's tool's only");
});

test('Kilo Code (the legacy extension): update_todo_list, as Roo Code', () => {
  const file = '/home/dev/.config/Code/User/globalStorage/kilocode.kilo-code/tasks/3c5e7a9b-1d2f-4a6b-8c0e-2f4a6b8c0d1f/api_conversation_history.json';
  const [verbatim] = exchangesOf(kiloLegacyAdapter, file, rooTask([`[-] ${STEPS[0]}\n[ ] ${STEPS[1]}`, `[x] ${STEPS[0]}\n[x] ${STEPS[1]}`]));
  assert.ok(verbatim!.includes(`[tool] update_todo_list ▸ ${STEPS[0]} · ○ ${STEPS[1]}`), verbatim);
  assert.ok(verbatim!.includes(`[tool] update_todo_list ✓ ${STEPS[0]} · ✓ ${STEPS[1]}`), verbatim);
  assert.ok(!verbatim!.includes(ROO_ACK), verbatim);
});

// Copilot Chat's `read` writes nothing: its answer is the list as it stands (handleRead, manageTodoListTool.ts in
// microsoft/vscode): the call is shown as that list, and the answer, which the call now says, left out.

function copilotRequest(id: string, prompt: string, calls: Array<{ id: string; args: object; answer: string }>): object {
  return {
    requestId: `request_${id}`,
    timestamp: 1762077600000,
    message: { text: prompt },
    response: [{ value: 'Two of the three steps are done.' }],
    result: {
      metadata: {
        toolCallRounds: calls.map((c) => ({ response: '', toolCalls: [{ name: 'manage_todo_list', arguments: JSON.stringify(c.args), id: c.id }] })),
        toolCallResults: Object.fromEntries(calls.map((c) => [c.id, { content: [{ value: c.answer }] }])),
      },
    },
  };
}

test("Copilot Chat: manage_todo_list's read, shown as the list its answer holds", () => {
  const todoList = (done: number) => STEPS.map((title, id) => ({ id: id + 1, title, description: `why ${id}`, status: id < done ? 'completed' : id === done ? 'in-progress' : 'not-started' }));
  const listed = `# Todo List\n\n- [x] ${STEPS[0]}\n  - why 0\n- [x] ${STEPS[1]}\n  - why 1\n- [-] ${STEPS[2]}`;
  const requests = [
    copilotRequest('t1', 'make a Claude Code app with this icon', [{ id: 'w1', args: { operation: 'write', todoList: todoList(2) }, answer: 'Successfully wrote todo list' }]),
    copilotRequest('t2', 'what is left?', [{ id: 'r1', args: { operation: 'read' }, answer: listed }]),
    copilotRequest('t3', 'and now?', [
      { id: 'r2', args: { operation: 'read' }, answer: 'No todo list found.' },
      // a description over two lines: no longer the form known word for word
      { id: 'r3', args: { operation: 'read' }, answer: `# Todo List\n\n- [ ] ${STEPS[0]}\n  - why\nand why` },
    ]),
  ];
  const [, read, others] = exchangesOf(copilotAdapter, '/home/dev/export.json', JSON.stringify({ requesterUsername: 'dev', responderUsername: 'GitHub Copilot', requests }, null, 2));
  assert.deepEqual(read!.split('\n').filter((l) => l.startsWith('[tool]') || l.startsWith('[result]')), [`[tool] manage_todo_list ✓ ${STEPS[0]} · ✓ ${STEPS[1]} · ▸ ${STEPS[2]}`], read);
  assert.ok(!read!.includes('# Todo List') && !read!.includes('why 0'), read);
  assert.deepEqual(completedSteps(splitVerbatim(read!)), STEPS.slice(0, 2));
  // an empty list, or an answer in another form, is shown as before
  assert.deepEqual(others!.split('\n').filter((l) => l.startsWith('[tool]') || l.startsWith('[result]')), [
    '[tool] manage_todo_list {"operation":"read"}',
    '[tool] manage_todo_list {"operation":"read"}',
    '[result] No todo list found.',
    '[result] # Todo List',
  ], others);
});
