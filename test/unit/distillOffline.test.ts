import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { distillOffline, OfflineDistiller, TARGET_TOKENS } from '../../src/core/distill/offline';
import { cutHeadline } from '../../src/core/distill/headline';
import { sentences } from '../../src/core/distill/prose';
import { fitTokens } from '../../src/core/distill/tokenFit';
import { englishRarity, type WordRarity } from '../../src/core/distill/wordRarity';
import { distilledText } from '../../src/core/distill/types';
import { pendingDistillation } from '../../src/core/store/distilledStore';
import { countTokens } from '../../src/core/tokens';
import { DETAIL_SEPARATOR, detailCandidates, detailItems } from '../../src/core/distill/details';
import { splitVerbatim } from '../../src/core/distill/verbatimParts';
import { SUBJECT_MAX_TOKENS } from '../../src/core/distill/subject';
import { distillInput as input, fixtureStore } from './distillHelpers';

/** Core + "\n" + context stays near the paper's 38 tokens; word-level cuts may land a token or two over. */
const MAX_TOKENS = TARGET_TOKENS + 2;

function background(): WordRarity {
  return englishRarity();
}

const UPLOAD = input(
  'The upload worker times out on large files. Please fix the retry timeout in the worker.',
  [
    'Assistant: Let me look at the worker.',
    '[tool] Read /home/dev/shop/src/upload/worker.ts',
    '[result] export const UPLOAD_TIMEOUT_MS = 30000;',
    '[tool] Bash npm test -- upload',
    '[error] TimeoutError: upload of big.bin exceeded 30000 ms',
    '[tool] Edit /home/dev/shop/src/upload/worker.ts',
    '[tool] Bash npm test -- upload',
    '[result] 12 passing',
    '',
    'Assistant: I raised `UPLOAD_TIMEOUT_MS` to 120000 and added exponential backoff to the retry loop in the upload worker. The upload tests pass again.',
  ].join('\n'),
  { filesTouched: [{ path: 'src/upload/worker.ts', how: 'edit' }] },
);

test('core keeps the request and the final statement in their own words; context is an exact detail', () => {
  const d = distillOffline(UPLOAD, background());
  const [request, outcome] = d.exchangeCore.split(' → ');
  assert.ok(request && outcome, d.exchangeCore);
  assert.ok(UPLOAD.prompt.startsWith(request!.replace(/…$/, '')), `request is a prefix of a prompt sentence: ${request}`);
  assert.match(outcome!, /UPLOAD_TIMEOUT_MS|backoff|120000/);
  for (const item of detailItems(d.specificContext)) assert.ok(UPLOAD.verbatim.includes(item), item);
  // the headline already says UPLOAD_TIMEOUT_MS: the details are those that add to it
  assert.ok(['src/upload/worker.ts', 'TimeoutError: upload of big.bin exceeded 30000 ms'].includes(detailItems(d.specificContext)[0]!), d.specificContext);
  assert.ok(countTokens(distilledText(d)) <= MAX_TOKENS);
  const byType = Object.fromEntries(d.rooms.map((r) => [r.type, r]));
  assert.equal(byType['file']?.key, 'src/upload/worker.ts');
  assert.equal(byType['workflow']?.key, 'tests');
  assert.ok(d.rooms.length >= 1 && d.rooms.length <= 6);
  assert.ok(d.rooms.some((r) => r.type === "concept" && /upload worker/i.test(r.label)), JSON.stringify(d.rooms));
});

test('the same input and frequencies always give the same object', () => {
  const a = distillOffline(UPLOAD, background());
  const b = distillOffline(structuredClone(UPLOAD), background());
  assert.deepEqual(a, b);
});

