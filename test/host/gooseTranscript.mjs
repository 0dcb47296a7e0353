// Builder for an invented Goose session as Goose before 1.10 wrote it (`<data>/goose/sessions/<id>.jsonl`: its
// metadata line, then one message per line, times in Unix seconds), for the `npm start` sample. Turns and steps as
// in cliTranscripts.mjs, a step's tool a Goose tool name (`developer__text_editor`, `developer__shell`).
// Output is deterministic for the same input.
import { clock, ids } from './cliTranscripts.mjs';

export function gooseLegacySession({ cwd, sessionId, start, turns, title }) {
  const id = ids(sessionId);
  const at = clock(start);
  const messages = [];
  const push = (role, seconds, content) =>
    messages.push({ id: `msg_${id.hex(16)}`, role, created: Math.floor(Date.parse(at(seconds)) / 1000), content, metadata: { userVisible: true, agentVisible: true } });
  for (const turn of turns) {
    if (turn.minutes) at(turn.minutes * 60);
    push('user', 5, [{ type: 'text', text: turn.prompt }]);
    for (const step of turn.steps) {
      if ('text' in step) {
        push('assistant', 12, [{ type: 'text', text: step.text }]);
        continue;
      }
      const callId = `toolu_${id.hex(24)}`;
      push('assistant', 6, [{ type: 'toolRequest', id: callId, toolCall: { status: 'success', value: { name: step.tool, arguments: step.input } } }]);
      const result = step.isError ? { status: 'error', error: step.result } : { status: 'success', value: [{ type: 'text', text: step.result }] };
      push('user', 2, [{ type: 'toolResponse', id: callId, toolResult: result }]);
    }
  }
  const metadata = { working_dir: cwd, description: title, schedule_id: null, message_count: messages.length, total_tokens: null };
  return [metadata, ...messages].map((r) => JSON.stringify(r)).join('\n') + '\n';
}
