/**
 * Served-agent throughput: requests per second and p50/p99 latency of `POST /run` on an Agent (deterministic
 * model, one tool call per run, tracing and checkpointing on, both in one SQLite file), next to
 * a bare Express JSON echo on the same machine in the same run. The load generator runs in a separate process with
 * the same connection count for both. Target: at least half the echo's throughput.
 */
import Database from 'better-sqlite3';
import express from 'express';
import { mkdtemp, rm } from 'node:fs/promises';
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

const CONNECTIONS = 32;
const DURATION_MS = Number(process.env.BENCH_DURATION_MS ?? 5000);
const ROUNDS = 3;

const dir = await mkdtemp(path.join(tmpdir(), 'agentkit-bench-serve-'));
const dbPath = path.join(dir, 'local.db');
const checkpointer = new SQLiteCheckpointer(dbPath);
const agent = weatherAgent({ traceDb: dbPath, checkpointer });

const echo = express();
echo.use(express.json());
echo.post('/run', (req, res) => {
  res.json({ echo: (req.body as { input: string }).input });
});
const servedApp = createServeApp(toServeTarget(agent, { traceDb: dbPath }));

const bare = await listen(echo, 0, '127.0.0.1');
const served = await listen(servedApp, 0, '127.0.0.1');
const body = JSON.stringify({ input: 'weather in Oslo' });

const echoRuns: LoadResult[] = [];
const serveRuns: LoadResult[] = [];
for (let round = 0; round < ROUNDS; round++) {
  echoRuns.push(await loadFromAnotherProcess({ url: `${bare.url}/run`, body, connections: CONNECTIONS, durationMs: DURATION_MS }));
  serveRuns.push(await loadFromAnotherProcess({ url: `${served.url}/run`, body, connections: CONNECTIONS, durationMs: DURATION_MS }));
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const summary = (runs: LoadResult[]) => ({
  rps: median(runs.map((r) => r.rps)),
  p50: median(runs.map((r) => r.p50Ms)),
  p99: median(runs.map((r) => r.p99Ms)),
  errors: runs.reduce((n, r) => n + r.errors, 0),
});
const e = summary(echoRuns);
const s = summary(serveRuns);
const fmt = (x: ReturnType<typeof summary>) => `${x.rps.toFixed(0).padStart(6)} req/s   p50 ${x.p50.toFixed(2)} ms   p99 ${x.p99.toFixed(2)} ms   errors ${x.errors}`;
console.log(`${ROUNDS} alternating rounds of ${DURATION_MS} ms, ${CONNECTIONS} connections, load generator in its own process (medians)`);
console.log(`bare Express JSON echo (baseline): ${fmt(e)}`);
console.log(`POST /run, agent, traced + checkpointed: ${fmt(s)}`);
console.log(`ratio to the echo: ${(s.rps / e.rps).toFixed(3)}`);
console.log(`target: at least half the echo's throughput: ${s.rps >= e.rps / 2 ? 'met' : 'NOT met'}`);

await new Promise((r) => bare.server.close(r));
await new Promise((r) => served.server.close(r));
await shutdownTracing();
await checkpointer.close();
// Proof the served runs were checkpointed: rows per completed request (turn, tool and terminal rows).
const db = new Database(checkpointer.dbPath, { readonly: true });
const checkpoints = (db.prepare('SELECT count(*) AS n FROM checkpoints').get() as { n: number }).n;
const executions = (db.prepare('SELECT count(DISTINCT execution_id) AS n FROM checkpoints').get() as { n: number }).n;
db.close();
console.log(`checkpoints written: ${checkpoints} rows over ${executions} runs (${(checkpoints / Math.max(executions, 1)).toFixed(1)} a run)`);
await rm(dir, { recursive: true, force: true });
