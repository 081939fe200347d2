/** The HTTP surface: an Express app on 127.0.0.1:0, warmed up, closed after the test. */
import http from 'node:http';
import type { Express } from 'express';
import { listen, warmUp } from '../../src/http/validated-app.js';

export interface RunningServer {
  url: string;
  close(): Promise<void>;
}

/** Listen on a free loopback port and load the app's contract before the test's first request. */
export async function startApp(app: Express, options: { warm?: boolean } = {}): Promise<RunningServer> {
  const { server, url } = await listen(app, 0, '127.0.0.1');
  if (options.warm !== false) await warmUp(url);
  return {
    url,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

/** POST `chunks` with `Transfer-Encoding: chunked` (no Content-Length), as a streaming client would. */
export function postChunked(url: string, chunks: readonly string[]): Promise<{ status: number; body: string }> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        hostname: target.hostname,
        port: target.port,
        path: target.pathname,
        method: 'POST',
        headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
      },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    for (const chunk of chunks.slice(0, -1)) req.write(chunk);
    req.end(chunks.at(-1) ?? '');
  });
}
