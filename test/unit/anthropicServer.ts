import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local HTTP server speaking the part of the Anthropic Messages API the distiller uses
 * (`POST /v1/messages`), so the real SDK is exercised over real HTTP. Each request is answered by a
 * script; everything received is kept for assertions.
 */

export interface ReceivedRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: http.IncomingHttpHeaders;
  /** The raw body as it came over the wire (what "left the machine"). */
  readonly raw: string;
  readonly body: { model: string; max_tokens: number; messages: { role: string; content: string }[] };
  readonly at: number;
  /** Set when the client closed the connection before the answer was sent. */
  aborted: boolean;
}

export interface Reply {
  readonly status?: number;
  readonly headers?: Record<string, string>;
  /** An object is sent as JSON; a string as is. */
  readonly body?: unknown;
  readonly delayMs?: number;
  /** Never answer (timeouts, cancellation). */
  readonly hang?: boolean;
}

export type Script = (req: ReceivedRequest, index: number) => Reply;

export interface FakeAnthropic {
  readonly baseURL: string;
  readonly received: ReceivedRequest[];
  /** Most requests seen in flight at the same time. */
  readonly maxInFlight: () => number;
  close(): Promise<void>;
}

/** A successful Messages API answer whose text is `text`. */
export function messageReply(text: string, usage = { input_tokens: 900, output_tokens: 80 }): Reply {
  return {
    status: 200,
    body: {
      id: 'msg_test',
      type: 'message',
      role: 'assistant',
      model: 'claude-haiku-4-5',
      content: [{ type: 'text', text }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage,
    },
  };
}

/** An API error answer as the service formats it. */
export function errorReply(status: number, type: string, headers: Record<string, string> = {}): Reply {
  return { status, headers, body: { type: 'error', error: { type, message: `${type} (test server)` } } };
}

export async function startFakeAnthropic(script: Script): Promise<FakeAnthropic> {
  const received: ReceivedRequest[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const sockets = new Set<import('node:net').Socket>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: ReceivedRequest['body'];
      try {
        body = JSON.parse(raw) as ReceivedRequest['body'];
      } catch {
        res.writeHead(400).end('not JSON');
        return;
      }
      const rec: ReceivedRequest = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, raw, body, at: Date.now(), aborted: false };
      received.push(rec);
      if (req.method !== 'POST' || req.url?.split('?')[0] !== '/v1/messages') {
        res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ type: 'error', error: { type: 'not_found_error', message: req.url } }));
        return;
      }
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      let done = false;
      const finish = (): void => {
        if (!done) {
          done = true;
          inFlight--;
        }
      };
      res.on('close', () => {
        if (!res.writableEnded) rec.aborted = true;
        finish();
      });
      const reply = script(rec, received.length - 1);
      if (reply.hang) return;
      const send = (): void => {
        if (res.destroyed) return;
        const isText = typeof reply.body === 'string';
        res.writeHead(reply.status ?? 200, { 'content-type': isText ? 'text/plain' : 'application/json', 'request-id': `req_${received.length}`, ...reply.headers });
        res.end(isText ? (reply.body as string) : JSON.stringify(reply.body ?? {}));
        finish();
      };
      if (reply.delayMs) setTimeout(send, reply.delayMs);
      else send();
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}`,
    received,
    maxInFlight: () => maxInFlight,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
