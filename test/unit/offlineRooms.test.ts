import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { DistillInput } from '../../src/core/distill/distiller';
import { distillOffline } from '../../src/core/distill/offline';
import { RoomRegistry } from '../../src/core/distill/rooms';
import { englishRarity } from '../../src/core/distill/wordRarity';
import { distillInput } from './distillHelpers';

// The offline distiller's concept rooms on small exchanges written for each case seen on the real corpus.

function exchange(prompt: string, ...replies: string[]): DistillInput {
  return distillInput(prompt, replies.map((r) => `Assistant: ${r}`).join('\n\n'), { plyEnd: 1 + replies.length });
}

function concepts(input: DistillInput): string[] {
  return distillOffline(input, englishRarity())
    .rooms.filter((r) => r.type === 'concept')
    .map((r) => r.label);
}

test('contractions are function words: no "ve added", "ll update" or "doesn work" room', () => {
  const labels = concepts(
    exchange(
      "The checkout form doesn't work after the refactor. Can you fix the checkout form?",
      "I've added a guard to the checkout form. I've added the missing test too, and we'll update the checkout form docs.",
      "I'll update the changelog. The checkout form doesn't crash any more; I've added a note.",
    ),
  );
  assert.ok(labels.includes('checkout form'), JSON.stringify(labels));
  for (const l of labels) assert.doesNotMatch(l, /^(?:ve|ll|re|doesn|don|t|s)\b|\b(?:ve|ll|doesn)$/iu, JSON.stringify(labels));
});

