import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { extractFiles, mentionsIn, normalisePath, PATH_RE, pathRuns } from '../../src/core/files';
import { msg, tempDir } from './helpers';

/** A real folder holding `files` (workspace-relative), for mentions to resolve against. */
function workspace(files: readonly string[]): string {
  const root = tempDir('files-');
  for (const f of files) {
    mkdirSync(path.dirname(path.join(root, f)), { recursive: true });
    writeFileSync(path.join(root, f), '');
  }
  return root;
}

const ctx = { cwd: '/home/dev/shop' };

test('tool inputs give read/edit/write with line ranges from structured patches and Read offsets; an edited file keeps its edited lines only', () => {
  const files = extractFiles(
    [
      msg('reply', '', {
        toolCalls: [
          { id: 'a', name: 'Read', input: { file_path: '/home/dev/shop/src/cart.ts', offset: 10, limit: 20 } },
          { id: 'b', name: 'Edit', input: { file_path: '/home/dev/shop/src/cart.ts' } },
          { id: 'c', name: 'Write', input: { file_path: '/home/dev/shop/tests/cart.test.ts' } },
          // Gemini CLI's read_file counts from line 0: offset 100 is line 101
          { id: 'd', name: 'read_file', input: { file_path: '/home/dev/shop/src/tax.ts', offset: 100, limit: 5 } },
        ],
      }),
      msg('tool-results', '', {
        toolResults: [{ toolUseId: 'b', text: 'ok', isError: false, filePath: '/home/dev/shop/src/cart.ts', editedLines: [{ start: 40, end: 44 }] }],
      }),
    ],
    ctx,
  );
  assert.deepEqual(files, [
    { path: 'tests/cart.test.ts', how: 'write' },
    { path: 'src/cart.ts', how: 'edit', lines: [{ start: 40, end: 44 }] },
    { path: 'src/tax.ts', how: 'read', lines: [{ start: 101, end: 105 }] },
  ]);
});

test("a read's lines without an offset: read_file's, Read's and read's limit alone, read_file's start_line/end_line (Gemini CLI 0.31+)", () => {
  const files = extractFiles(
    [
      msg('reply', '', {
        toolCalls: [
          // Gemini CLI before 0.31: offset 0 unless given
          { name: 'read_file', input: { file_path: '/home/dev/shop/src/a.ts', limit: 40 } },
          { name: 'Read', input: { file_path: '/home/dev/shop/src/b.ts', limit: 25 } },
          { name: 'read', input: { filePath: '/home/dev/shop/src/c.ts', limit: 10 } },
          // since 0.31: 1-based, inclusive
          { name: 'read_file', input: { file_path: '/home/dev/shop/src/d.ts', start_line: 120, end_line: 180 } },
          { name: 'read_file', input: { file_path: '/home/dev/shop/src/e.ts', end_line: 30 } },
          // a start without an end: to the file's end or 2,000 lines on, which the call does not say
          { name: 'read_file', input: { file_path: '/home/dev/shop/src/f.ts', start_line: 50 } },
        ],
      }),
    ],
    ctx,
  );
  assert.deepEqual(files, [
    { path: 'src/a.ts', how: 'read', lines: [{ start: 1, end: 40 }] },
    { path: 'src/b.ts', how: 'read', lines: [{ start: 1, end: 25 }] },
    { path: 'src/c.ts', how: 'read', lines: [{ start: 1, end: 10 }] },
    { path: 'src/d.ts', how: 'read', lines: [{ start: 120, end: 180 }] },
    { path: 'src/e.ts', how: 'read', lines: [{ start: 1, end: 30 }] },
    { path: 'src/f.ts', how: 'read' },
  ]);
});

test("Copilot CLI's view_range and create, Amp's read_range, Qwen Code's absolute_path: lines read, files written", () => {
  const files = extractFiles(
    [
      msg('reply', '', {
        toolCalls: [
          { name: 'view', input: { path: '/home/dev/shop/src/cart.ts', view_range: [12, 30] } },
          // -1: to the end of the file, whose length the call does not say
          { name: 'view', input: { path: '/home/dev/shop/src/tax.ts', view_range: [5, -1] } },
          { name: 'create', input: { path: '/home/dev/shop/src/coupon.ts', file_text: 'export {}' } },
          { name: 'Read', input: { path: '/home/dev/shop/src/price.ts', read_range: [1, 8] } },
          { name: 'read_file', input: { absolute_path: '/home/dev/shop/README.md' } },
        ],
      }),
    ],
    ctx,
  );
  assert.deepEqual(files, [
    { path: 'src/coupon.ts', how: 'write' },
    { path: 'README.md', how: 'read' },
    { path: 'src/cart.ts', how: 'read', lines: [{ start: 12, end: 30 }] },
    { path: 'src/price.ts', how: 'read', lines: [{ start: 1, end: 8 }] },
    { path: 'src/tax.ts', how: 'read' },
  ]);
});

