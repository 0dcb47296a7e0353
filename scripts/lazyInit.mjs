// A CommonJS module of the MCP SDK (as tsc writes it) with what it makes at load made on first use instead, for
// esbuild.mjs. Its types.js builds ~250 zod schemas at load (the whole protocol, both sides), and a server's first
// answer uses a few dozen; its ajv-provider.js loads Ajv and its formats (~130 KB of bundle), used only to check what a
// client answers to a server's elicitation, which this server never asks. Each top-level `exports.NAME = <init>;` and
// `const NAME = <init>;` whose init is a zod expression (a chain rooted at `z`, or at a value made so) or the require of
// a module named in `lazyRequires` becomes a getter that makes the value when first read and then keeps it as a plain
// property; the file's references to such a local read it through that getter. The same values, made by the same
// expressions, only later and only when used.
import { createRequire } from 'node:module';

const HELPERS =
  'function __lazyInit(target, name, make) {\n' +
  '  Object.defineProperty(target, name, { configurable: true, enumerable: true, get() {\n' +
  '    const value = make();\n' +
  '    Object.defineProperty(target, name, { value, writable: true, enumerable: true, configurable: true });\n' +
  '    return value;\n' +
  '  } });\n' +
  '}\n' +
  'const __lazyLocals = {};\n';

/**
 * `text` (a CommonJS module as tsc writes it) with its top-level zod schemas, and the requires of `lazyRequires`, made on
 * first use; throws where that would not be the same program.
 */
export function lazyInits(text, fileName = 'module.js', lazyRequires = []) {
  const ts = createRequire(import.meta.url)('typescript');
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
  const lazyExports = new Set();
  const lazyLocals = new Set();
  /** [start, end, replacement], never overlapping */
  const edits = [];
  const isExportsName = (node) => ts.isPropertyAccessExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'exports';
  // `require("M")` or tsc's `__importDefault(require("M"))` / `__importStar(require("M"))`, M one of lazyRequires
  const isRequire = (node) =>
    ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.arguments.length === 1 &&
    (node.expression.text === 'require'
      ? ts.isStringLiteral(node.arguments[0]) && lazyRequires.includes(node.arguments[0].text)
      : ['__importDefault', '__importStar'].includes(node.expression.text) && isRequire(node.arguments[0]));
  // a zod expression: a call or property chain whose root is `z`, or a value already made lazy
  const isLazy = (node) => {
    if (isRequire(node)) return true;
    if (!ts.isCallExpression(node) && !ts.isPropertyAccessExpression(node)) return false;
    let root = node;
    while (ts.isCallExpression(root) || ts.isPropertyAccessExpression(root) || ts.isElementAccessExpression(root)) {
      if (isExportsName(root)) return lazyExports.has(root.name.text);
      root = root.expression;
    }
    return ts.isIdentifier(root) && (root.text === 'z' || lazyLocals.has(root.text));
  };
  const wrap = (statement, target, name, init) => {
    edits.push([statement.getStart(source), init.getStart(source), `__lazyInit(${target}, ${JSON.stringify(name)}, () => (`]);
    edits.push([init.getEnd(), statement.getEnd(), '));']);
  };
  for (const statement of source.statements) {
    if (ts.isExpressionStatement(statement)) {
      const e = statement.expression;
      if (ts.isBinaryExpression(e) && e.operatorToken.kind === ts.SyntaxKind.EqualsToken && isExportsName(e.left) && isLazy(e.right)) {
        // assigned once: a second assignment would be overwritten by the getter's first read
        if (lazyExports.has(e.left.name.text)) throw new Error(`${fileName}: exports.${e.left.name.text} is assigned twice`);
        lazyExports.add(e.left.name.text);
        wrap(statement, 'exports', e.left.name.text, e.right);
      }
    } else if (ts.isVariableStatement(statement) && statement.declarationList.flags & ts.NodeFlags.Const && statement.declarationList.declarations.length === 1) {
      const d = statement.declarationList.declarations[0];
      if (ts.isIdentifier(d.name) && d.initializer && isLazy(d.initializer)) {
        lazyLocals.add(d.name.text);
        wrap(statement, '__lazyLocals', d.name.text, d.initializer);
      }
    }
  }
  // every reference to a lazy local reads it through its getter; a name declared again inside would be another binding
  const visit = (node) => {
    if (ts.isIdentifier(node) && lazyLocals.has(node.text)) {
      const p = node.parent;
      const declared =
        (ts.isVariableDeclaration(p) || ts.isParameter(p) || ts.isFunctionDeclaration(p) || ts.isClassDeclaration(p) || ts.isBindingElement(p)) && p.name === node;
      if (declared && !(ts.isVariableDeclaration(p) && p.parent.parent.parent === source)) throw new Error(`${fileName}: ${node.text} is declared again inside`);
      const named = (ts.isPropertyAccessExpression(p) && p.name === node) || (ts.isPropertyAssignment(p) && p.name === node) || declared;
      if (ts.isShorthandPropertyAssignment(p)) edits.push([node.getStart(source), node.getEnd(), `${node.text}: __lazyLocals.${node.text}`]);
      else if (!named) edits.push([node.getStart(source), node.getEnd(), `__lazyLocals.${node.text}`]);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  edits.sort((a, b) => a[0] - b[0]);
  let out = '';
  let at = 0;
  for (const [start, end, replacement] of edits) {
    if (start < at) throw new Error(`${fileName}: overlapping rewrites at ${start}`);
    out += text.slice(at, start) + replacement;
    at = end;
  }
  out += text.slice(at);
  // after tsc's prologue ("use strict" stays the first statement)
  const useStrict = /^"use strict";\n/.exec(out);
  return { text: useStrict ? `${useStrict[0]}${HELPERS}${out.slice(useStrict[0].length)}` : `${HELPERS}${out}`, exports: lazyExports.size, locals: lazyLocals.size };
}
