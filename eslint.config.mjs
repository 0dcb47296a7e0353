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
    files: ['src/core/search/**/*.ts', 'src/core/distill/**/*.ts', 'src/core/sources/**/*.ts'],
    rules: restrict([VSCODE], FRONT_ENDS, FRONT_DOOR, {
      group: ['../indexer', '../recall', '../eval/*'],
      message: 'A stage never imports the orchestration (indexer), the recall session or the evaluation above it.',
    }),
  },
  {
    // no-restricted-imports sees import statements only; a require() or import() of vscode is caught here
    files: ['src/core/**/*.ts', 'src/cli.ts', 'src/searchCli.ts', 'src/mcp/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        { selector: "CallExpression[callee.name='require'][arguments.0.value='vscode']", message: VSCODE.message },
        { selector: "ImportExpression[source.value='vscode']", message: VSCODE.message },
      ],
    },
  },
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