test('apply_patch headers, Aider "Applied edit to" and text mentions', () => {
  const patch = '*** Begin Patch\n*** Update File: src/api/routes.py\n@@\n-a\n+b\n*** Add File: docs/API.md\n*** End Patch';
  const files = extractFiles(
    [
      msg('prompt', 'The bug is in src/utils/format.ts, see also README.md and https://example.com/x.js'),
      msg('reply', '', { toolCalls: [{ name: 'apply_patch', input: patch }] }),
      msg('tool-results', '', { toolResults: [{ text: 'Applied edit to app/models.py', isError: false }] }),
    ],
    { cwd: workspace(['src/utils/format.ts', 'README.md']) },
  );
  assert.deepEqual(
    files.map((f) => `${f.path}:${f.how}`),
    ['docs/API.md:write', 'app/models.py:edit', 'src/api/routes.py:edit', 'README.md:mention', 'src/utils/format.ts:mention'],
  );
});

test('the path pattern finds in the runs of path characters holding a dot what it finds in the whole text', () => {
  // path characters, dots, extensions, separators of every kind, URLs, drives, a call, non-ASCII and space
  const pieces = ['a', 'Z', '9', '_', '.', '..', '/', '\\', ':', '~', '@', '+', '-', 'ts', 'tsx', 'md', 'json', 'Makefile', 'src/', './', '~/',
    'C:\\', '://', '(', ')', ' ', '\n', ',', '"', "'", 'é', '…', '😀', 'e.g.', 'v1.2.3', 'x.rs', 'index.d.ts', '.env'];
  let seed = 17;
  const next = (n: number): number => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % n;
  const texts = ['', '.', 'a.ts', 'see lib/x.rs, then ../y.md(1) and C:\\w\\z.py', ...Array.from({ length: 3_000 }, () =>
    Array.from({ length: 1 + next(40) }, () => pieces[next(pieces.length)]!).join(''))];
  for (const text of texts) {
    const whole = [...text.matchAll(PATH_RE)].map((m) => [m.index, m[1]]);
    const byRuns = pathRuns(text).flatMap(([start, end]) => [...text.slice(start, end).matchAll(PATH_RE)].map((m) => [start + m.index, m[1]]));
    assert.deepEqual(byRuns, whole, JSON.stringify(text));
  }
});

test("a read, edit or write tool's input holding a patch still gives the patch's files", () => {
  const patch = '*** Begin Patch\n*** Update File: src/a.py\n@@\n-a\n+b\n*** End Patch';
  const files = extractFiles(
    [msg('reply', '', { toolCalls: [{ name: 'Write', input: { file_path: '/home/dev/shop/notes/p.diff', content: patch } }, { name: 'Edit', input: { file_path: '/home/dev/shop/b.ts', edits: [{ new_string: patch.replace('src/a.py', 'src/c.py') }] } }] })],
    ctx,
  );
  assert.deepEqual(files.map((f) => `${f.path}:${f.how}`), ['notes/p.diff:write', 'b.ts:edit', 'src/a.py:edit', 'src/c.py:edit']);
});

test('mentions skip URLs, versions and abbreviations', () => {
  assert.deepEqual(mentionsIn('see https://a.io/b.js and v1.2.3, e.g. this, or i.e. that; but edit lib/x.rs and Makefile'), [
    'lib/x.rs',
    'Makefile',
  ]);
});

test("code in an agent's shell command is no file: `console.log`, `process.env`, a call", () => {
  // issue 39: a grep for console.log listed `console.log` as a file the exchange touched
  const files = extractFiles(
    [
      msg('reply', '', {
        toolCalls: [
          { name: 'Bash', input: { command: 'grep -rn "console.log" src/ && node -e "console.log(process.env.HOME)"' } },
          { name: 'Bash', input: { command: 'python -c "import app; app.run.sh()" && tail -n 20 logs/server.log' } },
        ],
      }),
    ],
    ctx,
  );
  assert.deepEqual(files.map((f) => f.path), ['logs/server.log']);
});