test('multilingual exchanges: Cyrillic and Spanish words survive, stop words do not become rooms', () => {
  const ru = input(
    'Почему сборка падает с ошибкой при импорте модуля конфигурации?',
    'Assistant: Сборка падала из-за циклического импорта модуля конфигурации. Я вынес общие типы в отдельный файл, и сборка проходит.',
  );
  const d = distillOffline(ru, background());
  assert.match(d.exchangeCore, /сборка/i);
  assert.match(d.exchangeCore, / → Сборка падала/, 'the final statement, in its own words (Cyrillic costs ~3 tokens a word)');
  for (const item of detailItems(d.specificContext)) assert.ok(ru.verbatim.includes(item), item);
  for (const r of d.rooms) assert.ok(!['и', 'в', 'что', 'при', 'из'].includes(r.key.toLowerCase()), r.key);

  const es = input(
    '¿Puedes arreglar la paginación de la tabla de pedidos?',
    'Assistant: Arreglé la paginación: la consulta usaba un desplazamiento incorrecto en la tabla de pedidos.',
  );
  const e = distillOffline(es, background());
  assert.match(e.exchangeCore, /paginación/);
  for (const item of detailItems(e.specificContext)) assert.ok(es.verbatim.includes(item), item);
  assert.ok(e.rooms.some((r) => r.label === 'tabla de pedidos'), JSON.stringify(e.rooms));
  assert.ok(d.rooms.some((r) => r.label === 'модуля конфигурации'), JSON.stringify(d.rooms));
});

test('the project path is never the specific context', () => {
  const p = input(
    'Where is the config read from?',
    'Assistant: From /home/dev/shop and /home/dev/shop/. The loader in /home/dev/shop reads it on start.',
  );
  const d = distillOffline(p, background());
  assert.ok(!d.specificContext.includes('/home/dev/shop'), d.specificContext);
  for (const item of detailItems(d.specificContext)) assert.ok(p.verbatim.includes(item), item);
});

test('a path inside the project is a detail relative to the project, never with the project path in front', () => {
  // agents' tools name files by absolute path (Copilot's edits, Claude Code's Read): the match starts after the slash
  const p = input(
    'The search route answers 500 when the query has a quote.',
    [
      '[tool] Read /home/dev/shop/src/routes/searchRecipes.ts',
      '[tool] Edit /home/dev/shop/src/routes/searchRecipes.ts',
      'Assistant: Quoted every term before it reaches the full-text index.',
    ].join('\n'),
  );
  const candidates = detailCandidates(splitVerbatim(p.verbatim), p, background());
  assert.ok(candidates.includes('src/routes/searchRecipes.ts'), candidates.join(' | '));
  assert.ok(candidates.every((c) => !c.includes('home/dev/shop')), candidates.join(' | '));
  const d = distillOffline(p, background());
  assert.ok(!d.specificContext.includes('home/dev/shop'), d.specificContext);
  for (const item of detailItems(d.specificContext)) assert.ok(p.verbatim.includes(item), item);
});

test('continuation pieces (no prompt), empty and letter-less exchanges give an object without throwing', () => {
  const piece = input('', 'Assistant: Renamed the option to maxRetries everywhere and updated the docs.');
  const d = distillOffline({ ...piece, verbatim: piece.verbatim.replace(/^User: \n\n/, '') }, background());
  assert.ok(!d.exchangeCore.includes('→'));
  assert.match(d.exchangeCore, /maxRetries/);

  const empty = distillOffline(input('', '', { verbatim: '' }), background());
  assert.deepEqual(empty, { exchangeCore: '', specificContext: '', rooms: [] });

  const symbols = input('???', '[result] ---- *** ----');
  const s = distillOffline(symbols, background());
  assert.equal(s.specificContext, '');
  assert.ok(countTokens(distilledText(s)) <= MAX_TOKENS);
});

test('oversized and corrupt input: bounded time, bounded size, context still verbatim', () => {
  const blob = randomBytes(600_000).toString('base64');
  const prompt = `Summarise this dump: ${'word '.repeat(20_000)}`;
  const huge = input(prompt, `Assistant: Parsed it.\n[result] ${blob}\n\nAssistant: The dump holds 42 records with checksum ${blob.slice(0, 12)}.\u0000\ud800`);
  const t0 = performance.now();
  const d = distillOffline(huge, background());
  assert.ok(performance.now() - t0 < 2000, `took ${performance.now() - t0} ms`);
  for (const item of detailItems(d.specificContext)) assert.ok(huge.verbatim.includes(item), item);
  assert.ok(countTokens(distilledText(d)) <= MAX_TOKENS);
});

