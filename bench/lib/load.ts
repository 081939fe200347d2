/**
 * A closed-loop HTTP load generator: `connections` keep-alive connections, each sending its next request as soon as
 * the previous answer arrives, for `durationMs`. Run as a separate process (load-child.ts) so it does not share the
 * server's event loop.
 */
import http from 'node:http';

export interface LoadConfig {
  url: string;
  body: string;
  connections: number;
  durationMs: number;
  /** Requests whose latency is not recorded, to warm JIT and pools. */
  warmupRequests?: number;
}

export interface LoadResult {
  requests: number;
  errors: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
}

export async function runLoad(config: LoadConfig): Promise<LoadResult> {
  const target = new URL(config.url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: config.connections });
  const send = () =>
    new Promise<number>((resolve, reject) => {
      const started = process.hrtime.bigint();
      const req = http.request(
        {
          hostname: target.hostname,
          port: target.port,
          path: target.pathname,
          method: 'POST',
          agent,
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(config.body) },
        },
        (res) => {
          res.resume();
          res.on('end', () =>
            res.statusCode === 200 ? resolve(Number(process.hrtime.bigint() - started) / 1e6) : reject(new Error(`status ${res.statusCode}`)),
          );
        },
      );
      req.on('error', reject);
      req.end(config.body);
    });
  for (let i = 0; i < (config.warmupRequests ?? 200); i++) await send().catch(() => undefined);
  const latencies: number[] = [];
  let errors = 0;
  const deadline = Date.now() + config.durationMs;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: config.connections }, async () => {
      while (Date.now() < deadline) {
        try {
          latencies.push(await send());
        } catch {
          errors++;
        }
      }
    }),
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? NaN;
  return { requests: latencies.length, errors, rps: latencies.length / seconds, p50Ms: at(0.5), p99Ms: at(0.99) };
}
