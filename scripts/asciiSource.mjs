// A TypeScript source with the non-ASCII characters of its regular expression literals and `String.raw` templates
// written as escapes, for esbuild.mjs: esbuild escapes every other string (its output is ASCII) but leaves those two
// as written, and one such character makes the whole bundle UTF-8 that Node decodes into a two-byte string: the MCP
// server's 1.2 MB bundle took ~30 ms to read at every start instead of ~6 (as ASCII, V8 takes it in one-byte form).
// The same values: in a regular expression `\uXXXX` is the character it names (a pair of escaped surrogates, one code
// point, in unicode mode), and String.raw puts a substitution's value in as it is.
import { createRequire } from 'node:module';

const NOT_ASCII = /[^\0-\x7f]/;
const NOT_ASCII_ALL = /[^\0-\x7f]/g;

/** `text` with those characters escaped, or `text` itself when it has none. */
export function asciiSource(text, fileName = 'source.ts') {
  if (!NOT_ASCII.test(text)) return text;
  const ts = createRequire(import.meta.url)('typescript');
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  /** [start, end, replacement] of each literal part to rewrite, in the order met (never overlapping). */
  const edits = [];
  const unit = (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
  const visit = (node) => {
    if (ts.isRegularExpressionLiteral(node) && NOT_ASCII.test(node.text)) {
      // an escaped non-ASCII character (`\…`, legal outside unicode mode) would become `\\u2026`: none is written so
      if (/(^|[^\\])(\\\\)*\\[^\0-\x7f]/.test(node.text)) throw new Error(`${fileName}: an escaped non-ASCII character in ${node.text}`);
      edits.push([node.getStart(source), node.getEnd(), node.text.replace(NOT_ASCII_ALL, unit)]);
    } else if (ts.isTaggedTemplateExpression(node) && node.tag.getText(source) === 'String.raw') {
      const parts = ts.isNoSubstitutionTemplateLiteral(node.template) ? [node.template] : [node.template.head, ...node.template.templateSpans.map((s) => s.literal)];
      for (const part of parts) {
        const raw = part.getText(source);
        if (!NOT_ASCII.test(raw)) continue;
        // `\…` would become `\${…}`, no substitution: none is written so
        if (/(^|[^\\])(\\\\)*\\[^\0-\x7f]/.test(raw)) throw new Error(`${fileName}: an escaped non-ASCII character in ${raw}`);
        // each code point as a substitution of its escaped string
        const escaped = raw.replace(/[^\0-\x7f]/gu, (c) => `\${'${c.split('').map(unit).join('')}'}`);
        edits.push([part.getStart(source), part.getEnd(), escaped]);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  let out = '';
  let at = 0;
  for (const [start, end, replacement] of edits.sort((a, b) => a[0] - b[0])) {
    out += text.slice(at, start) + replacement;
    at = end;
  }
  return out + text.slice(at);
}
