/**
 * A local HTTP server that stands in for an LLM provider: it records every request exactly as received (method,
 * path with query, headers, raw and parsed body) and answers with scripted replies: JSON, text, Server-Sent Events
 * written in small chunks (to prove parsers handle any split), or no answer at all (to prove timeouts).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  /** Path and query, as sent. */
  path: string;
  headers: http.IncomingHttpHeaders;
  raw: string;
  /** The body parsed as JSON (undefined when it is not JSON). */
  body: unknown;
}

export type FakeReply =
  | { status?: number; headers?: Record<string, string>; json: unknown }
  | { status?: number; headers?: Record<string, string>; text: string }
  | {
      /** Events written as `event:` (when given) and `data:` lines, each followed by a blank line. */
      sse: Array<{ event?: string; data: string }>;
      /** Write the body in pieces of this many bytes (default: whole). */
      chunkBytes?: number;
      /** Close the connection without finishing the body after this many bytes. */
      cutAfterBytes?: number;
    }
  | { hang: true };

export interface FakeProvider {
  /** `http://127.0.0.1:<port>` */
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

/** Start a fake provider; `replies` are used in order (a function decides per request, 0-based). */
export async function startFakeProvider(replies: FakeReply[] | ((request: RecordedRequest, index: number) => FakeReply)): Promise<FakeProvider> {
  const requests: RecordedRequest[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: unknown;
      try {
        body = JSON.parse(raw);
      } catch {
        body = undefined;
      }
      const recorded: RecordedRequest = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, raw, body };
      requests.push(recorded);
      const index = requests.length - 1;
      const reply = typeof replies === 'function' ? replies(recorded, index) : replies[index];
      if (!reply) {
        res
          .writeHead(500, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: { message: `fake provider: no reply scripted for request ${index + 1}` } }));
        return;
      }
      void answer(reply, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function answer(reply: FakeReply, res: http.ServerResponse): Promise<void> {
  if ('hang' in reply) return;
  if ('json' in reply) {
    res.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...reply.headers }).end(JSON.stringify(reply.json));
    return;
  }
  if ('text' in reply) {
    res.writeHead(reply.status ?? 200, { 'content-type': 'text/plain', ...reply.headers }).end(reply.text);
    return;
  }
  const body = Buffer.from(reply.sse.map((e) => `${e.event ? `event: ${e.event}\n` : ''}data: ${e.data}\n\n`).join(''), 'utf8');
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const limit = reply.cutAfterBytes ?? body.length;
  const step = reply.chunkBytes ?? body.length;
  for (let at = 0; at < limit; at += step) {
    res.write(body.subarray(at, Math.min(at + step, limit)));
    // Give the client a chance to read each piece separately.
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  if (reply.cutAfterBytes !== undefined) res.destroy();
  else res.end();
}
