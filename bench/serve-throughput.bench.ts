/**
 * Served-agent throughput: requests per second and p50/p99 latency of `POST /run` on an Agent (deterministic
 * model, one tool call per run, tracing and checkpointing on, both in one SQLite file), next to
 * a bare Express JSON echo on the same machine in the same run (served by Express's own `app.listen`). The load
 * generator runs in a separate process with the same connection count for both; each server is warmed up first.
 * With an instant model this shows the served stack's own cost; it is no longer a target (docs/adr/0002): what users
 * meet is a model that takes tens of milliseconds. Both the ratio of the medians and the median of the per-round
 * ratios are printed (a VM's speed drifts over a run). Each row also shows
 * what a request cost the server process: CPU of all its threads, and the request thread's busy time. The same agent is also served
 * with tracing or checkpointing off (rounds interleaved), to show what each costs, and the served HTTP stack alone
 * (validation, auth and body-cap middleware, JSON) around a target that answers at once, to show what it costs.
 */
import Database from 'better-sqlite3';
import { performance } from 'node:perf_hooks';
import express from 'express';
import { mkdtemp, rm } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { weatherAgent } from '../conformance/fixtures/serving/runners.js';
import { listen } from '../src/http/validated-app.js';
import { createServeApp } from '../src/serve/app.js';
import { toServeTarget } from '../src/serve/adapters.js';
import { shutdownTracing } from '../src/tracing/index.js';
import { SQLiteCheckpointer } from '../src/durability/index.js';
import { loadFromAnotherProcess } from './lib/load-process.js';
import type { LoadResult } from './lib/load.js';
import type { ServeTarget } from '../src/serve/target.js';

const CONNECTIONS = 32;
const DURATION_MS = Number(process.env.BENCH_DURATION_MS ?? 5000);
const ROUNDS = 3;

const dir = await mkdtemp(path.join(tmpdir(), 'agentkit-bench-serve-'));
const dbPath = path.join(dir, 'local.db');
const checkpointer = new SQLiteCheckpointer(dbPath);
// The measured target, then the same agent with tracing or checkpointing (or both) off, to show what each costs.
const variants = [
  { label: 'POST /run, agent, traced + checkpointed', agent: weatherAgent({ traceDb: dbPath, checkpointer }) },
  { label: '  same, checkpointed, tracing off', agent: weatherAgent({ checkpointer, trace: false }) },
  { label: '  same, traced, no checkpointer', agent: weatherAgent({ traceDb: dbPath }) },
  { label: '  same, neither', agent: weatherAgent({ trace: false }) },
];
/** The same response an untraced run gives, at once: what the HTTP stack costs without any agent work. */
const instant: ServeTarget = {
  kind: 'agent',
  name: 'weather',
  run: async () => ({
    output: 'It is 14 degrees in Oslo.',
    latency_ms: 0.25,
    tokens_used: 0,
    trace_id: null,
    status: 'completed',
    execution_id: '00000000-0000-4000-8000-000000000000',
    pending_interrupt: null,
  }),
};
const targets = [
  ...variants.map((v) => ({ label: v.label, target: toServeTarget(v.agent, { traceDb: dbPath }) })),
  { label: '  served HTTP stack, instant target', target: instant },
];

const echo = express();
echo.use(express.json());
echo.post('/run', (req, res) => {
  res.json({ echo: (req.body as { input: string }).input });
});

// The baseline is the echo as Express serves it (`app.listen`).
const bare = await new Promise<{ server: Server; url: string }>((resolve, reject) => {
  const server = echo.listen(0, '127.0.0.1', (error?: Error) =>
    error ? reject(error) : resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }),
  );
});
const servers = await Promise.all(targets.map((t) => listen(createServeApp(t.target), 0, '127.0.0.1')));
const body = JSON.stringify({ input: 'weather in Oslo' });

/**
 * One load window, with what it cost this (server) process per request: CPU of all its threads (request thread,
 * span writer, WAL keeper, GC) and the request thread's busy time (event-loop utilisation). The budget per layer is
 * the difference between rows: what the served stack, the agent, tracing and checkpointing each add per request.
 */
