/**
 * Per-call overhead of `RESTTool.execute` (argument validation, path/query mapping, `${NAME}` header resolution and
 * secret registration, the SSRF check at connect time, response parsing) against a bare `fetch` of the same URL on the
 * same local server, in the same run. Both keep connections alive. Target: execute's p50 latency at most 1.2x the
 * bare call's p50.
 *
 *   node scripts/bench.mjs rest-tool-overhead
 *
 * The server is on 127.0.0.1, reached by the tool through `allowHosts` (the guard still classifies the address on
 * every new connection). Rounds interleave the two clients; figures are medians over rounds of per-call p50/p90.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { RESTTool } from '../src/index.js';

const CALLS = 2000;
const ROUNDS = 5;
const WARMUP = 300;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function timeCalls(call: (i: number) => Promise<unknown>, count: number): Promise<{ p50: number; p90: number }> {
  const samples: number[] = [];
  for (let i = 0; i < count; i++) {
    const start = process.hrtime.bigint();
    await call(i);
    samples.push(Number(process.hrtime.bigint() - start) / 1000);
  }
  samples.sort((a, b) => a - b);
  return { p50: percentile(samples, 0.5), p90: percentile(samples, 0.9) };
}

const server = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.setHeader('content-type', 'application/json');
    res.end('{"id":"42","status":"shipped","items":[{"sku":"A-1","qty":2}]}');
  });
});
server.keepAliveTimeout = 60_000;
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

const tool = new RESTTool({
  name: 'get_order',
  url: `${base}/orders/{id}`,
  bodyMapping: 'path_params',
  headers: { Authorization: 'Bearer ${BENCH_TOKEN}', Accept: 'application/json' },
  parameters: { type: 'object', properties: { id: { type: 'string' }, expand: { type: 'boolean' } }, required: ['id'] },
  replayClass: 'read_only',
  allowHosts: ['127.0.0.1'],
  env: { BENCH_TOKEN: 'bench-token-0123456789' },
  registry: false,
});
const viaTool = (i: number) => tool.execute({ id: String(i % 100), expand: true });
const bare = async (i: number) => {
  const response = await fetch(`${base}/orders/${i % 100}?expand=true`, {
    headers: { Authorization: 'Bearer bench-token-0123456789', Accept: 'application/json' },
  });
  return response.json();
};

await timeCalls(viaTool, WARMUP);
await timeCalls(bare, WARMUP);
const toolP50: number[] = [];
const toolP90: number[] = [];
const bareP50: number[] = [];
const bareP90: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  const b = await timeCalls(bare, CALLS);
  const t = await timeCalls(viaTool, CALLS);
  bareP50.push(b.p50);
  bareP90.push(b.p90);
  toolP50.push(t.p50);
  toolP90.push(t.p90);
}
const ratio = median(toolP50) / median(bareP50);
console.log(`bare fetch        p50 ${median(bareP50).toFixed(1)} us   p90 ${median(bareP90).toFixed(1)} us`);
console.log(`RESTTool.execute  p50 ${median(toolP50).toFixed(1)} us   p90 ${median(toolP90).toFixed(1)} us`);
console.log(`ratio (p50, execute / bare fetch): ${ratio.toFixed(2)}x  (target <= 1.2x)  ${ratio <= 1.2 ? 'met' : 'NOT met'}`);
await tool.close();
server.closeAllConnections();
server.close();
