import assert from 'node:assert/strict';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { ESLint } from 'eslint';

/**
 * The layer rules live in eslint.config.mjs and run over the whole tree in the lint layer of `npm test`.
 * These cases show that each rule fires (a rule that never fires would pass the lint layer too) and that the
 * imports the design allows stay allowed.
 */
const ROOT = path.resolve(__dirname, '../../..');
const eslint = new ESLint({ cwd: ROOT });

async function layerErrors(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(`${code}\nexport {};\n`, { filePath: path.join(ROOT, file) });
  return result!.messages.filter((m) => m.severity === 2).map((m) => `${m.ruleId}: ${m.message}`);
}

const FORBIDDEN: ReadonlyArray<[file: string, code: string, why: RegExp]> = [
  ['src/core/x.ts', "import * as vscode from 'vscode'; void vscode;", /pure Node/],
  ['src/core/x.ts', "const vscode = require('vscode'); void vscode;", /pure Node/],
  ['src/core/x.ts', "void import('vscode');", /pure Node/],
  ['src/core/x.ts', "import { log } from '../host/log'; void log;", /never imports the front ends/],
  ['src/core/x.ts', "import type { HostMessage } from '../protocol';", /never imports the front ends/],
  ['src/core/x.ts', "import { Memory } from './memory'; void Memory;", /front door/],
  ['src/core/search/x.ts', "import type { Memory } from '../memory';", /front door/],
  ['src/core/search/x.ts', "import sqlite3 from '@vscode/sqlite3'; void sqlite3;", /search never holds the database handle/],
  ['src/core/search/x.ts', "import type { Db } from '../store/db';", /search never holds the database handle/],
  ['src/core/search/x.ts', "import type { Store } from '../store/store';", /search never holds the database handle/],
  ['src/core/search/x.ts', "declare const db: { all(sql: string): void }; db.all('SELECT n FROM exchanges');", /search never holds the database handle/],
  ['src/core/search/x.ts', "declare const store: { db: { get(sql: string): void } }; store.db.get('SELECT 1');", /search never holds the database handle/],
  ['src/core/search/x.ts', "void require('vscode');", /pure Node/],
  ['src/core/store/x.ts', "import type { Distiller } from '../distill/distiller';", /store\/ is the bottom/],
  ['src/core/store/x.ts', "import { embedStore } from '../embed/stage'; void embedStore;", /store\/ is the bottom/],
  ['src/core/store/x.ts', "import type { Hit } from '../search/types';", /store\/ is the bottom/],
  ['src/core/embed/x.ts', "import type { SearchQuery } from '../search/types';", /embed never imports search/],
  ['src/core/distill/x.ts', "import { indexWorkspace } from '../indexer'; void indexWorkspace;", /orchestration/],
  ['src/host/x.ts', "import { Store } from '../core/store/store'; void Store;", /Ask core\/memory\.ts/],
  ['src/host/x.ts', "import { exchangeListings } from '../core/store/browse'; void exchangeListings;", /Ask core\/memory\.ts/],
  ['src/host/x.ts', "import { indexWorkspace } from '../core/indexer'; void indexWorkspace;", /Ask core\/memory\.ts/],
  ['src/extension.ts', "import { createSearcher } from './core/search/searcher'; void createSearcher;", /Ask core\/memory\.ts/],
  ['src/cli.ts', "import { Store } from './core/store/store'; void Store;", /Ask core\/memory\.ts/],
  ['src/cli.ts', "import * as vscode from 'vscode'; void vscode;", /pure Node/],
  ['webview/x.ts', "import { isWebviewMessage } from '../src/protocol'; void isWebviewMessage;", /TYPES only/],
  ['webview/x.ts', "import { readFileSync } from 'node:fs'; void readFileSync;", /nothing but the protocol/],
  ['webview/x.ts', "import type { Hit } from '../src/core/model';", /nothing but the protocol/],
  ['webview/x.ts', "import { isViewerRequest } from '../src/viewerProtocol'; void isViewerRequest;", /TYPES only/],
];

const ALLOWED: ReadonlyArray<[file: string, code: string]> = [
  ['src/host/x.ts', "import { Memory } from '../core/memory'; void Memory;"],
  ['src/host/x.ts', "import * as vscode from 'vscode'; void vscode;"],
  ['src/core/memory.ts', "import { Store } from './store/store'; void Store;"],
  ['src/core/search/x.ts', "import { createVectorTable } from '../store/vectors'; void createVectorTable;"],
  ['src/core/search/x.ts', "import type { SearchReads } from '../store/searchReads'; declare const reads: SearchReads; void reads.hitRows([1], new Map());"],
  ['src/core/search/x.ts', "const rows = new Map<number, string>(); void rows.get(1);"],
  ['src/core/store/x.ts', "import type { Layer } from '../model';"],
  ['webview/x.ts', "import type { HostMessage } from '../src/protocol';"],
  ['webview/x.ts', "import MarkdownIt from 'markdown-it'; void MarkdownIt;"],
  ['webview/x.ts', "import { el } from './dom'; void el;"],
];

describe('layer rules (eslint.config.mjs)', () => {
  for (const [file, code, why] of FORBIDDEN) {
    test(`forbids in ${file}: ${code.split(';')[0]}`, async () => {
      const errors = await layerErrors(file, code);
      assert.equal(errors.length, 1, errors.join('\n') || 'no error');
      assert.match(errors[0]!, why);
    });
  }
  for (const [file, code] of ALLOWED) {
    test(`allows in ${file}: ${code.split(';')[0]}`, async () => {
      assert.deepEqual(await layerErrors(file, code), []);
    });
  }
});
