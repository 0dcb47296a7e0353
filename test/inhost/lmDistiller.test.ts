import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { NEVER_CANCELLED } from '../../src/core/cancellation';
import type { DistillInput } from '../../src/core/distill/distiller';
import { LmDistiller } from '../../src/host/lmDistiller';
import { PLANTED, PLANTED_IN_CONTEXT } from '../unit/secrets';

// No chat model can be installed here (no Copilot, no network), so the model is a scripted
// vscode.LanguageModelChat; everything around it — messages, cancellation tokens, LanguageModelError,
// the prompt file, redaction and validation — is the real host and core code.

const GOOD = JSON.stringify({
  exchange_core: 'Raised poolTimeoutMs in src/db.ts.',
  specific_context: 'poolTimeoutMs: 30000',
  room_assignments: [{ room_type: 'file', room_key: 'src/db.ts', room_label: 'db.ts', relevance: 0.9 }],
});

interface Seen {
  readonly texts: string[];
  readonly token: vscode.CancellationToken | undefined;
}

type Answer = string | Error | 'hang';

function scriptedChat(answer: (seen: Seen, i: number) => Answer): { chat: vscode.LanguageModelChat; seen: Seen[] } {
  const seen: Seen[] = [];
  const chat = {
    name: 'Scripted', id: 'scripted-1', vendor: 'test', family: 'scripted', version: '1', maxInputTokens: 100_000,
    countTokens: async () => 0,
    sendRequest: async (messages: vscode.LanguageModelChatMessage[], _o?: unknown, token?: vscode.CancellationToken) => {
      const texts = messages.map((m) => m.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join(''));
      const s = { texts, token };
      seen.push(s);
      const a = answer(s, seen.length - 1);
      if (a instanceof Error) throw a;
      if (a === 'hang') {
        await new Promise<void>((resolve) => token?.onCancellationRequested(() => resolve()));
        throw new vscode.CancellationError();
      }
      return { text: (async function* () { yield a.slice(0, 10); yield a.slice(10); })(), stream: (async function* () {})() };
    },
  } as unknown as vscode.LanguageModelChat;
  return { chat, seen };
}

function input(n: number, verbatim = `User: the pool times out\nAssistant: raised poolTimeoutMs: 30000 (exchange ${n})`): DistillInput {
  return { n, exchangeId: `e${n}`, agent: 'claude-code', project: '/home/dev/shop', plyStart: 1, plyEnd: 4, prompt: 'p', verbatim, filesTouched: [] };
}

describe('vscode.lm distiller in the extension host', () => {
  it('distills through the chat API with the shipped prompt, repairing one bad answer', async () => {
    const { chat, seen } = scriptedChat((_s, i) => (i === 0 ? 'not json' : GOOD));
    const d = new LmDistiller(chat);
    assert.equal(d.model, 'test/scripted-1');
    assert.equal(d.remote, true);
    const [out] = await d.distill([input(1)], NEVER_CANCELLED);
    assert.ok(out?.ok, JSON.stringify(out));
    assert.equal(out.value.specificContext, 'poolTimeoutMs: 30000');
    assert.equal(seen.length, 2);
    assert.match(seen[0]!.texts[0]!, /Exchange \(messages 1-4\):/);
    assert.deepEqual(seen[1]!.texts.slice(1, 2), ['not json']);
    assert.match(seen[1]!.texts[2]!, /could not be used/);
  });

  it('records a failure after a second bad answer, and stops on NoPermissions', async () => {
    const bad = scriptedChat(() => '{"exchange_core": ""}');
    const [f] = await new LmDistiller(bad.chat).distill([input(1)], NEVER_CANCELLED);
    assert.ok(f && !f.ok && /invalid answer after one repair/.test(f.error), JSON.stringify(f));

    const denied = scriptedChat(() => vscode.LanguageModelError.NoPermissions('user said no'));
    const outs = await new LmDistiller(denied.chat).distill([input(1), input(2), input(3), input(4)], NEVER_CANCELLED);
    assert.ok(outs.every((o) => !o.ok && /vscode-lm: /.test(o.error)), JSON.stringify(outs));
    assert.ok(denied.seen.length <= 2, `asked ${denied.seen.length} times after a refusal (concurrency 2)`);
  });

  it('cancellation reaches the chat request and ends the batch', async () => {
    const { chat, seen } = scriptedChat(() => 'hang');
    const token = { isCancellationRequested: false };
    setTimeout(() => (token.isCancellationRequested = true), 150);
    const outs = await new LmDistiller(chat).distill([input(1), input(2), input(3)], token);
    assert.deepEqual(outs, [], 'cancelled exchanges get no outcome: the stage keeps them pending');
    assert.equal(seen.length, 2, 'the third was never sent');
    assert.ok(seen.every((s) => s.token?.isCancellationRequested));
  });

  it('never hands a planted secret to the model', async () => {
    const { chat, seen } = scriptedChat(() => GOOD);
    const all = [...PLANTED, ...PLANTED_IN_CONTEXT];
    await new LmDistiller(chat).distill(all.map((p, i) => input(i + 1, `User: fix\n${p.line}\nAssistant: done`)), NEVER_CANCELLED);
    assert.equal(seen.length, all.length);
    for (const s of seen) for (const p of all) assert.ok(!s.texts.join('\n').includes(p.secret), `${p.kind} reached the model`);
  });
});
