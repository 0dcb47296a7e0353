import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ConversationMeta } from '../../src/core/model';
import type { SourceLine } from '../../src/core/sources/lines';
import { newMessage } from '../../src/core/sources/message';
import { sessionMeta } from '../../src/core/sources/sessionMeta';

const line = (n: number): SourceLine => ({ text: '{}', line: n, offset: n * 10, bytes: 10 });
const messages = [newMessage('prompt', line(3), 'why does the build fail', '2026-05-02T10:00:00Z')];
const ofFile = (file: string): string => `file:${file}`;

test('a log read from its start: the identity is its records\' session (else the file\'s) at its first line; what it does not say is left out', () => {
  const facts = { sessionId: 'S1', project: '/home/dev/app', model: 'm-1' };
  assert.deepEqual(sessionMeta('codex', { file: 'a.jsonl', lines: [line(1), line(3)] }, facts, ofFile, messages), {
    agent: 'codex',
    sessionId: 'S1',
    line: 1,
    isSubagent: false,
    project: '/home/dev/app',
    startedAt: '2026-05-02T10:00:00Z',
    model: 'm-1',
  });
  const bare = sessionMeta('qwen-code', { file: 'b.jsonl', lines: [line(4)] }, {}, ofFile, []);
  assert.deepEqual(bare, { agent: 'qwen-code', sessionId: 'file:b.jsonl', line: 4, isSubagent: false });
});

test('resumed mid-file: the head\'s identity, project, branch, start and model stand (the lines read now may say otherwise); a title the records give wins (a session renamed since)', () => {
  const resume: ConversationMeta = {
    agent: 'pi',
    sessionId: 'HEAD',
    line: 1,
    isSubagent: false,
    project: '/home/dev/app',
    gitBranch: 'main',
    title: 'old name',
    startedAt: '2026-05-01T08:00:00Z',
    model: 'm-1',
    parentSessionId: 'P',
  };
  const facts = { sessionId: 'OTHER', project: '/tmp/elsewhere', gitBranch: 'fix', startedAt: '2026-05-02T09:00:00Z', model: 'm-2', title: 'new name' };
  const meta = sessionMeta('pi', { file: 'c.jsonl', lines: [line(40)], resume }, facts, ofFile, messages);
  assert.deepEqual(meta, { ...resume, title: 'new name' });
  assert.equal(sessionMeta('pi', { file: 'c.jsonl', lines: [line(40)], resume }, { title: '' }, ofFile, messages).title, 'old name');
});
