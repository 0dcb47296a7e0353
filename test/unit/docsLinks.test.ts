import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';

/**
 * The README and docs/ link into each other by file and heading; a heading renamed or a section moved leaves a
 * link that leads nowhere. Every relative link of README.md, CHANGELOG.md and docs/*.md must name a file that
 * exists and, when it has an anchor, a heading of that file (GitHub's slugs).
 */

const ROOT = path.resolve(__dirname, '../../..');

function docs(): string[] {
  const inDocs = readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => path.join('docs', f));
  return ['README.md', 'CHANGELOG.md', ...inDocs].filter((f) => existsSync(path.join(ROOT, f)));
}

/** The text outside fenced code blocks, where a `](…)` is a link. */
function prose(markdown: string): string {
  return markdown.replace(/^\s*```[\s\S]*?^\s*```/gm, '');
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens; repeats get -1, -2, … */
export function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const m of prose(markdown).matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const slug = m[1]!.toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    out.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return out;
}

function links(markdown: string): string[] {
  return [...prose(markdown).matchAll(/!?\[[^\]]*\]\(([^)\s]+)\)/g)].map((m) => m[1]!).filter((t) => !/^[a-z]+:/i.test(t));
}

test('every relative link of the README and docs/ leads to a file and heading that exist', () => {
  const broken: string[] = [];
  for (const doc of docs()) {
    const text = readFileSync(path.join(ROOT, doc), 'utf8');
    for (const target of links(text)) {
      const [file, anchor] = target.split('#') as [string, string | undefined];
      const resolved = file === '' ? path.join(ROOT, doc) : path.resolve(path.dirname(path.join(ROOT, doc)), file);
      if (!existsSync(resolved)) broken.push(`${doc}: ${target} (no such file)`);
      else if (anchor !== undefined && resolved.endsWith('.md') && !anchors(readFileSync(resolved, 'utf8')).has(anchor)) {
        broken.push(`${doc}: ${target} (no such heading)`);
      }
    }
  }
  assert.deepEqual(broken, []);
});

test("anchors are GitHub's: punctuation and code marks dropped, spaces as hyphens, repeated headings numbered", () => {
  const a = anchors("# Search\n## Design (`src/core/search/`, `src/core/embed/`)\n## Agents' databases (Cursor, Zed)\n## Notes\n## Notes\n```\n# not a heading\n```\n");
  assert.deepEqual([...a], ['search', 'design-srccoresearch-srccoreembed', 'agents-databases-cursor-zed', 'notes', 'notes-1']);
});
