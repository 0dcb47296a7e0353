import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Message } from '../../src/core/model';
import { ROLE_LABEL_RE, isRoleLabelWord, lineLabel, renderVerbatim } from '../../src/core/render';

function message(kind: Message['kind'], text: string, extra: Partial<Message> = {}): Message {
  return { kind, role: kind === 'reply' ? 'assistant' : 'user', text, toolCalls: [], toolResults: [], line: 1, lineEnd: 1, offset: 0, ...extra };
}

// One exchange with every kind of line the rendering writes, each label once.
const verbatim = renderVerbatim([
  message('prompt', 'Why does the user table lock?'),
  message('reply', 'Looking at the result.', { toolCalls: [{ name: 'Read', input: { file_path: 'src/db.ts' } }] }),
  message('tool-results', '', { toolResults: [{ text: 'ok', isError: false }, { text: 'boom', isError: true }, { text: '', isError: false }] }),
  message('context', 'Summary of the earlier conversation.'),
]);

test('every line the rendering opens carries a label the readers recognise, with its role', () => {
  const roles = verbatim.split('\n').filter(Boolean).map((line) => lineLabel(line)?.role);
  assert.deepEqual(roles, ['user', 'assistant', 'tool', 'result', 'error', 'result', 'context']);
  assert.equal(lineLabel('Users: are not a label'), undefined);
  assert.equal(lineLabel('a line [tool] inside'), undefined);
});

test('the labels come out whole and nothing else does', () => {
  const bare = verbatim.replace(ROLE_LABEL_RE, '');
  assert.doesNotMatch(bare, /^(User:|Assistant:|\[(tool|result|error|context)\])/m);
  for (const said of ['Why does the user table lock?', 'Looking at the result.', 'Read src/db.ts', 'boom', 'Summary of the earlier conversation.']) {
    assert.ok(bare.includes(said), said);
  }
});

test('a label word is one only where the rendering put it: "user" and "result" in what was said are words', () => {
  const at = (word: string, from = 0) => {
    const i = verbatim.indexOf(word, from);
    return isRoleLabelWord(verbatim, i, i + word.length);
  };
  assert.equal(at('User'), true);
  assert.equal(at('Assistant'), true);
  assert.equal(at('tool'), true);
  assert.equal(at('context'), true);
  assert.equal(at('user'), false);
  assert.equal(at('result', verbatim.indexOf('Looking')), false);
  assert.equal(at('result', verbatim.indexOf('[result]')), true);
});

test("an error's retry loop is one line each, counted, so the error that ended it fits in the output kept", () => {
  // as aider prints a provider that keeps failing: the same two lines with other numbers, then what went wrong
  const loop = Array.from({ length: 12 }, (_, i) => `litellm.APIError: Your request was blocked.\nRetrying in ${(0.2 * 2 ** i).toFixed(1)} seconds...`);
  const output = [...loop, "litellm.APIConnectionError: Error parsing chunk: Expecting value: line 1 column 1 (char 0)", 'Received chunk: <!DOCTYPE html>'].join('\n');
  const rendered = renderVerbatim([message('prompt', 'Crea una función hello world'), message('tool-results', '', { toolResults: [{ text: output, isError: true }] })]);
  assert.equal(
    rendered,
    'User: Crea una función hello world\n\n[error] litellm.APIError: Your request was blocked. [×12]\nRetrying in 0.2 seconds... [×12]\n' +
      'litellm.APIConnectionError: Error parsing chunk: Expecting value: line 1 column 1 (char 0)\nReceived chunk: <!DOCTYPE html>',
  );
});

test("a tool's result keeps its repeated lines, and an error keeps lines without a letter (a file's numbered blank lines)", () => {
  const lines = ['   140→', '   141→    print()', '   142→', '   143→    print()', '   144→'].join('\n');
  const rendered = renderVerbatim([message('tool-results', '', { toolResults: [{ text: lines, isError: false }, { text: lines, isError: true }] })]);
  // (the output is trimmed first, as every output is)
  assert.equal(rendered, `[result] ${lines.trim()}\n[error] ${['140→', '   141→    print() [×2]', '   142→', '   144→'].join('\n')}`);
});

test('a message that renders to nothing leaves no blank paragraph; a tool output keeps its text before its results', () => {
  const rendered = renderVerbatim([
    message('prompt', 'Run it.'),
    message('reply', '   '),
    message('tool-results', ''),
    message('tool-results', ' exit 0 ', { toolResults: [{ text: 'done', isError: false }, { text: '', isError: false }] }),
    message('reply', '', { toolCalls: [{ name: 'Bash', input: { command: 'ls' } }] }),
  ]);
  assert.equal(rendered, 'User: Run it.\n\nexit 0\n[result] done\n[result]\n\n[tool] Bash ls');
});