test('every fixture exchange: context verbatim, within bounds, at most 6 room candidates, deterministic across runs', async () => {
  const store = await fixtureStore(false);
  try {
    const inputs = await pendingDistillation(store.db, 1000);
    assert.ok(inputs.length >= 5);
    const first = await new OfflineDistiller().distill(inputs, { isCancellationRequested: false });
    const again = await new OfflineDistiller().distill(inputs, { isCancellationRequested: false });
    assert.deepEqual(first, again);
    for (const [i, o] of first.entries()) {
      assert.ok(o.ok, JSON.stringify(o));
      if (!o.ok) continue;
      const e = inputs[i]!;
      const items = detailItems(o.value.specificContext);
      // the conversation's title may end the line (subject.ts): the one item that is not the exchange's own words
      const subject = e.title !== undefined && e.title.startsWith((items.at(-1) ?? '\u0000').replace(/…$/u, '')) ? items.pop() : undefined;
      for (const item of items) assert.ok(e.verbatim.includes(item), `${e.exchangeId}: ${item}`);
      assert.ok(o.value.exchangeCore.length > 0);
      assert.ok(countTokens(distilledText(o.value)) <= MAX_TOKENS + (subject ? SUBJECT_MAX_TOKENS + 1 : 0), distilledText(o.value));
      assert.ok(o.value.rooms.length <= 6, JSON.stringify(o.value.rooms));
    }
  } finally {
    await store.close();
  }
});

test('a cancelled batch stops early and reports only what it did', async () => {
  let checks = 0;
  const token = { get isCancellationRequested() { return ++checks > 2; } };
  const out = await new OfflineDistiller().distill([UPLOAD, { ...UPLOAD, n: 2 }, { ...UPLOAD, n: 3 }], token);
  assert.equal(out.length, 2);
});

test('sentences: wrapped lines and quote bars join, list items and code blocks split', () => {
  assert.deepEqual(
    sentences('Can you create a lab for running\n▌multiple instances of ocodex? Thanks a lot.\n- first item is here\n- second item is here\n```\nconst x = 1;\n```\nDone with all that.'),
    ['Can you create a lab for running multiple instances of ocodex?', 'Thanks a lot.', 'first item is here', 'second item is here', 'Done with all that.'],
  );
});

test('truncated tool output never yields a cut word as detail or room', () => {
  const cut = input(
    'Why does the e2e launch test fail?',
    'Assistant: Running it.\n[result] Error: launch ApplicationWindowFactoryServiceUnavailable… [6329 more chars]\n\nAssistant: The launch test waits for a window that never opens.',
  );
  const d = distillOffline(cut, background());
  assert.ok(!/more chars|…/.test(d.specificContext), d.specificContext);
  assert.ok(cut.verbatim.includes(d.specificContext));
  for (const r of d.rooms) assert.ok(!/ApplicationWindow/.test(r.label), r.label);
});

test('workflow rooms: commands count, prose that looks like one does not', () => {
  const prose = input('Make sure the image limit is 3 and make it configurable.', 'Assistant: Set the image limit to 3 in settings.py and made it configurable.');
  assert.ok(!distillOffline(prose, background()).rooms.some((r) => r.type === 'workflow'));
  const build = input('Why does it not compile?', 'Assistant: Compiling.\n[tool] Bash make -j4\n[tool] Bash make -j4 install\n\nAssistant: It compiles now.');
  assert.ok(distillOffline(build, background()).rooms.some((r) => r.type === 'workflow' && r.key === 'build'));
});

test('bold headings glued together stay separate words in the core', () => {
  const glued = input('Show me the pytest result.', 'Assistant: **Running the suite****Summary**Full suite is green with 376 passed.');
  assert.ok(!/suiteSummary|SummaryFull/.test(distillOffline(glued, background()).exchangeCore));
});

test('a pasted log line does not become the request', () => {
  const pasted = input(
    'Still failing. We had gotten these tests to work at one point, the output is below:\n[WebServer] ℹ Listening on: http://localhost:3000/\nRunning 2 tests using 2 workers',
    'Assistant: The launch test races the server start.',
  );
  const core = distillOffline(pasted, background()).exchangeCore;
  assert.match(core, /^We had gotten these tests to work/, core);
});

test('fitTokens: within the budget, a word-boundary prefix, exact when nothing is cut', () => {
  const texts = [
    'The upload worker retries three times with exponential backoff before it gives up on a file.',
    'Сборка падала из-за циклического импорта модуля конфигурации, теперь типы вынесены отдельно.',
    'path/to/a/very/long/identifier_with_many_parts_and_no_spaces_at_all_in_it_whatsoever.ts is the file',
    `${'x'.repeat(500)} tail`,
  ];
  for (const text of texts) {
    for (const max of [3, 8, 14, 30]) {
      for (const ellipsis of [true, false]) {
        const out = fitTokens(text, max, ellipsis);
        assert.ok(countTokens(out) <= max, `${max}: ${out} (${countTokens(out)})`);
        const body = ellipsis ? out.replace(/…$/, '') : out;
        assert.ok(text.startsWith(body), `prefix: ${out}`);
        if (countTokens(text) <= max) assert.equal(out, text);
      }
    }
  }
});

