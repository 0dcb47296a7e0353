import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';

type Zod = typeof import('zod/v4');
type ZodType = import('zod/v4').ZodType;

const ROOT = path.resolve(__dirname, '../../..');
type LazyInits = (text: string, fileName?: string, lazyRequires?: string[]) => { text: string; exports: number; locals: number };
const load = async (): Promise<LazyInits> =>
  ((await import(pathToFileURL(path.join(ROOT, 'scripts/lazyInit.mjs')).href)) as { lazyInits: LazyInits }).lazyInits;

/** Runs a CommonJS module's text with `z` as its zod, as its require gives it. */
function run(text: string, z: unknown): Record<string, unknown> {
  const module = { exports: {} as Record<string, unknown> };
  new Function('exports', 'require', 'module', text)(module.exports, () => z, module);
  return module.exports;
}

test('top-level zod schemas are built when first read, once, from the same expressions; the rest runs as written', async () => {
  const lazyInits = await load();
  const built: string[] = [];
  // a stand-in zod: each schema records that it was built, and what it was built from
  const schema = (name: string, parts: unknown[] = []): Record<string, unknown> => {
    built.push(name);
    return { name, parts, extend: (more: string) => schema(`${name}+${more}`, [more]) };
  };
  const z = { object: (shape: Record<string, unknown>) => schema(`object(${Object.keys(shape).join(',')})`, Object.values(shape)), string: () => schema('string') };
  const text = [
    '"use strict";',
    'exports.B = exports.A = exports.answer = void 0;',
    'const z = require("zod/v4");',
    'exports.answer = 42;',
    'const Base = z.object({ id: z.string() });',
    'exports.A = z.object({ base: Base, inner: { Base } });',
    'exports.B = exports.A.extend("more");',
    'const read = () => Base;',
    'exports.read = read;',
  ].join('\n');
  const out = lazyInits(text);
  assert.deepEqual([out.exports, out.locals], [2, 1]);
  assert.match(out.text, /^"use strict";\n/);
  const lazy = run(out.text, z);
  assert.deepEqual(built, [], 'nothing built at load');
  assert.equal(lazy['answer'], 42);
  const b = lazy['B'] as { name: string };
  assert.deepEqual(built, ['string', 'object(id)', 'object(base,inner)', 'object(base,inner)+more'], 'B built with what it is made of');
  assert.equal(b.name, 'object(base,inner)+more');
  assert.equal(lazy['B'], b, 'kept once built');
  assert.equal((lazy['read'] as () => unknown)(), (lazy['A'] as { parts: unknown[] }).parts[0], 'a local read through its getter is the one built');
  assert.deepEqual(((lazy['A'] as { parts: unknown[] }).parts[1] as { Base: unknown }).Base, (lazy['A'] as { parts: unknown[] }).parts[0], 'shorthand too');
  assert.equal(built.length, 4, 'nothing built twice');
  assert.deepEqual(Object.keys(lazy), Object.keys(run(text, z)), 'the same exports');
  assert.throws(() => lazyInits('const z = require("zod");\nconst S = z.string();\nfunction f(S) { return S; }'), /declared again/);
  assert.throws(() => lazyInits('const z = require("zod");\nexports.S = z.string();\nexports.S = z.string();'), /assigned twice/);
});

test("the MCP SDK's types.js: every export the same, its schemas built on first use", async () => {
  const lazyInits = await load();
  const file = createRequire(path.join(ROOT, 'package.json')).resolve('@modelcontextprotocol/sdk/types.js');
  const requireSdk = createRequire(file);
  const z = requireSdk('zod/v4') as Zod;
  const original = requireSdk(file) as Record<string, unknown>;
  const out = lazyInits(readFileSync(file, 'utf8'), file);
  const lazy = run(out.text, z);
  const schemas = Object.keys(original).filter((k) => k.endsWith('Schema'));
  assert.ok(schemas.length > 150, `${schemas.length} schemas`);
  const unbuilt = schemas.filter((k) => Object.getOwnPropertyDescriptor(lazy, k)?.get);
  assert.ok(unbuilt.length > 140, `${unbuilt.length} of ${schemas.length} not built at load`);
  assert.deepEqual(Object.keys(lazy).sort(), Object.keys(original).sort());
  for (const k of Object.keys(original)) {
    const [a, b] = [original[k], lazy[k]];
    if (a instanceof z.ZodType) {
      assert.ok(b instanceof z.ZodType, k);
      const json = (s: ZodType): string => JSON.stringify(z.toJSONSchema(s, { unrepresentable: 'any', io: 'input' }));
      assert.equal(json(b), json(a), k);
    } else if (typeof a !== 'function') assert.deepEqual(b, a, k);
  }
  const request = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'search', arguments: { query: 'x' } } };
  assert.deepEqual((lazy['CallToolRequestSchema'] as ZodType).parse(request), (original['CallToolRequestSchema'] as ZodType).parse(request));
});

test("the requires named are made on first use: the SDK's ajv-provider.js loads Ajv only when a validator is made", async () => {
  const lazyInits = await load();
  const file = createRequire(path.join(ROOT, 'package.json')).resolve('@modelcontextprotocol/sdk/validation/ajv-provider.js');
  const requireSdk = createRequire(file);
  const out = lazyInits(readFileSync(file, 'utf8'), file, ['ajv', 'ajv-formats']);
  assert.deepEqual([out.exports, out.locals], [0, 2]);
  const required: string[] = [];
  const module = { exports: {} as Record<string, unknown> };
  const spy = (id: string): unknown => {
    required.push(id);
    return requireSdk(id);
  };
  new Function('exports', 'require', 'module', out.text)(module.exports, spy, module);
  assert.deepEqual(required, [], 'nothing required at load');
  type Validator = new () => { getValidator(schema: object): (input: unknown) => { valid: boolean; errorMessage?: string } };
  const Lazy = module.exports['AjvJsonSchemaValidator'] as Validator;
  const Original = (requireSdk(file) as { AjvJsonSchemaValidator: Validator }).AjvJsonSchemaValidator;
  const schema = { type: 'object', properties: { email: { type: 'string', format: 'email' } }, required: ['email'] };
  const [lazy, original] = [new Lazy().getValidator(schema), new Original().getValidator(schema)];
  assert.deepEqual(required, ['ajv', 'ajv-formats'], 'Ajv and its formats required when a validator is made');
  for (const input of [{ email: 'a@b.example' }, { email: 'not an address' }, {}]) assert.deepEqual(lazy(input), original(input), JSON.stringify(input));
});