test("a possessive names its owner and ends the phrase: Google's latest model gives no \"Google latest\"", () => {
  const labels = concepts(
    exchange("What is Google's latest Gemini model? Check Google's release notes.", "Google's latest Gemini model is listed in Google's release notes."),
  );
  for (const l of labels) assert.doesNotMatch(l, /latest|'s|’s/iu, JSON.stringify(labels));
  assert.ok(labels.includes('Gemini model'), JSON.stringify(labels));
});

test('adverbs and superlatives never make a phrase: "googles latest", "loads successfully"', () => {
  const labels = concepts(
    exchange(
      'use serpapi and run search for googles latest Gemini model',
      'The font loader loads successfully now. The font loader loads successfully and the newest Gemini model is listed.',
    ),
  );
  for (const l of labels) assert.doesNotMatch(l, /latest|newest|successfully/iu, JSON.stringify(labels));
  assert.ok(labels.some((l) => /font loader/i.test(l)), JSON.stringify(labels));

  const rarity = englishRarity();
  for (const w of ['latest', 'newest', 'biggest', 'easiest', 'successfully', 'correctly', 'automatically', 'easily']) {
    assert.ok(rarity.isAdverbOrSuperlative(w), w);
  }
  for (const w of ['family', 'forest', 'interest', 'request', 'test', 'pytest', 'assembly', 'supply', 'apply', 'reply', 'only', 'early']) {
    assert.ok(!rarity.isAdverbOrSuperlative(w), w);
  }
});

test('generic words of other languages: Ukrainian function words and stopwords-iso lists make no room', () => {
  const uk = concepts(
    exchange(
      'Бот відповідає «з цього нічого не зробити», бо зараз модель контексту зламана. Виправ модель контексту.',
      'Модель контексту тепер працює: бо зараз з цього нічого не виходило через порожній кеш.',
    ),
  );
  assert.ok(uk.some((l) => /модель контексту/iu.test(l)), JSON.stringify(uk));
  for (const l of uk) assert.doesNotMatch(l, /цього|нічого|зараз|^бо /iu, JSON.stringify(uk));

  // "каждый", "день": generic in stopwords-iso's Russian list, in no list of the distiller's own
  const ru = concepts(exchange('Каждый день кэш сессий растёт. Почему каждый день?', 'Кэш сессий растёт каждый день из-за утечки.'));
  assert.ok(ru.some((l) => /кэш сессий/iu.test(l)), JSON.stringify(ru));
  assert.ok(!ru.some((l) => /каждый день/iu.test(l)), JSON.stringify(ru));

  const rarity = englishRarity();
  assert.ok(rarity.isGeneric('время') && rarity.isGeneric('ahora') && rarity.isGeneric('jetzt'));
  // a stop word of some other language that English ranks keeps its English rank ("mode" is Catalan's)
  assert.ok(!rarity.isGeneric('mode'));
});

test('a name and the phrases made with it are one room, labelled by the phrase when it carries most uses', () => {
  const rarity = englishRarity();
  const roomOf = (input: DistillInput, label: string) => {
    const rooms = new RoomRegistry(false).resolve(distillOffline(input, rarity).rooms, '/p');
    const named = rooms.filter((r) => r.type === 'concept' && /e2e/i.test(r.label));
    assert.deepEqual(named.map((r) => r.label), [label], JSON.stringify(rooms));
    return named[0]!.id;
  };
  const phrase = roomOf(
    exchange('The E2E testing setup is flaky.', 'E2E testing needs a server. I fixed E2E testing by waiting for the port; E2E runs pass.'),
    'E2E testing',
  );
  const name = roomOf(exchange('Are the E2E runs green?', 'E2E runs pass on CI. E2E failed once on Windows, the E2E plan covers it.'), 'E2E');
  assert.equal(phrase, name, 'one room, whose label the store takes from the exchanges that use it most');

  // a capitalised plural of an English word is a title's word, not a name: no room keyed "Modes"
  const title = distillOffline(
    exchange('Fix the Drawing Modes panel.', 'The Drawing Modes panel now lists every mode. Drawing Modes keep their order.'),
    rarity,
  ).rooms.filter((r) => r.type === 'concept');
  assert.ok(!title.some((r) => /^modes?$/i.test(r.key)), JSON.stringify(title));

  const docker = concepts(
    exchange('Docker fails to start the database.', 'Docker needs more memory. I raised the Docker limit in Docker Desktop, and Docker starts it now.'),
  );
  assert.ok(docker.includes('Docker'), JSON.stringify(docker));
  assert.ok(!docker.includes('Docker Desktop'), JSON.stringify(docker));
});

test('words of paths and URLs are no names: no "Dev" room from /Users/me/Dev/…, while "CI/CD" keeps its words', () => {
  const labels = concepts(
    exchange(
      'Traceback (most recent call last):\n  File "/Users/kobra/Dev/Chatgpt-Apps/lab/gen/gen.py", line 12\n  File "/Users/kobra/Dev/Chatgpt-Apps/lab/.venv/lib/torch.py", line 9\nRuntimeError: MPS backend out of memory',
      'The MPS backend ran out of memory in ~/Dev/lab/gen/gen.py; see https://pytorch.org/docs/Dev/notes. Lower the MPS batch size.',
    ),
  );
  assert.ok(!labels.some((l) => /\bdev\b/i.test(l)), JSON.stringify(labels));
  assert.ok(labels.some((l) => /MPS/.test(l)), JSON.stringify(labels));

  // one slash between words is no path: the words stay
  const alternatives = concepts(exchange('Set up the Kubernetes CI/CD pipeline.', 'The CI/CD pipeline now deploys to Kubernetes on every push.'));
  assert.ok(alternatives.some((l) => /\bCD\b/.test(l)), JSON.stringify(alternatives));
});

test('a Unicode hyphen joins a compound as "-" does: "IP‑Adapter" gives no "Adapter" name', () => {
  const labels = concepts(
    exchange(
      'Enable IP‑Adapter in gen.py for the face reference.',
      'IP‑Adapter is on: SDXL loads the IP‑Adapter plus‑face weights. Without IP‑Adapter the face drifts.',
    ),
  );
  assert.ok(!labels.includes('Adapter'), JSON.stringify(labels));
});

test('a capitalised common word is no name: the head of a title ("Web Apps") or written lower-case more often', () => {
  const apps = concepts(
    exchange(
      'Which of these apps can I safely delete?',
      '**Web Apps:** Gmail, Maps.\n**User Apps** (safe to remove): the apps you installed yourself.\n**System Apps:** keep the apps your desktop needs.',
    ),
  );
  assert.ok(!apps.some((l) => /^apps?$/i.test(l)), JSON.stringify(apps));

  // keys, not labels: a name keys the phrases made with it ("schema breaks" in the room of "Schema")
  const rarity = englishRarity();
  const keys = (input: DistillInput) => distillOffline(input, rarity).rooms.filter((r) => r.type === 'concept').map((r) => r.key);
  const schema = keys(
    exchange(
      'The tool schema breaks again: ValueError: Unknown field for Schema: default.',
      'The schema of the currency tool uses a default, which the Gemini schema rejects. I removed it from the schema and the schema of the weather tool.',
    ),
  );
  assert.ok(!schema.includes('Schema'), JSON.stringify(schema));

  // a name stays one when it leads a longer name ("Claude Code") or stands alone more than it is lower-case
  assert.ok(keys(exchange('Update Claude Code on the laptop.', 'Claude Code is updated: run Claude Code with --version to check.')).includes('Claude'));
  const desktop = keys(
    exchange('Docker fails to start on the Mac.', 'Open Docker Desktop and wait: Docker needs its VM. Docker Desktop shows the engine; Docker runs now.'),
  );
  assert.ok(desktop.includes('Docker') && !desktop.includes('Desktop'), JSON.stringify(desktop));
});

test('a name of letters and digits is one name in any case: "e2e tests" is the room of "E2E testing"', () => {
  const rarity = englishRarity();
  const e2eRoom = (input: DistillInput) => {
    const rooms = new RoomRegistry(false).resolve(distillOffline(input, rarity).rooms, '/p');
    return rooms.find((r) => r.type === 'concept' && /e2e/i.test(r.label));
  };
  const upper = e2eRoom(exchange('The E2E testing setup is flaky.', 'E2E testing needs a server. I fixed E2E testing by waiting for the port.'));
  const lower = e2eRoom(exchange('Run the e2e tests again.', 'The e2e tests pass now; two e2e tests were waiting for the canvas.'));
  assert.ok(upper && lower, JSON.stringify({ upper, lower }));
  assert.equal(lower.id, upper.id);
  assert.equal(lower.label, 'e2e tests');
  // a short commit hash is no name
  const hash = distillOffline(exchange('Revert a1b2c3d4 please.', 'Reverted a1b2c3d4; the build is green.'), rarity).rooms;
  assert.ok(!hash.some((r) => r.key === 'a1b2c3d4'), JSON.stringify(hash));
});

test('a kind of file is no topic: no "py file", "configuration files" or "home directory" room', () => {
  const labels = concepts(
    exchange(
      'Move the py file of the likeness workflow into the home directory and update the configuration files.',
      'The py file now lives in the home directory; the configuration files point at it, and the likeness workflow runs from the home directory.',
    ),
  );
  for (const l of labels) assert.doesNotMatch(l, /\b(?:file|files|directory)$/iu, JSON.stringify(labels));
  assert.ok(labels.includes('likeness workflow'), JSON.stringify(labels));
});

test('an identifier of a value or an action is no topic: no user_id, bot_id, add_turn, is_active or maxStates room', () => {
  const labels = concepts(
    exchange(
      'The bot_id check fails: add_turn stores the user_id of the bot. Also is_active is never reset and maxStates is 10.',
      'add_turn now stores the user_id of the sender, not the bot_id. is_active is reset in `reset_state`, and maxStates stays 10.',
      'The GeminiClient keeps the user IDs it saw; the sessionMiddleware and the ContextStore are unchanged.',
    ),
  );
  for (const l of labels) assert.doesNotMatch(l, /user_id|bot_id|add_turn|is_active|maxStates|reset_state|user IDs/u, JSON.stringify(labels));
  // the names of things stay themes: types and components
  const things = concepts(
    exchange('The GeminiClient drops the sessionMiddleware cookie.', 'GeminiClient now keeps it: the sessionMiddleware runs before the GeminiClient call.'),
  );
  assert.deepEqual([...things].sort(), ['GeminiClient', 'sessionMiddleware'], JSON.stringify(things));
});

test('a redaction marker is never a room: no REDACTED_EMAIL from [REDACTED_EMAIL] or a bare REDACTED_EMAIL', () => {
  const labels = concepts(
    exchange(
      'Send the YubiKey report to [REDACTED_EMAIL] and to REDACTED_EMAIL, and cc [REDACTED:email] too.',
      'The YubiKey report goes to [REDACTED_EMAIL]; REDACTED_EMAIL is on copy. [USER] gets the YubiKey notice.',
    ),
  );
  for (const l of labels) assert.doesNotMatch(l, /redacted|^user$/iu, JSON.stringify(labels));
  assert.ok(labels.some((l) => l.startsWith('YubiKey')), JSON.stringify(labels));
});

test('words of another script quoted in an English exchange are no room: a bot reply "Скажи конкретніше" is no topic', () => {
  const quoted = concepts(
    exchange(
      'For some reason the bot answered "Скажи конкретніше..." on a basic request. Look into the ContinuousMonitor.',
      'The reply "Скажи конкретніше" comes from the fallback in the ContinuousMonitor: the tool call returned nothing, so "Скажи конкретніше" was sent.',
    ),
  );
  assert.ok(!quoted.some((l) => /скажи|конкретніше/iu.test(l)), JSON.stringify(quoted));
  assert.ok(quoted.includes('ContinuousMonitor'), JSON.stringify(quoted));
  // an exchange written in that script keeps its themes, and Latin names in it too
  const ukrainian = concepts(
    exchange(
      'Модель контексту зламана у Docker. Виправ модель контексту.',
      'Модель контексту тепер працює у Docker: Docker збирає образ заново, модель контексту читає кеш.',
    ),
  );
  assert.ok(ukrainian.some((l) => /модель контексту/iu.test(l)), JSON.stringify(ukrainian));
  assert.ok(ukrainian.includes('Docker'), JSON.stringify(ukrainian));
});

test('a chat variable is no room, in the answer as in the prompt', () => {
  const labels = concepts(
    exchange(
      'The coupon rounding fails, see #terminalSelection',
      'The output of #terminalSelection shows the coupon rounding in `cartTotal`; #terminalSelection and #terminalLastCommand agree.',
    ),
  );
  assert.ok(!labels.some((l) => /terminal/iu.test(l)), JSON.stringify(labels));
});

test("a file room is a file of the exchange's project, named by its path there; none when the project is unknown", () => {
  const rarity = englishRarity();
  const fileRooms = (extra: Partial<DistillInput>) =>
    distillOffline(distillInput('Update the docs.', 'Assistant: The docs are updated.', extra), rarity).rooms.filter((r) => r.type === 'file').map((r) => r.key);
  const edit = (path: string) => ({ path, how: 'edit' as const });
  assert.deepEqual(fileRooms({ filesTouched: [edit('docs/README.md')] }), ['docs/README.md']);
  // no project recorded: whose README.md it is, nobody knows (the corpus merged 17 exchanges of unrelated repositories)
  assert.deepEqual(fileRooms({ project: undefined, filesTouched: [edit('README.md')] }), []);
  // a file outside the project (another machine's folders, the system's, the home folder's) founds no room;
  // the project's own file does, though it was worked on less
  assert.deepEqual(
    fileRooms({ filesTouched: [edit('/home/[USER]/Gemini-Playground/index.html'), edit('/boot/refind_linux.conf'), edit('~/.gemini/settings.json'), { path: 'src/app.ts', how: 'read' }] }),
    ['src/app.ts'],
  );
  assert.deepEqual(fileRooms({ filesTouched: [edit('../other/README.md'), edit('C:/Users/me/notes.md')] }), []);
});
