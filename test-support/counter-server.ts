/**
 * A side-effect counter: a real HTTP server on 127.0.0.1:0 that counts POSTs per path and answers `{"count": n}`.
 * Durability scenarios point nodes at it to count how often a side effect really happened.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface CounterServer {
  readonly url: string;
  /** POSTs seen on `path` (e.g. `/charge`). */
  count(path: string): number;
  close(): Promise<void>;
}

/** Start a counter server; close it when done (scenarios pass `close` to `t.defer`). */
export async function startCounterServer(): Promise<CounterServer> {
  const counts = new Map<string, number>();
  const server = createServer((req, res) => {
    const path = req.url ?? '/';
    if (req.method !== 'POST') {
      res.writeHead(405).end();
      return;
    }
    const count = (counts.get(path) ?? 0) + 1;
    counts.set(path, count);
    req.resume();
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ count }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    count: (path) => counts.get(path) ?? 0,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
