import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';

const ROOT = path.resolve(__dirname, '../../..');

test("the sample workspace (npm start) type-checks as the editor reads it: no errors in the Problems panel (issue 39: it showed 7)", async () => {
  const { APP_FILES } = (await import(pathToFileURL(path.join(ROOT, 'test/sample/app.mjs')).href)) as { APP_FILES: Record<string, string> };
  const dir = mkdtempSync(path.join(tmpdir(), 'sample-ts-'));
  try {
    for (const [file, text] of Object.entries(APP_FILES)) {
      mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
      writeFileSync(path.join(dir, file), text);
    }
    // its tsconfig.json when it has one, else what the editor assumes for loose files
    const configFile = ts.findConfigFile(dir, ts.sys.fileExists);
    const parsed = configFile
      ? ts.parseJsonConfigFileContent(ts.readConfigFile(configFile, ts.sys.readFile).config, ts.sys, dir)
      : { options: { jsx: ts.JsxEmit.Preserve, noEmit: true }, fileNames: Object.keys(APP_FILES).filter((f) => /\.tsx?$/.test(f)).map((f) => path.join(dir, f)) };
    const program = ts.createProgram(parsed.fileNames, parsed.options);
    const errors = ts.getPreEmitDiagnostics(program).map((d) => `${d.file ? path.relative(dir, d.file.fileName) : ''}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`);
    assert.ok(parsed.fileNames.some((f) => f.endsWith('.tsx')), 'the React components are checked too');
    assert.deepEqual(errors, []);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
