import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';

const SRC = path.resolve(__dirname, '../../../src');
const WEBVIEW = path.resolve(__dirname, '../../../webview');

function tsFiles(dir: string): string[] {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries.flatMap((e) => {
    const full = path.join(dir, e.name);
    return e.isDirectory() ? tsFiles(full) : e.name.endsWith('.ts') ? [full] : [];
  });
}

const IMPORTS_VSCODE = /(?:from\s+['"]vscode['"]|require\(\s*['"]vscode['"]\s*\)|import\(\s*['"]vscode['"]\s*\))/;

test('core/ never imports vscode (DESIGN.md layers)', () => {
  const files = tsFiles(path.join(SRC, 'core'));
  assert.ok(files.length > 10, 'core sources found');
  const offenders = files.filter((f) => IMPORTS_VSCODE.test(readFileSync(f, 'utf8')));
  assert.deepEqual(offenders, []);
});

test('core/ never imports from host/ or the extension entry', () => {
  const offenders = tsFiles(path.join(SRC, 'core')).filter((f) =>
    /from\s+['"](?:\.\.\/)+(?:host|extension)/.test(readFileSync(f, 'utf8')),
  );
  assert.deepEqual(offenders, []);
});

test('webview/ imports neither vscode nor Node built-ins', () => {
  const offenders = tsFiles(WEBVIEW).filter((f) => {
    const text = readFileSync(f, 'utf8');
    return IMPORTS_VSCODE.test(text) || /from\s+['"]node:/.test(text);
  });
  assert.deepEqual(offenders, []);
});
