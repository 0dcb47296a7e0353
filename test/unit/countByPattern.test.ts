import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { countByPattern, countTokens } from '../../src/core/tokens';

// the MCP server's counts (countByPattern: pieces by cl100k's pattern) equal the indexer's (pieceEnd), text by text;
// texts of every class, and this repository's own docs (prose, code, tables, long runs past the long-run guard)
test('counting by the pattern gives the counts pieceEnd gives', () => {
  const root = path.join(__dirname, '..', '..', '..');
  const docs = ['README.md', 'CHANGELOG.md', 'docs/benchmarks.md'].map((f) => readFileSync(path.join(root, f), 'utf8'));
  const texts = [
    "User: they're we'll I'M you'VE it's 'sam 'LL 'Re '' ' 's",
    '  \n  hello\r\n\r\n\tworld   \u00a0word\u3000漢字 end   ',
    'numbers 1234567 3.14 ٣٤٥٦ 𝟘𝟙𝟚𝟛 x2 2x emoji 🙂🚀hello 👍🏽 (paren) lone \ud800 high',
    'Привет, мир! 数据库连接失败，请检查配置。 안녕하세요',
    `${'x'.repeat(300)} then a long run`,
    ...docs.flatMap((d) => d.split('\n\n')),
  ];
  const before = texts.map(countTokens);
  countByPattern();
  assert.deepEqual(texts.map(countTokens), before);
});
