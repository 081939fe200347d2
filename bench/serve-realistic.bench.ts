/**
 * A served agent as users run it: `agent serve` (bench/lib/soak-server.ts: `startAgentServer`, the CLI's code path)
 * of an Agent making one model call a run (bench/lib/http-model-agent.ts) to an OpenAI-compatible model with a real
 * model's timing (bench/lib/slow-openai-server.ts: 50 ms to the first token, then 20 tokens 5 ms apart), traced and
 * checkpointed, under `--connections` (256) keep-alive connections, half sending `POST /run` (a non-streamed model
 * call) and half `POST /run/stream` (SSE, a streamed model call). Once with the SQLite checkpointer, once with the
 * Postgres one (a scratch schema; traces stay in the local SQLite store, where the served agent writes them).
 *
 * The floor (bench/lib/floor-server.ts) serves the same two routes on the same HTTP stack (Express 5, the same body
 * parser and cap) and calls the same model with `fetch`, without agentkit. Every process is its own: the model, the
 * floor, the served agent and the load generator, so each one's CPU and memory are its own.
 *
 * Runs are paired and interleaved (floor, agentkit, floor, agentkit, ...) because this machine's speed drifts by a
 * third within minutes: each pair's figures are agentkit's minus (or over) the floor's measured just before it, and
 * the median over the pairs is printed with the spread (lowest..highest pair). Printed per engine:
 * - added p50 and p99 latency over the floor (all requests; then each route's), the target being p99 at most 10 ms;
 * - requests per second, and its ratio to the floor;
 * - CPU per request: server-side (the serving process, all threads, from /proc) and client-side (the load
 *   generator's own process.cpuUsage), microseconds;
 * - RSS of the serving process under load (peak of samples every 100 ms), and per in-flight run: that RSS over the
 *   connection count, and agentkit's minus the floor's over the connection count.
 *
 *   node scripts/bench.mjs serve-realistic [--pairs 5] [--duration-ms 5000] [--connections 256] [--engines sqlite,postgres]
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { processUsage } from './lib/cpu-probe.js';
import { spawnFloorServer } from './lib/floor-server.js';
import type { LoadResult } from './lib/load.js';
import { loadFromAnotherProcess } from './lib/load-process.js';
import { withScratchSchema } from './lib/pg-scratch.js';
import { spawnSlowOpenAI } from './lib/slow-openai-server.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({
  options: {
    pairs: { type: 'string', default: '5' },
    'duration-ms': { type: 'string', default: '5000' },
    'warmup-ms': { type: 'string', default: '3000' },
    connections: { type: 'string', default: '256' },
    engines: { type: 'string', default: 'sqlite,postgres' },
  },
});
const pairs = Number(values.pairs);
const durationMs = Number(values['duration-ms']);
const warmupMs = Number(values['warmup-ms']);
const connections = Number(values.connections);
for (const [name, value] of [
  ['--pairs', pairs],
  ['--duration-ms', durationMs],
  ['--warmup-ms', warmupMs],
  ['--connections', connections],
] as const) {
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a whole number of 1 or more`);
}
const engines = values.engines.split(',');
for (const engine of engines) if (engine !== 'sqlite' && engine !== 'postgres') throw new Error(`--engines: unknown engine '${engine}'`);
const TARGET_P99_MS = 10;

/** A serving process to measure: its base URL and process id. */
interface Served {
  url: string;
  pid: number;
}

/** One load window against one server, with what it cost the server process. */
interface Window extends LoadResult {
  serverCpuUsPerRequest: number;
  clientCpuUsPerRequest: number;
  peakRssBytes: number;
}

const body = JSON.stringify({ input: 'How are you?' });
const routes = (server: Served) => [`${server.url}/run`, `${server.url}/run/stream`];

