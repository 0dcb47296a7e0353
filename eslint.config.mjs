// The layer rules of DESIGN.md, checked by ESLint at error level (`npm run lint`, and the lint layer of
// `npm test`). Dependencies point down: host/ and the CLI ask core's front door (core/memory.ts), core never
// imports vscode or the front ends, the store keeps to storage, the webview imports protocol types only.
import tseslint from 'typescript-eslint';

const VSCODE = { name: 'vscode', message: 'core/ and the CLI are pure Node: only src/host/ and src/extension.ts talk to VS Code.' };

/** Imports of these modules from core/ point upward: the front ends sit on core, never under it. */
const FRONT_ENDS = {
  group: ['**/host/*', '**/extension', '**/protocol', '**/cli', '**/searchCli', '**/webview/*'],
  message: 'core/ never imports the front ends (host, extension, protocol, CLI, webview).',
};
/** core/memory.ts is core's top: nothing inside core depends on the front door. */
const FRONT_DOOR = { group: ['**/memory'], message: 'core/memory.ts is the front door: core modules never import it.' };

/** What a front end may not reach past memory.ts: the store, its query functions and the pipeline stages. */
const CORE_INTERNALS = {
  group: ['**/core/store/*', '**/core/indexer', '**/core/search/searcher', '**/core/embed/stage', '**/core/distill/stage'],
  message: 'Ask core/memory.ts (Memory): the store, its db handle and the pipeline stages stay inside core.',
};

/**
 * search/ ranks and store/ reads (DESIGN.md: the schema in store/, the ranking in search/): search asks
 * store/searchReads.ts and never holds the database handle, so a change of schema is made in store/ alone.
 */
const SEARCH_READS = 'search/ ranks, store/ reads: ask store/searchReads.ts (SearchReads); search never holds the database handle or writes SQL.';
const SQLITE = [
  { name: '@vscode/sqlite3', message: SEARCH_READS },
  { name: 'sqlite-vec', message: SEARCH_READS },
];
const DB_HANDLE = { group: ['**/store/db', '**/store/store'], message: SEARCH_READS };

/** require() or import() of vscode: no-restricted-imports sees import statements only. */
const VSCODE_SYNTAX = [
  { selector: "CallExpression[callee.name='require'][arguments.0.value='vscode']", message: VSCODE.message },
  { selector: "ImportExpression[source.value='vscode']", message: VSCODE.message },
];
/** A statement run on a handle (`db.all(...)`, `this.db.get(...)`, `reader.run(...)`): the handle's methods by name. */
const DB_METHOD = '/^(all|get|run|exec|prepare|each|insertRows|transaction|snapshot)$/';
const DB_CALLS = [
  { selector: `CallExpression[callee.property.name=${DB_METHOD}][callee.object.name=/^(db|reader)$/]`, message: SEARCH_READS },
  { selector: `CallExpression[callee.property.name=${DB_METHOD}][callee.object.property.name=/^(db|reader)$/]`, message: SEARCH_READS },
];

/** What a pipeline stage may not import. */
const STAGE = {
  group: ['../indexer', '../recall', '../eval/*'],
  message: 'A stage never imports the orchestration (indexer), the recall session or the evaluation above it.',
};

/** `no-restricted-imports` replaces its options per file, so each block lists every pattern that applies. */
const restrict = (paths, ...patterns) => ({ 'no-restricted-imports': ['error', { paths, patterns }] });

export default tseslint.config(
  { ignores: ['dist/**', 'out/**', '.cache/**', 'node_modules/**', 'bench-results/**', 'test/**', '*.mjs'] },
  {
    files: ['src/**/*.ts', 'webview/**/*.ts'],
    languageOptions: { parser: tseslint.parser, ecmaVersion: 2022, sourceType: 'module' },
    plugins: { '@typescript-eslint': tseslint.plugin },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
  },
  {
    files: ['src/core/**/*.ts'],
    ignores: ['src/core/memory.ts'],
    rules: restrict([VSCODE], FRONT_ENDS, FRONT_DOOR),
  },
  { files: ['src/core/memory.ts'], rules: restrict([VSCODE], FRONT_ENDS) },
  {
    files: ['src/core/store/**/*.ts'],
    rules: restrict([VSCODE], FRONT_ENDS, FRONT_DOOR, {
      group: ['../distill/*', '../embed/*', '../search/*', '../eval/*', '../indexer', '../recall'],
      message: 'store/ is the bottom of the pipeline: it keeps rows and never imports distill/, embed/, search/ or the orchestration.',
    }),
  },
  {
    files: ['src/core/embed/**/*.ts'],
    rules: restrict([VSCODE], FRONT_ENDS, FRONT_DOOR, {
      group: ['../search/*', '../eval/*', '../indexer', '../recall'],
      message: 'embed/ writes vectors; search/ reads them. embed never imports search/ or the orchestration.',
    }),
  },
  {
    files: ['src/core/distill/**/*.ts', 'src/core/sources/**/*.ts'],
    rules: restrict([VSCODE], FRONT_ENDS, FRONT_DOOR, STAGE),
  },
  { files: ['src/core/search/**/*.ts'], rules: restrict([VSCODE, ...SQLITE], FRONT_ENDS, FRONT_DOOR, STAGE, DB_HANDLE) },
  {
    // no-restricted-imports sees import statements only; a require() or import() of vscode is caught here
    files: ['src/core/**/*.ts', 'src/cli.ts', 'src/searchCli.ts', 'src/mcp/**/*.ts'],
    rules: { 'no-restricted-syntax': ['error', ...VSCODE_SYNTAX] },
  },
  // the rule's options are replaced per file too: search/ lists vscode's again
  { files: ['src/core/search/**/*.ts'], rules: { 'no-restricted-syntax': ['error', ...VSCODE_SYNTAX, ...DB_CALLS] } },
  { files: ['src/host/**/*.ts', 'src/extension.ts'], rules: restrict([], CORE_INTERNALS) },
  { files: ['src/cli.ts', 'src/searchCli.ts'], rules: restrict([VSCODE], CORE_INTERNALS, { group: ['**/host/*'], message: 'The CLI never imports the VS Code host.' }) },
  { files: ['src/mcp/**/*.ts'], rules: restrict([VSCODE], CORE_INTERNALS, { group: ['**/host/*', '**/extension'], message: 'The MCP server is a front end of its own: it asks core/memory.ts, never the VS Code host.' }) },
  {
    files: ['webview/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            // browser libraries bundled into the viewer: markdown-it (tokenizer) and highlight.js (code colours)
            {
              regex: '^(?!\\.\\./src/(?:viewerP|p)rotocol$|\\./dom$|markdown-it(?:/|$)|highlight\\.js/)',
              message: 'The webview runs in a browser: it imports nothing but the protocol modules, its DOM helpers and its browser libraries.',
            },
            {
              regex: '^\\.\\./src/(?:viewerP|p)rotocol$',
              allowTypeImports: true,
              message: 'The webview imports protocol TYPES only (`import type`): no code crosses over.',
            },
          ],
        },
      ],
    },
  },
);
