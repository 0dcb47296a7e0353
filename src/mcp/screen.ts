import {
  CallToolRequestSchema,
  ErrorCode,
  InitializeRequestSchema,
  type JSONRPCMessage,
  JSONRPCMessageSchema,
  ListToolsRequestSchema,
  PingRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';

/**
 * What the server does with one parsed line before the SDK sees it. The SDK drops a line that is not a
 * JSON-RPC message without a word (a client waiting on its id hangs), and answers malformed params of a
 * method it serves with -32603 and zod's raw issue list. Here both get the JSON-RPC answer with a sentence:
 * -32600 (Invalid Request) to the id when the line has one, -32602 (Invalid params) saying which field is
 * wrong. A tool's own arguments are still checked by the SDK against the tool's schema, and come back as an
 * error result the model reads (MCP 2025-11-25: input validation errors are tool execution errors).
 */

export type RequestId = string | number;

/** A message the server will not pass on, and the error it answers with. */
export interface Refusal {
  /** The id to answer; null when the line has none a client could match. */
  readonly id: RequestId | null;
  readonly code: ErrorCode;
  readonly message: string;
}

export type Screened = { readonly message: JSONRPCMessage } | { readonly refusal: Refusal };

/** The requests this server serves (the SDK answers any other method with -32601), by method. */
const SERVED = new Map<string, z.ZodType>([
  ['initialize', InitializeRequestSchema],
  ['ping', PingRequestSchema],
  ['tools/list', ListToolsRequestSchema],
  ['tools/call', CallToolRequestSchema],
]);

export function screenMessage(value: unknown): Screened {
  const parsed = JSONRPCMessageSchema.safeParse(value);
  if (!parsed.success) return { refusal: { id: idOf(value), code: ErrorCode.InvalidRequest, message: `Invalid Request: ${whyNotAMessage(value)}` } };
  const message = parsed.data;
  if ('method' in message && 'id' in message) {
    const checked = SERVED.get(message.method)?.safeParse(message);
    if (checked && !checked.success) {
      const problems = checked.error.issues.slice(0, 3).map((i) => describeIssue(i, message));
      return { refusal: { id: message.id, code: ErrorCode.InvalidParams, message: `Invalid params for ${message.method}: ${problems.join('; ')}.` } };
    }
  }
  return { message };
}

/** The id of a line that is no valid message, when it has one a client could be waiting on. */
function idOf(value: unknown): RequestId | null {
  const id = isObject(value) ? value['id'] : undefined;
  return typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? id : null;
}

/** Why `value` is no JSON-RPC 2.0 message, in the order a reader would check. */
function whyNotAMessage(value: unknown): string {
  if (Array.isArray(value)) return 'batches are not supported; send one JSON-RPC message per line';
  if (!isObject(value)) return `a message is one JSON object per line, not ${kindOf(value)}`;
  if (value['jsonrpc'] !== '2.0') return '"jsonrpc" must be "2.0"';
  if ('id' in value && idOf(value) === null) return '"id" must be a string or a number';
  if (typeof value['id'] === 'number' && !Number.isInteger(value['id'])) return '"id" must be a string or an integer';
  if ('method' in value) {
    if (typeof value['method'] !== 'string') return '"method" must be a string';
    if ('params' in value && !isObject(value['params'])) return `"params" must be an object, not ${kindOf(value['params'])}`;
    const extra = Object.keys(value).filter((k) => !['jsonrpc', 'id', 'method', 'params'].includes(k));
    if (extra.length) return `unexpected member ${extra.map((k) => JSON.stringify(k)).join(', ')}`;
  } else if (!('result' in value) && !('error' in value)) {
    return 'a message needs a "method" (a request or notification), or a "result" or "error" (a response)';
  }
  return 'not a request, notification or response of JSON-RPC 2.0';
}

type Issue = z.core.$ZodIssue;

/** One problem as a sentence: `arguments must be an object, not an array`. */
function describeIssue(issue: Issue, message: unknown): string {
  // the error already names params; the path below it is what the client wrote
  const path = issue.path[0] === 'params' ? issue.path.slice(1) : issue.path;
  const where = path.length ? path.map(String).join('.') : 'params';
  if (issue.code === 'invalid_type') {
    const expected = EXPECTED[issue.expected] ?? issue.expected;
    const found = valueAt(message, issue.path);
    return found === undefined ? `${where} is missing (${expected})` : `${where} must be ${expected}, not ${kindOf(found)}`;
  }
  return `${where}: ${issue.message}`;
}

const EXPECTED: Record<string, string> = {
  record: 'an object',
  object: 'an object',
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  boolean: 'true or false',
  array: 'an array',
};

function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  let v = value;
  for (const key of path) v = isObject(v) || Array.isArray(v) ? (v as Record<PropertyKey, unknown>)[key] : undefined;
  return v;
}

function kindOf(v: unknown): string {
  if (v === undefined) return 'missing';
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  return typeof v === 'object' ? 'an object' : `a ${typeof v}`;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