interface Measured extends LoadResult {
  cpuUsPerRequest: number;
  busyUsPerRequest: number;
}
async function measure(url: string): Promise<Measured> {
  const cpu = process.cpuUsage();
  const elu = performance.eventLoopUtilization();
  const result = await loadFromAnotherProcess({ url, body, connections: CONNECTIONS, durationMs: DURATION_MS });
  const used = process.cpuUsage(cpu);
  const busy = performance.eventLoopUtilization(elu);
  const requests = Math.max(result.requests, 1);
  return { ...result, cpuUsPerRequest: (used.user + used.system) / requests, busyUsPerRequest: (busy.active * 1000) / requests };
}

// Warm-up, not counted: each server serves load once before the rounds, so the first round does not measure V8
// compiling the agent's path (the echo's is short and warm within milliseconds; the agent's took most of round 1).
const WARM_UP_MS = 1500;
for (const url of [bare.url, ...servers.map((s) => s.url)]) {
  await loadFromAnotherProcess({ url: `${url}/run`, body, connections: CONNECTIONS, durationMs: WARM_UP_MS });
}

const echoRuns: Measured[] = [];
const variantRuns: Measured[][] = targets.map(() => []);
for (let round = 0; round < ROUNDS; round++) {
  echoRuns.push(await measure(`${bare.url}/run`));
  for (const [i, server] of servers.entries()) variantRuns[i]!.push(await measure(`${server.url}/run`));
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const summary = (runs: Measured[]) => ({
  rps: median(runs.map((r) => r.rps)),
  cpu: median(runs.map((r) => r.cpuUsPerRequest)),
  busy: median(runs.map((r) => r.busyUsPerRequest)),
  p50: median(runs.map((r) => r.p50Ms)),
  p99: median(runs.map((r) => r.p99Ms)),
  errors: runs.reduce((n, r) => n + r.errors, 0),
});
const e = summary(echoRuns);
const results = variantRuns.map(summary);
const s = results[0]!;
const fmt = (x: ReturnType<typeof summary>) =>
  `${x.rps.toFixed(0).padStart(6)} req/s   p50 ${x.p50.toFixed(2).padStart(6)} ms   p99 ${x.p99.toFixed(2).padStart(6)} ms   errors ${x.errors}   server CPU ${x.cpu.toFixed(0).padStart(5)} us/req, request thread busy ${x.busy.toFixed(0).padStart(5)} us/req`;
const width = Math.max(...targets.map((v) => v.label.length), 34);
console.log(
  `${ROUNDS} alternating rounds of ${DURATION_MS} ms after a ${WARM_UP_MS} ms warm-up of each server, ${CONNECTIONS} connections, load generator in its own process (medians)`,
);
console.log(`${'bare Express JSON echo (baseline)'.padEnd(width)}  ${fmt(e)}`);
for (const [i, v] of targets.entries()) console.log(`${v.label.padEnd(width)}  ${fmt(results[i]!)}   ratio ${(results[i]!.rps / e.rps).toFixed(3)}`);
console.log(`ratio to the echo (traced + checkpointed): ${(s.rps / e.rps).toFixed(3)}`);
// Each round measures the echo and then the rows, back to back: a ratio within one round is less exposed to a VM
// whose speed drifts over the run than the ratio of medians above. The target counts as met only by both.
const perRound = echoRuns.map((echoRun, round) => variantRuns[0]![round]!.rps / echoRun.rps);
console.log(
  `per-round ratios (echo, then this row, in the same round): ${perRound.map((r) => r.toFixed(3)).join(', ')}; median ${median(perRound).toFixed(3)}`,
);

await new Promise((r) => bare.server.close(r));
for (const server of servers) await new Promise((r) => server.server.close(r));
await shutdownTracing();
await checkpointer.close();
// Proof the served runs were checkpointed: rows per completed request (turn, tool and terminal rows).
const db = new Database(checkpointer.dbPath, { readonly: true });
const checkpoints = (db.prepare('SELECT count(*) AS n FROM checkpoints').get() as { n: number }).n;
const executions = (db.prepare('SELECT count(DISTINCT execution_id) AS n FROM checkpoints').get() as { n: number }).n;
db.close();
console.log(`checkpoints written: ${checkpoints} rows over ${executions} runs (${(checkpoints / Math.max(executions, 1)).toFixed(1)} a run)`);
await rm(dir, { recursive: true, force: true });