test('paths normalise to workspace-relative POSIX, Windows included', () => {
  assert.equal(normalisePath('/home/dev/shop/src/a.ts', ctx), 'src/a.ts');
  assert.equal(normalisePath('./src/a.ts:12-20', ctx), 'src/a.ts');
  assert.equal(normalisePath('/etc/hosts.txt', ctx), '/etc/hosts.txt');
  assert.equal(normalisePath('C:\\Users\\dev\\proj\\src\\main.cs', { cwd: 'C:\\Users\\dev\\proj' }), 'src/main.cs');
  assert.equal(normalisePath('c:\\users\\dev\\proj\\app.py', { cwd: 'C:\\Users\\dev\\proj' }), 'app.py');
  assert.equal(normalisePath('src/a.ts', { cwd: '/w/sub', workspaceRoot: '/w' }), 'sub/src/a.ts');
});

test("the same mention resolves against each conversation's own folder, however often it was seen", () => {
  const w = workspace(['app/src/util.ts', 'lib/src/util.ts']);
  const mention = [msg('prompt', 'the bug is in src/util.ts')];
  for (let round = 0; round < 2; round++) {
    assert.deepEqual(extractFiles(mention, { cwd: `${w}/app`, workspaceRoot: w }).map((f) => f.path), ['app/src/util.ts']);
    assert.deepEqual(extractFiles(mention, { cwd: `${w}/lib`, workspaceRoot: w }).map((f) => f.path), ['lib/src/util.ts']);
    assert.deepEqual(extractFiles(mention, { cwd: `${w}/lib` }).map((f) => f.path), ['src/util.ts']);
    assert.deepEqual(extractFiles(mention, { cwd: `${w}/docs` }).map((f) => f.path), [], 'no such file there');
    assert.deepEqual(extractFiles(mention, {}).map((f) => f.path), [], 'nowhere to resolve it');
  }
});

test('a name in prose is a file only when it resolves: a file the agent touched, or one on disk', () => {
  const cwd = workspace(['server/index.js']);
  const files = extractFiles(
    [
      msg('prompt', 'Upgrade Node.js and Nuxt.js, keep p5.js; the handler in index.js returns res.json too early. See server/index.js and lib/gone.ts'),
      msg('reply', 'I edited cart.ts and ran the tests.', {
        toolCalls: [
          { id: 'e', name: 'Edit', input: { file_path: `${cwd}/src/cart.ts` } },
          { id: 'b', name: 'Bash', input: { command: 'node scripts/seed.mjs' } },
        ],
      }),
    ],
    { cwd },
  );
  assert.deepEqual(files.map((f) => `${f.path}:${f.how}`), ['src/cart.ts:edit', 'scripts/seed.mjs:mention', 'server/index.js:mention']);
});

test('touches come strongest first, then by path, those with lines and without alike; a context naming no folder is one without it', () => {
  const calls = [
    { id: '1', name: 'Read', input: { file_path: '/home/dev/shop/b.ts', offset: 1, limit: 2 } },
    { id: '2', name: 'Write', input: { file_path: '/home/dev/shop/z.ts' } },
    { id: '3', name: 'Read', input: { file_path: '/home/dev/shop/a.ts' } },
    { id: '4', name: 'Edit', input: { file_path: '/home/dev/shop/c.ts' } },
    { id: '5', name: 'Write', input: { file_path: '/home/dev/shop/m.ts' } },
    { id: '6', name: 'Edit', input: { file_path: '/home/dev/shop/b2.ts' } },
  ];
  const messages = [
    msg('reply', 'see notes.md', { toolCalls: calls }),
    msg('tool-results', '', { toolResults: [{ toolUseId: '6', text: 'ok', isError: false, filePath: '/home/dev/shop/b2.ts', editedLines: [{ start: 3, end: 4 }] }] }),
  ];
  const files = extractFiles(messages, ctx);
  assert.deepEqual(files, [
    { path: 'm.ts', how: 'write' },
    { path: 'z.ts', how: 'write' },
    { path: 'b2.ts', how: 'edit', lines: [{ start: 3, end: 4 }] },
    { path: 'c.ts', how: 'edit' },
    { path: 'a.ts', how: 'read' },
    { path: 'b.ts', how: 'read', lines: [{ start: 1, end: 2 }] },
  ]);
  assert.deepEqual(extractFiles(messages, { cwd: '/home/dev/shop', workspaceRoot: undefined }), files);
  assert.deepEqual(extractFiles([msg('reply', 'nothing here', {})], { cwd: undefined, workspaceRoot: undefined }), []);
});