test('headlines: cut at a clause end within the budget, never inside a word; a trailing colon goes', () => {
  const long = 'The session cookie was dropped because the middleware ran after the router, so every request started a new session and the cart emptied itself';
  const cut = cutHeadline(long, 16);
  assert.ok(countTokens(cut) <= 16, cut);
  assert.equal(cut, 'The session cookie was dropped because the middleware ran after the router');
  // no clause end in reach: whole words and an ellipsis
  const words = cutHeadline('Supercalifragilistic expialidocious words keep going and going without any stop whatsoever here', 8);
  assert.match(words, /^[^…]*\S…$/);
  assert.ok('Supercalifragilistic expialidocious words keep going and going without any stop whatsoever here'.startsWith(words.slice(0, -1)), words);
  assert.equal(cutHeadline('You can reach the container in several ways:', 20), 'You can reach the container in several ways');
});

test('headlines: no Markdown, fences, agent boilerplate or decorations; the outcome wins when both do not fit', () => {
  const md = input(
    '@agent Continue: "Continue to iterate?"',
    'Assistant: ★ Insight ─────────────────────────\n**Root cause**: the [session store](https://example.com/x) was _never_ awaited.\n```ts\nawait store.init();\n```\n| a | b |\n|---|---|',
  );
  const d = distillOffline(md, background());
  assert.doesNotMatch(d.exchangeCore, /[*`|─★]|\]\(|@agent|Continue to iterate/, d.exchangeCore);
  assert.match(d.exchangeCore, /session store was never awaited/);
  const bold = input('Why does sending fail?', 'Assistant: Sending failed because the **message thread does not exist**. I now create it first.');
  assert.match(distillOffline(bold, background()).exchangeCore, /the message thread does not exist\./, 'no space left before the full stop');

  const chat = input('@workspace /setupTests jest: "Pick a testing framework" #terminalLastCommand', 'Assistant: Jest is set up with a jsdom environment and one passing test.');
  assert.match(distillOffline(chat, background()).exchangeCore, /^jest: "Pick a testing framework" terminal last command → Jest is set up/);
  // a chat variable inside a sentence reads as what it names, not as a hole ("Check the and fix it")
  const variable = input('Check the #terminalLastCommand and fix #file:src/cart.ts please', 'Assistant: The rounding bug is fixed.');
  assert.match(distillOffline(variable, background()).exchangeCore, /^Check the terminal last command and fix src\/cart\.ts please → /);
  // ...and never a room: 14 exchanges of a corpus project shared a "terminalLastCommand" room
  const asked = input('#terminalLastCommand #terminalLastCommand the rounding of coupon totals fails', 'Assistant: The coupon rounding now uses integer cents.');
  const rooms = distillOffline(asked, background()).rooms.map((r) => r.label.toLowerCase());
  assert.ok(rooms.length > 0 && !rooms.some((r) => r.includes('terminal')), rooms.join(', '));

  const both = input(
    'Could you please look into why the nightly export job keeps failing on the reporting server since last Tuesday evening?',
    'Assistant: The nightly export failed because the reporting database rotated its credentials on Tuesday and the job still used the old password from the environment file, so I switched it to the secrets manager.',
  );
  const core = distillOffline(both, background()).exchangeCore;
  const [request, outcome] = core.split(' → ');
  assert.ok(request && outcome, core);
  assert.ok(countTokens(outcome!) > countTokens(request!), `the outcome gets the larger share: ${core}`);
  assert.match(outcome!, /^The nightly export failed because the reporting database rotated its credentials/);
});

test('headlines: an outcome announcing a tool call keeps its words but not its colon or its "Let me"', () => {
  // an exchange cut mid-work has no statement of what was done: what it set out to do is the next best
  const midWork = input('The French storefront shows prices in dollars again.', 'Assistant: Let me look at the price cache first:\n[tool] Read src/pricing/cache.ts');
  assert.match(distillOffline(midWork, background()).exchangeCore, / → Look at the price cache first$/);
});

// issue 39 (b): the detail line names what the exchange touched, not the agent's plumbing
const ROUTER = input(
  'the router logs are full of spam and DNS from the Mac is dropped',
  [
    '[tool] TodoWrite {"todos":[{"content":"Stop the screen service","activeForm":"Stopping the screen service","status":"in_progress"}]}',
    '[tool] Bash ssh root@router "/etc/init.d/gl_screen stop" Stop gl_screen',
    '[result] stopped',
    '[tool] Bash ssh root@router "/etc/init.d/gl_screen disable" Disable gl_screen',
    '[tool] Bash ssh root@router "uci set firewall.lan_drop_leaked_dns.enabled=0" Allow LAN DNS',
    '[result] option mark 0x8000',
    '[tool] TodoWrite {"todos":[{"content":"Stop the screen service","activeForm":"Stopping the screen service","status":"completed"}]}',
    '',
    'Assistant: The rule `lan_drop_leaked_dns` dropped DNS without the mark `0x8000`; it is off now and `gl_screen` no longer spams the log.',
    'The router answers DNS from the LAN again.',
  ].join('\n'),
  { project: undefined },
);

test('detail line: several things the exchange touched, each verbatim and each adding a word to the headline', () => {
  const d = distillOffline(ROUTER, englishRarity());
  const items = detailItems(d.specificContext);
  assert.ok(items.length >= 2, d.specificContext);
  const said = d.exchangeCore.toLowerCase();
  for (const item of items) {
    assert.ok(ROUTER.verbatim.includes(item), item);
    assert.ok(!said.includes(item.toLowerCase()), `the detail repeats the headline: ${item}`);
  }
  assert.ok(countTokens(distilledText(d)) <= MAX_TOKENS, distilledText(d));
  assert.equal(d.specificContext, items.join(DETAIL_SEPARATOR));
});

test('detail candidates: no tool name, argument key or to-do state, a hex numeral is a number, the name said most comes first', () => {
  const candidates = detailCandidates(splitVerbatim(ROUTER.verbatim), ROUTER, englishRarity());
  for (const plumbing of ['TodoWrite', 'activeForm', 'in_progress']) assert.ok(!candidates.includes(plumbing), candidates.join(' | '));
  // 0x8000 is as rare as a name to the word list; it is a number, named twice, the rule and the service more
  assert.ok(candidates.indexOf('0x8000') > candidates.indexOf('lan_drop_leaked_dns'), candidates.join(' | '));
  assert.equal(candidates[0], 'gl_screen', candidates.join(' | '));
});

test('detail line: a bare number only when nothing named is left', () => {
  const crash = input(
    'fix this crash of the build',
    [
      '[tool] Bash make build',
      '[result] build_target x86_64: status 32460 after 299 retries (pid 1070493)',
      '',
      'Assistant: Pinning `libfoo` to 2.1 fixed it.',
    ].join('\n'),
  );
  const items = detailItems(distillOffline(crash, englishRarity()).specificContext);
  assert.ok(items.length > 0 && items.every((i) => /\p{L}/u.test(i)), items.join(' | '));
  const onlyNumbers = input('what was the exit status?', '[tool] Bash make build\n[result] 32460\n\nAssistant: The build failed with a nonzero exit status.');
  assert.equal(distillOffline(onlyNumbers, englishRarity()).specificContext, '32460');
  // the number the headline shows already is no detail line ("It was 32460." then "32460")
  assert.equal(distillOffline(input('what was the exit status?', 'Assistant: It was 32460.'), englishRarity()).specificContext, '');
});

test('no detail line that only repeats what the headline shows', () => {
  // the fallback (no detail adds a word) used to show the first detail anyway: "`05-`" under "I chose `05-`"
  for (const [prompt, answer] of [
    ['why did you name the file that way?', 'Assistant: I chose `05-` because the other PRD files in the folder are numbered in order.'],
    ['you sudo', 'Assistant: Your message might have been cut off or contains a typo. Could you clarify what you want to run with elevated privileges?'],
  ] as const) {
    const d = distillOffline(input(prompt, answer), background());
    assert.ok(d.exchangeCore.includes(prompt === 'you sudo' ? 'sudo' : '`05-`'), d.exchangeCore);
    assert.equal(d.specificContext, '', d.exchangeCore);
  }
  // a detail the headline does not show is still the fallback
  assert.notEqual(distillOffline(UPLOAD, background()).specificContext, '');
});
