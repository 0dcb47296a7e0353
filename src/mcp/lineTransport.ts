import type { Readable, Writable } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { RequestIdScanner } from './requestId';
import { type Refusal, type RequestId, screenMessage } from './screen';

/**
 * MCP's stdio framing (one JSON-RPC message per line, UTF-8), in place of the SDK's StdioServerTransport,
 * which the SDK's protocol layer runs on unchanged. The SDK's transport keeps one buffer for all unread input
 * and, past 10 MiB, closes the connection: the server exits 0 with nothing said and every request in flight
 * is lost. It also drops lines that are not JSON or not JSON-RPC without an answer, and answers nothing that
 * is still running when the client ends its input. Here:
 * - a line longer than `maxLineBytes` is read past in constant memory and answered with -32600 (to its id,
 *   found while it streams past: requestId.ts); the lines after it are served as usual;
 * - a line that is not JSON is answered with -32700, one that is no JSON-RPC message with -32600 (screen.ts);
 * - when the input ends, the requests already read are answered before the connection closes.
 */

/** The longest request line read: a call of these tools is a few KB (a query is at most 2,000 characters). */
export const MAX_LINE_BYTES = 1024 * 1024;

const NEWLINE = 0x0a;

export class LineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  /** The parts of the line being read, while it is within the limit. */
  private parts: Buffer[] = [];
  private partBytes = 0;
  /** The line being read past once it has outgrown the limit. */
  private oversized: { readonly ids: RequestIdScanner; bytes: number } | undefined;
  /** Requests passed on and not answered yet: the connection closes after them once the input has ended. */
  private readonly inFlight = new Set<RequestId>();
  /** Lines written and not yet taken by the output. */
  private writing = 0;
  private inputEnded = false;
  private closed = false;

  constructor(
    private readonly input: Readable = process.stdin,
    private readonly output: Writable = process.stdout,
    private readonly maxLineBytes = MAX_LINE_BYTES,
  ) {}

  async start(): Promise<void> {
    this.input.on('data', this.onData);
    this.input.on('end', this.onEnd);
    this.input.on('error', this.onStreamError);
    // a client gone mid-answer (EPIPE) ends the session instead of the process
    this.output.on('error', this.onStreamError);
  }

  send(message: JSONRPCMessage): Promise<void> {
    if ('id' in message && message.id !== undefined && ('result' in message || 'error' in message)) this.inFlight.delete(message.id);
    return this.write(message);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.input.off('data', this.onData);
    this.input.off('end', this.onEnd);
    this.input.off('error', this.onStreamError);
    this.output.off('error', this.onStreamError);
    this.input.pause();
    this.parts = [];
    this.oversized = undefined;
    this.onclose?.();
  }

  private readonly onData = (chunk: Buffer | string): void => {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    let start = 0;
    while (start < bytes.length && !this.closed) {
      const newline = bytes.indexOf(NEWLINE, start);
      this.take(bytes.subarray(start, newline === -1 ? bytes.length : newline));
      if (newline === -1) return;
      this.endLine();
      start = newline + 1;
    }
  };

  private readonly onEnd = (): void => {
    // a last line without its newline is still a line
    if (this.partBytes > 0 || this.oversized) this.endLine();
    this.inputEnded = true;
    this.closeIfDone();
  };

  private readonly onStreamError = (error: Error): void => {
    this.onerror?.(error);
    void this.close();
  };

  /** Adds a piece of the current line: kept while the line is within the limit, else only scanned. */
  private take(piece: Buffer): void {
    if (!this.oversized && this.partBytes + piece.length > this.maxLineBytes) {
      this.oversized = { ids: new RequestIdScanner(), bytes: this.partBytes };
      for (const part of this.parts) this.oversized.ids.push(part);
      this.parts = [];
      this.partBytes = 0;
    }
    if (this.oversized) {
      this.oversized.ids.push(piece);
      this.oversized.bytes += piece.length;
    } else if (piece.length > 0) {
      this.parts.push(piece);
      this.partBytes += piece.length;
    }
  }

  private endLine(): void {
    const oversized = this.oversized;
    const line = oversized ? '' : Buffer.concat(this.parts, this.partBytes).toString('utf8');
    this.parts = [];
    this.partBytes = 0;
    this.oversized = undefined;
    if (oversized) {
      this.refuse({
        id: oversized.ids.id,
        code: ErrorCode.InvalidRequest,
        message: `Request too large: ${oversized.bytes} bytes on one line, more than the ${this.maxLineBytes} bytes (${this.maxLineBytes / 1024 / 1024} MiB) a request may have.`,
      });
      return;
    }
    if (!line.trim()) return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (err) {
      this.refuse({ id: null, code: ErrorCode.ParseError, message: `Parse error: the line is not JSON (${(err as Error).message}).` });
      return;
    }
    const screened = screenMessage(value);
    if ('refusal' in screened) return this.refuse(screened.refusal);
    this.deliver(screened.message);
  }

  private deliver(message: JSONRPCMessage): void {
    if ('method' in message) {
      if ('id' in message) this.inFlight.add(message.id);
      // a cancelled request is never answered (the SDK drops its result)
      else if (message.method === 'notifications/cancelled') this.inFlight.delete(message.params?.['requestId'] as RequestId);
    }
    this.onmessage?.(message);
  }

  /** Answers a line that is passed on to nothing, and tells the log why. */
  private refuse(refusal: Refusal): void {
    this.onerror?.(new Error(`answered ${refusal.code} to a line it could not serve: ${refusal.message}`));
    void this.write({ jsonrpc: '2.0', id: refusal.id, error: { code: refusal.code, message: refusal.message } }).catch(() => undefined);
  }

  /** One message, one line; resolves once the output has taken it (waits for a full pipe to drain). */
  private write(message: object): Promise<void> {
    this.writing++;
    return new Promise<void>((resolve, reject) => {
      this.output.write(`${JSON.stringify(message)}\n`, (err) => (err ? reject(err) : resolve()));
    }).finally(() => {
      this.writing--;
      this.closeIfDone();
    });
  }

  /** Once the input has ended, the connection closes when every request read is answered and written. */
  private closeIfDone(): void {
    if (this.inputEnded && this.inFlight.size === 0 && this.writing === 0) void this.close();
  }
}
