import assert from 'node:assert/strict';
import { test } from 'node:test';
import { distillOffline } from '../../src/core/distill/offline';
import { detailCandidates, detailItems } from '../../src/core/distill/details';
import { MAX_HEADLINE_CHARS } from '../../src/core/distill/headline';
import { splitVerbatim } from '../../src/core/distill/verbatimParts';
import { englishRarity } from '../../src/core/distill/wordRarity';
import { distillInput as input } from './distillHelpers';

/**
 * The offline headline against each defect class of issue 39 (test/bench/headlineDefects.ts counts them on a
 * corpus): filler openers, progress narration, sentences broken by lost code spans, bare prompts, repeats,
 * over-long and empty headlines, and noise in the detail line.
 */

function headline(prompt: string, body: string): string {
  return distillOffline(input(prompt, body), englishRarity()).exchangeCore;
}

function outcomeOf(core: string): string {
  return core.includes(' → ') ? core.slice(core.indexOf(' → ') + 3) : core;
}

test('filler: the outcome is what was done, not the announcement that opened the work', () => {
  const core = headline(
    'sort docs by topic',
    [
      'Assistant: Let me first check the current state of the docs directory.',
      '[tool] Bash ls docs',
      'Assistant: Now I\'ll move the guides into their folders.',
      '[tool] Bash git mv docs/setup.md docs/guides/setup.md',
      '',
      'Assistant: Perfect! I sorted the docs into `guides/`, `reference/` and `archive/` and rewrote the index to match.',
    ].join('\n'),
  );
  assert.match(outcomeOf(core), /^I sorted the docs into `guides\/`/, core);
});

test('filler: interjections and lead-ins before a statement go, the statement stays in its words', () => {
  const cases: Array<[string, RegExp]> = [
    ['Assistant: Sure thing — the cache key now includes the locale, so French prices stay in euros.', /^The cache key now includes the locale/],
    ["Assistant: You're right, the `forceUpdate` approach is unreliable with lil-gui panels.", /^The `forceUpdate` approach is unreliable/],
    ['Assistant: Looking at the failing tests, the undo buffer wraps one slot too early.', /^The undo buffer wraps one slot too early/],
    ['Assistant: I can see that the pre-commit hook needs Python 3.11 but only 3.9 is installed.', /^The pre-commit hook needs Python 3\.11/],
    ['Assistant: Great question — DNS queries are logged by the resolver, not by the router.', /^DNS queries are logged by the resolver/],
    ['Assistant: Good news - `pam_smartcard.so` is already in your sudo config.', /^`pam_smartcard\.so` is already in your sudo config/],
    ['Assistant: Good catch, the analyzer sampled the background instead of the hair.', /^The analyzer sampled the background/],
  ];
  for (const [body, expected] of cases) {
    const core = headline('why do the prices show in dollars again', body);
    assert.match(outcomeOf(core), expected, core);
  }
  // an answer that only announces keeps the announced work, without "Let me"
  const midWork = headline('The French storefront shows prices in dollars again.', 'Assistant: Let me look at the price cache first:\n[tool] Read src/pricing/cache.ts');
  assert.equal(outcomeOf(midWork), 'Look at the price cache first');
});

