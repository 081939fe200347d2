/**
 * A closed-loop HTTP load generator: `connections` keep-alive connections, each sending its next request as soon as
 * the previous answer arrives, for `durationMs`. Run as a separate process (load-child.ts) so it does not share the
 * server's event loop. With `urls`, connection i sends to `urls[i % urls.length]` instead of `url` (a mixed load,
 * e.g. `/run` and `/run/stream`), and the result also carries each URL's own figures.
 */
import http from 'node:http';

export interface LoadConfig {
  url: string;
  /** Several targets sharing the connections round-robin (overrides `url`). */
  urls?: string[];
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
  /** CPU this load generator used during the measured window (user + system, all its threads), microseconds. */
  clientCpuUs: number;
  /** Per URL, when `urls` was given. */
  byUrl?: Record<string, { requests: number; p50Ms: number; p99Ms: number }>;
}

export async function runLoad(config: LoadConfig): Promise<LoadResult> {
  const urls = config.urls ?? [config.url];
  const agent = new http.Agent({ keepAlive: true, maxSockets: config.connections });
  const send = (target: URL) =>
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
  const targets = urls.map((url) => new URL(url));
  for (let i = 0; i < (config.warmupRequests ?? 200); i++) await send(targets[i % targets.length]!).catch(() => undefined);
  const latencies: number[][] = urls.map(() => []);
  let errors = 0;
  const deadline = Date.now() + config.durationMs;
  const cpu = process.cpuUsage();
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: config.connections }, async (_, connection) => {
      const index = connection % targets.length;
      while (Date.now() < deadline) {
        try {
          latencies[index]!.push(await send(targets[index]!));
        } catch {
          errors++;
        }
      }
    }),
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const used = process.cpuUsage(cpu);
  agent.destroy();
  const all = latencies.flat();
  const result: LoadResult = { requests: all.length, errors, rps: all.length / seconds, ...percentiles(all), clientCpuUs: used.user + used.system };
  if (config.urls) result.byUrl = Object.fromEntries(urls.map((url, i) => [url, { requests: latencies[i]!.length, ...percentiles(latencies[i]!) }]));
  return result;
}

function percentiles(latencies: number[]): { p50Ms: number; p99Ms: number } {
  const sorted = [...latencies].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
  return { p50Ms: at(0.5), p99Ms: at(0.99) };
}