async function measure(server: Served, ms: number): Promise<Window> {
  const before = processUsage(server.pid);
  let peakRssBytes = before?.rssBytes ?? Number.NaN;
  const sampler = setInterval(() => {
    const now = processUsage(server.pid);
    if (now) peakRssBytes = Math.max(peakRssBytes, now.rssBytes);
  }, 100);
  let result: LoadResult;
  try {
    result = await loadFromAnotherProcess({ url: `${server.url}/run`, urls: routes(server), body, connections, durationMs: ms, warmupRequests: 0 });
  } finally {
    clearInterval(sampler);
  }
  const after = processUsage(server.pid);
  const requests = Math.max(result.requests, 1);
  const serverCpuUsPerRequest = before && after ? ((after.cpuMs - before.cpuMs) * 1000) / requests : Number.NaN;
  return { ...result, serverCpuUsPerRequest, clientCpuUsPerRequest: result.clientCpuUs / requests, peakRssBytes };
}

/** `agent serve` of the bench agent in a process of its own, on the given checkpointer environment. */
async function startAgentkit(env: NodeJS.ProcessEnv): Promise<Served & { stop(): Promise<void> }> {
  const child = spawn(
    process.execPath,
    ['--expose-gc', '--conditions=agentkit-source', '--import', 'tsx', path.join(root, 'bench/lib/soak-server.ts'), 'bench/lib/http-model-agent.ts:agent'],
    { cwd: root, env: { ...process.env, OPENAI_API_KEY: '', ANTHROPIC_API_KEY: '', ...env }, stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const first = await createInterface({ input: child.stdout! })[Symbol.asyncIterator]().next();
  if (first.done) throw new Error('the served agent exited before listening');
  const { port } = JSON.parse(first.value as string) as { port: number };
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid!,
    // Closing stdin closes the server; the process may still be held open by the checkpointer it never closes (a
    // Postgres pool), so it is ended once its server had time to finish.
    stop: async () => {
      child.stdin!.end();
      const timer = setTimeout(() => child.kill(), 3000);
      await exited;
      clearTimeout(timer);
    },
  };
}

const median = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
/** `median (lowest..highest)` of a figure over the pairs. */
const spread = (xs: number[], digits = 1) => `${median(xs).toFixed(digits)} (${Math.min(...xs).toFixed(digits)}..${Math.max(...xs).toFixed(digits)})`;
const mb = (bytes: number) => bytes / 2 ** 20;

function report(label: string, floorRuns: Window[], agentRuns: Window[]): void {
  console.log(`${label}:`);
  const byPair = <T>(fn: (floor: Window, agent: Window) => T) => agentRuns.map((agent, i) => fn(floorRuns[i]!, agent));
  for (const [i, agent] of agentRuns.entries()) {
    const floor = floorRuns[i]!;
    console.log(
      `  pair ${i + 1}: floor ${floor.rps.toFixed(0)} req/s p50 ${floor.p50Ms.toFixed(1)} p99 ${floor.p99Ms.toFixed(1)} ms; ` +
        `agentkit ${agent.rps.toFixed(0)} req/s p50 ${agent.p50Ms.toFixed(1)} p99 ${agent.p99Ms.toFixed(1)} ms; errors ${floor.errors}/${agent.errors}`,
    );
  }
  const row = (name: string, runs: Window[]) =>
    `  ${name.padEnd(9)} ${spread(
      runs.map((r) => r.rps),
      0,
    )} req/s   p50 ${spread(runs.map((r) => r.p50Ms))} ms   p99 ${spread(runs.map((r) => r.p99Ms))} ms   ` +
    `server CPU ${spread(
      runs.map((r) => r.serverCpuUsPerRequest),
      0,
    )} us/req   client CPU ${spread(
      runs.map((r) => r.clientCpuUsPerRequest),
      0,
    )} us/req   ` +
    `RSS under load ${spread(
      runs.map((r) => mb(r.peakRssBytes)),
      0,
    )} MB`;
  console.log(`  medians over ${agentRuns.length} pairs (lowest..highest pair):`);
  console.log(row('floor', floorRuns));
  console.log(row('agentkit', agentRuns));
  const addedP99 = byPair((f, a) => a.p99Ms - f.p99Ms);
  console.log(
    `  added p50 ${spread(byPair((f, a) => a.p50Ms - f.p50Ms))} ms   added p99 ${spread(addedP99)} ms   (target: p99 at most ${TARGET_P99_MS} ms: ${median(addedP99) <= TARGET_P99_MS ? 'met' : 'NOT met'})`,
  );
  for (const route of ['/run', '/run/stream']) {
    const of = (w: Window) => Object.entries(w.byUrl ?? {}).find(([url]) => url.endsWith(route))![1];
    console.log(
      `  ${route.padEnd(12)} added p50 ${spread(byPair((f, a) => of(a).p50Ms - of(f).p50Ms))} ms   added p99 ${spread(byPair((f, a) => of(a).p99Ms - of(f).p99Ms))} ms`,
    );
  }
  console.log(
    `  ratio to the floor: req/s ${spread(
      byPair((f, a) => a.rps / f.rps),
      3,
    )}   server CPU/req ${spread(
      byPair((f, a) => a.serverCpuUsPerRequest / f.serverCpuUsPerRequest),
      2,
    )}   ` +
      `client CPU/req ${spread(
        byPair((f, a) => a.clientCpuUsPerRequest / f.clientCpuUsPerRequest),
        2,
      )}`,
  );
  console.log(
    `  RSS per in-flight run: agentkit ${spread(
      agentRuns.map((a) => (mb(a.peakRssBytes) * 1024) / connections),
      0,
    )} KB, ` +
      `added over the floor ${spread(
        byPair((f, a) => ((mb(a.peakRssBytes) - mb(f.peakRssBytes)) * 1024) / connections),
        0,
      )} KB (RSS under load / ${connections} connections)`,
  );
}

async function runEngine(label: string, floor: Served, env: NodeJS.ProcessEnv): Promise<void> {
  const agentkit = await startAgentkit(env);
  try {
    // Warm-up, not counted: JIT, pools, the stores' caches, the model's sockets.
    await measure(floor, warmupMs);
    await measure(agentkit, warmupMs);
    const floorRuns: Window[] = [];
    const agentRuns: Window[] = [];
    for (let pair = 0; pair < pairs; pair++) {
      floorRuns.push(await measure(floor, durationMs));
      agentRuns.push(await measure(agentkit, durationMs));
    }
    report(label, floorRuns, agentRuns);
  } finally {
    await agentkit.stop();
  }
}

const model = await spawnSlowOpenAI({ ...process.env, BENCH_MODEL_FIRST_TOKEN_MS: '50', BENCH_MODEL_TOKENS: '20', BENCH_MODEL_TOKEN_GAP_MS: '5' });
const floor = await spawnFloorServer(model.baseUrl);
const dir = await mkdtemp(path.join(tmpdir(), 'agentkit-bench-realistic-'));
console.log(
  `serve-realistic: Node ${process.version}, ${connections} connections (half /run, half /run/stream), model 50 ms to the first token + 20 tokens 5 ms apart; ` +
    `${pairs} interleaved pairs of ${durationMs} ms windows (floor, then agentkit) after a ${warmupMs} ms warm-up of each`,
);
try {
  for (const engine of engines) {
    const base = { BENCH_MODEL_URL: model.baseUrl, AGENTKIT_LOCAL_DB: path.join(dir, `${engine}.db`) };
    if (engine === 'sqlite') {
      await runEngine('SQLite', floor, base);
    } else {
      const skipped = await withScratchSchema((url, schema) => runEngine('Postgres', floor, { ...base, BENCH_PG_URL: url, BENCH_PG_SCHEMA: schema }));
      if (typeof skipped === 'string') console.log(`Postgres:\n  ${skipped}`);
    }
  }
} finally {
  floor.stop();
  model.stop();
  await rm(dir, { recursive: true, force: true });
}