test("narration: progress titles are neither the outcome nor run together with it", () => {
  const copilot = [
    'Assistant: **Analyzing runtime error with google_search tool callbacks**',
    '',
    "I'm investigating a runtime ValueError occurring because the response includes a function call for the google_search tool.",
    '```',
    '```',
    '**Addressing lint and type errors**',
    '**Re-running compileall check****Summarizing final fixes and plan**',
    '',
    "I've stabilized the search grounding by adding a fallback for unimplemented `google_search` calls and verified it with a compile check.",
  ].join('\n');
  const core = headline('terminal selection there was an error during runtime', copilot);
  assert.match(outcomeOf(core), /^I've stabilized the search grounding/, core);
  assert.doesNotMatch(core, /Analyzing|Addressing|Re-running|Summarizing/, core);
  // a title glued to the text after it (`**Verifying**- Updated`, `**Title**\`code\``) stays apart from it
  const glued = headline('Remove that guard', 'Assistant: **Verifying comments and test coverage**- Updated `multi_level_context.py` so `_sanitize_text` keeps numeric ids.');
  assert.match(outcomeOf(glued), /^Updated `multi_level_context\.py`/, glued);
});

test('dropped code spans: a sentence the transcript broke is never the headline; code spans stay code', () => {
  const core = headline(
    "let's purge this database to disk `/mnt/hdd0/` and restart the bot with a clean one.",
    "Assistant: I'll help you backup the current database to `` and start fresh with a clean database.",
  );
  assert.doesNotMatch(core, /to and|``/, core);
  assert.match(core, /`\/mnt\/hdd0\/`/, 'the request keeps its code span as code');

  const other = headline(
    'Check the #terminalLastCommand and try and fix it.',
    'Assistant: The `` is a Redis runtime directory with restricted permissions. I added `redis-data/` to `.dockerignore`, so the build context no longer includes it.',
  );
  assert.doesNotMatch(other, /The is a/, other);
  assert.match(outcomeOf(other), /^I added `redis-data\/` to `\.dockerignore`/, other);
});

test('code spans stay code, and a cut never ends inside one', () => {
  const long = `Assistant: The failing call is \`retryForever()\` in the scheduler, which loops on \`${'veryLongIdentifierName'.repeat(4)}.resolveEverything()\` forever.`;
  const core = headline('why does the scheduler hang after the deploy on the staging cluster when the queue is full of retries', long);
  assert.match(core, /`retryForever\(\)`/, core);
  assert.equal((core.match(/`/g) ?? []).length % 2, 0, core);
  assert.ok(core.length <= MAX_HEADLINE_CHARS, core);
});

test('bare prompts: the task comes from the assistant\'s own statement of it', () => {
  const core = headline(
    'Implement it',
    [
      "Assistant: I'll implement the coupon expiry check in `cart.ts` before totals are computed.",
      '[tool] Edit src/cart.ts',
      '',
      'Assistant: Added the expiry check: expired coupons are dropped before the totals and the cart shows why.',
    ].join('\n'),
  );
  assert.match(core, /^implement the coupon expiry check/, core);
  assert.match(outcomeOf(core), /^Added the expiry check/, core);

  // of several sentences, one that names something is the request ("Different error this time" names nothing)
  const pasted = headline('Different error this time:\n\n- Following Playwright test failed.\n- Explain why, be concise.', 'Assistant: The base URL is missing from the config.');
  assert.match(pasted, /^Following Playwright test failed/, pasted);

  // a prompt that is only a pasted log reads as its error line
  const log = headline('```\n  File "app/db.py", line 9\nE   sqlite3.OperationalError: table user_profiles has no column named first_name\n17 failed, 266 passed\n```', '');
  assert.match(log, /^sqlite3\.OperationalError: table user_profiles has no column named first_name/, log);
});

test('bare prompts: a task the assistant restated and then only announced is said once', () => {
  const core = headline('Implement the plan', "Assistant: I'll implement the throttle removal and file logging plan step by step.\n[tool] Edit app/throttle.py");
  assert.equal(core, 'implement the throttle removal and file logging plan step by step');
});

test('symbols a terminal or an agent UI draws before a line are no words of the request', () => {
  const core = headline("⎿  Stop hook prevented the continuation of the session", 'Assistant: Those are Claude Code hooks from your Sisyphus configuration.');
  assert.match(core, /^Stop hook prevented/, core);
});

test('repeats: the same prompt that failed twice in different ways gives two headlines', () => {
  const a = headline('Create a simple hello.py file with a hello_world function', '[error] litellm.APIError: APIError: OpenAIException - Your request was blocked.');
  const b = headline('Create a simple hello.py file with a hello_world function', "[error] Repo-map can't include /home/me/OpenCoder/notes.txt\nHas it been deleted from the file system?");
  assert.notEqual(a, b);
  assert.match(a, /→ litellm\.APIError/, a);
});

test("a retry loop's error, its repeated lines shown once and counted (render.ts), is told without the count", () => {
  const loop = headline('Create a simple hello.py file', '[error] litellm.APIError: APIError: OpenAIException - Your request was blocked. [×9]\nRetrying in 0.2 seconds... [×8]');
  assert.match(loop, /→ litellm\.APIError: APIError: OpenAIException - Your request was blocked\.$/, loop);
});

test('tool error: an exchange without an answer is told by the steps its agent marked done, not an error it retried past', () => {
  const todos = (done: number) =>
    JSON.stringify({
      todos: [
        { content: 'Stop gl_screen service to eliminate log spam', activeForm: 'Stopping gl_screen service', status: done > 0 ? 'completed' : 'in_progress' },
        { content: 'Remove obsolete VPN server firewall rules', activeForm: 'Removing VPN server rules', status: done > 1 ? 'completed' : 'pending' },
        { content: 'Check tailscaled memory', activeForm: 'Checking tailscaled memory', status: 'pending' },
      ],
    });
  const body = [
    `[tool] TodoWrite ${todos(0)}`,
    '[tool] Bash ssh root@router "/etc/init.d/gl_screen stop" Stop gl_screen',
    `[tool] TodoWrite ${todos(1)}`,
    '[tool] Bash ssh root@router "uci commit firewall" Commit firewall changes',
    "[error] Command failed: cygpath -u 'c:\\users\\me'",
    '[tool] Bash ssh root@router "uci commit firewall" Retry committing firewall changes',
    '[result] Firewall configuration updated',
    `[tool] TodoWrite ${todos(2)}`,
  ].join('\n');
  const core = headline('apply all priority fixes now', body);
  assert.equal(core, 'apply all priority fixes now → Stop gl_screen service to eliminate log spam; Remove obsolete VPN server firewall rules');
  // Codex's plan too; without a plan the error is still what became of it
  const codex = headline('run the health checks', `[tool] update_plan ${JSON.stringify({ plan: [{ status: 'completed', step: 'Inspect package scripts for checks' }, { status: 'in_progress', step: 'Run the linter' }] })}\n[error] Exit code 1`);
  assert.equal(outcomeOf(codex), 'Inspect package scripts for checks');
  assert.match(headline('run the health checks', '[tool] Bash npm test\n[error] npm ERR! missing script: test'), /→ npm ERR! missing script: test$/);
  // a step the rendering cut short is no step
  const cut = headline('run the health checks', '[tool] TodoWrite {"todos":[{"content":"Run the linter","status":"completed"},{"content":"Run the unit tes… [120 more chars]\n[error] Exit code 1');
  assert.equal(outcomeOf(cut), 'Run the linter');
});

test("a list's lead-in goes on with the items it announces, as many whole ones as fit (\"Here are the changes:\" names nothing)", () => {
  const body = ['Assistant: Done. The nightly export now writes three reports:', '- **`sales.csv`**', '- `refunds.csv`', '', '- `inventory.csv`', '', 'Nothing else changed.'].join('\n');
  const core = headline('split the nightly export by report', body);
  assert.equal(outcomeOf(core), 'The nightly export now writes three reports: `sales.csv`; `refunds.csv`; `inventory.csv`', core);
  // no room for a whole item: a lead-in that states something stays alone, as before
  const long = headline(
    'list every application installed on this machine that the launcher can open',
    'Assistant: The launcher opens the applications installed on your system from three places, grouped here by where they came from:\n- Firefox Web Browser (flatpak, org.mozilla.firefox)\n- Alacritty',
  );
  assert.doesNotMatch(long, /Firefox|Alacritty/, long);
  // one that only presents them ("Here are…") gives way to what it presents
  const presented = headline(
    'list every application installed on this machine that the launcher can open',
    'Assistant: Here are the applications installed on your system that are accessible from the launcher, grouped by where they came from:\n- Firefox Web Browser (flatpak, org.mozilla.firefox)\n- Alacritty',
  );
  assert.equal(outcomeOf(presented), 'Firefox Web Browser (flatpak, org.mozilla.firefox); Alacritty', presented);
});

test('a fence opening inside a longer one, or with an info string, closes no block: its code is never read as prose', () => {
  // "```yaml" inside a "````markdown" block opens a block of its own; the outer block ends at its own "````"
  const nested = headline(
    'document the API in a file',
    [
      'Assistant: ````markdown',
      '# API',
      '```yaml',
      'openapi: 3.0.3',
      'info:',
      '  title: Orders',
      '```',
      '````',
      '',
      'I wrote the API description to `docs/api.md`.',
    ].join('\n'),
  );
  assert.equal(outcomeOf(nested), 'I wrote the API description to `docs/api.md`.', nested);
  // a block that is the whole answer leaves no stray backtick as the outcome
  const whole = headline('give it to me as a markdown code block', ['Assistant: ````markdown', '# Overview', '```js', 'draw()', '```', '````'].join('\n'));
  assert.doesNotMatch(whole, /`/, whole);
  // a block on one line ("```bash npm test```") closes where it ends, not at the next fence or the end of the text
  const oneLine = headline('how do I run the tests', 'Assistant: ```bash npm test``` runs them. The suite takes about two minutes on CI.');
  assert.equal(outcomeOf(oneLine), 'The suite takes about two minutes on CI.', oneLine);
});

test('a lead-in to a code block goes on with the block\'s first line that says what it is, as code', () => {
  const commit = headline(
    'write a commit message for these changes',
    ['Assistant: Here\'s the commit message following the Conventional Commits format:', '', '```', 'refactor: extract the colour system into its own module', '', '- move palette code', '```'].join('\n'),
  );
  assert.equal(outcomeOf(commit), '`refactor: extract the colour system into its own module`', commit);
  // comments and imports say nothing of a block; a lead-in that fits goes on with the block's definition
  const fn = headline(
    'where is the retry delay computed',
    ['Assistant: The delay comes from this function:', '```python', '# backoff', 'import math', 'def retry_delay(attempt):', '    return 2 ** attempt', '```'].join('\n'),
  );
  assert.equal(outcomeOf(fn), 'The delay comes from this function: `def retry_delay(attempt):`', fn);
});

test("asides: Claude Code's \"★ Insight\" background is not what was done, nor its banner a detail", () => {
  const aside = input(
    'aggregate the sudo commands that failed into one script',
    [
      'Assistant: I wrote the script.',
      '[tool] Write /tmp/audit-sudo.sh',
      'Assistant: `★ Insight ─────────────────────────────────────`',
      '**Sudo Authentication Architecture**: macOS uses PAM (Pluggable Authentication Modules) for sudo and caches credentials per terminal.',
      '`─────────────────────────────────────────────────`',
      '',
      'The audit script is ready; run it in your own terminal since sudo needs your password there.',
    ].join('\n'),
  );
  const d = distillOffline(aside, englishRarity());
  const core = d.exchangeCore;
  assert.doesNotMatch(core, /PAM|Authentication Architecture/, core);
  assert.ok(!detailCandidates(splitVerbatim(aside.verbatim), aside, englishRarity()).some((c) => c.includes('Insight')), d.specificContext);
  assert.match(outcomeOf(core), /^The audit script is ready/, core);
});

test('over-long: request and outcome together stay within 140 characters', () => {
  const core = headline(
    'Could you please look into why the nightly export job keeps failing on the reporting server since last Tuesday evening, and fix it?',
    'Assistant: The nightly export failed because the reporting database rotated its credentials on Tuesday and the job still used the old password from the environment file, so I switched it to the secrets manager and re-ran the export.',
  );
  assert.ok(core.length <= MAX_HEADLINE_CHARS, `${core.length}: ${core}`);
  assert.match(core, /^look into why the nightly export job.* → The nightly export failed because/, core);
});

test('empty: a piece of tool calls alone is headed by its first call and what became of it', () => {
  const piece = input('', '[tool] Bash swift build Build the Swift package\n\n[error] This command requires approval', {});
  const core = distillOffline({ ...piece, verbatim: piece.verbatim.replace(/^User: \n\n/, '') }, englishRarity()).exchangeCore;
  assert.equal(core, 'Bash swift build Build the Swift package → This command requires approval');
});

test('detail line: no bare number or piece of an address when a named detail exists, and not what the headline says', () => {
  const rarity = englishRarity();
  const ip = input('Why does the bot not answer on the LAN?', 'Assistant: It listened on 127.0.0.1 only; it now binds `0.0.0.0` through `BIND_HOST`.');
  const candidates = detailCandidates(splitVerbatim(ip.verbatim), ip, rarity);
  assert.ok(!candidates.some((c) => /^(?:127\.0\.0|0\.0\.1|0\.0\.0)$/.test(c)), candidates.join(' | '));

  const year = input(
    'is canada in a recession?',
    'Assistant: A recession is usually defined as two consecutive quarters of negative GDP growth, which has not occurred in Canada since 2020. The Bank of Canada publishes the quarterly figures in its `Monetary Policy Report` 2024.',
  );
  const d = distillOffline(year, rarity);
  const items = detailItems(d.specificContext);
  assert.ok(!items.includes('2024') && !items.includes('2020'), d.specificContext);
  const said = d.exchangeCore.toLowerCase();
  for (const item of items) {
    assert.ok(year.verbatim.includes(item), item);
    assert.ok(!said.includes(item.toLowerCase()), `the detail repeats the headline: ${item}`);
  }
});

test('detail line: no prose between two code spans, where a transcript lost a span\'s text', () => {
  // SpecStory exports lose some spans' text ("the `` directory"): the backtick after `05` then opened no span
  const lost = input(
    'Why did you pick `05-` as the prefix?',
    [
      'Assistant: I assumed that there were already four plan files in the `` directory (01 through 04) based on the examples provided,',
      'so I continued the sequence with `05`. However, I should have first checked the actual contents of the `` directory to confirm the numbering.',
      'The plan file is `05-offscreen-rendering.md`.',
    ].join(' '),
  );
  const candidates = detailCandidates(splitVerbatim(lost.verbatim), lost, englishRarity());
  assert.ok(!candidates.some((c) => /However|directory/.test(c)), candidates.join(' | '));
  assert.ok(candidates.includes('05-offscreen-rendering.md'), candidates.join(' | '));
});
