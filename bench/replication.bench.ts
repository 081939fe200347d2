/**
 * Checkpoint replication: does the outbox stay off the step's path, and how fast does it drain?
 *
 * 1. Put latency with replication on versus off, per backend: sequential `await checkpointer.put(row)` (one row per
 *    put, like a chain step), connected to the local Platform (each put kicks a drain that runs on the drain thread
 *    with its own store connection) versus not connected (the write hook returns at once). Interleaved rounds,
 *    medians. Target: on/off at most 1.1x.
 *    The "on" figure is also taken against a stub Platform (a child process that acknowledges every row without
 *    validating or storing it), which separates what the drain costs the writer's process from what the local
 *    Platform's own validation and storage cost the shared CPU (on a 2-core machine both compete with the steps).
 *    Each mode also reports the CPU its put loops used per put, by where it was spent (main thread, this process's
 *    other threads such as the drain thread, the Platform child process, the PostgreSQL server; bench/lib/cpu-probe.ts):
 *    on a shared 2-core machine the wall-time ratio moves between runs, the CPU split says what replication costs.
 * 2. Drain throughput: rows written while not connected, then `drainReplication` to the local Platform (a real
 *    child process on loopback, SQLite store), in rows/s.
 *
 *   node scripts/bench.mjs replication
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { withScratchSchema } from './lib/pg-scratch.js';
import { connect, disconnect, drainReplication, PostgresCheckpointer, SQLiteCheckpointer, type Checkpointer } from '../src/index.js';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { startPlatform } from '../conformance/harness/platform.js';
import { addCpu, cpuSince, sampleCpu, type CpuSample } from './lib/cpu-probe.js';

/** A stub Platform in a child process: every ingested row accepted, nothing validated or stored. */
async function startStub(): Promise<{ url: string; stop: () => void }> {
  const source = `const http = require('node:http');
const server = http.createServer((req, res) => {
  let body = '';
  req.on('data', (c) => (body += c));
  req.on('end', () => {
    const ids = req.url.endsWith('/auth/check') ? null : JSON.parse(body).checkpoints.map((r) => r.checkpoint_id);
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify(ids === null ? { domain_id: 'stub', project_id: null, scopes: [] } : { accepted: ids, rejected: [] }));
  });
});
server.listen(0, '127.0.0.1', () => console.log('http://127.0.0.1:' + server.address().port));`;
  const child = spawn(process.execPath, ['-e', source], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [chunk] = (await once(child.stdout, 'data')) as [Buffer];
  return { url: chunk.toString().trim(), stop: () => child.kill() };
}

const KEY = 'ak_bench_0123456789abcdef';
const PUTS = 3000;
const ROUNDS = 5;
const DRAIN_ROWS = 4000;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

const state = { input: 'bench input', total: 45, ...Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`n${i}`, i])) };

/** CPU spent during the put loops of each mode (all rounds), by process and thread. */
const cpu: Record<string, CpuSample | null> = {};

/** Microseconds per put over PUTS sequential puts. */
async function perPut(checkpointer: Checkpointer, round: number, mode?: string): Promise<number> {
  const execution = `bench-${round}-${Math.random().toString(36).slice(2)}`;
  const before = sampleCpu();
  const start = process.hrtime.bigint();
  for (let i = 0; i < PUTS; i++)
    await checkpointer.put({ execution_id: execution, chain_name: 'bench', node_id: `n${i % 10}`, node_index: i, state_snapshot: state });
  const elapsed = Number(process.hrtime.bigint() - start) / 1000 / PUTS;
  if (mode) cpu[mode] = addCpu(cpu[mode] ?? null, cpuSince(before, sampleCpu()));
  return elapsed;
}

/** CPU per put of one mode, µs, by where it was spent. */
function cpuLine(name: string, mode: string): string {
  const sample = cpu[mode];
  if (!sample) return `${name} ${mode}: no /proc`;
  const per = (ms: number) => ((ms * 1000) / (PUTS * ROUNDS)).toFixed(0);
  return `${name} ${mode}: CPU per put: main thread ${per(sample.main)} µs, other threads ${per(sample.threads)} µs, Platform process ${per(sample.children)} µs, Postgres server ${per(sample.postgres)} µs`;
}

async function figures(name: string, open: () => Checkpointer, target: string, stub: string): Promise<void> {
  const checkpointer = open();
  await checkpointer.setup();
  const off: number[] = [];
  const on: number[] = [];
  const onStub: number[] = [];
  /** Rows the drain had not sent when a round's put loop ended (sent by the flush after it). */
  const left = { local: 0, stub: 0 };
  try {
    // Warm-up, connected: the drain thread starts once per process (from sources it loads the TypeScript loader and
    // the store modules, about a second of CPU), and that start-up is not what a put pays in a running process.
    await connect({ apiKey: KEY, target: stub });
    await perPut(checkpointer, -1);
    await drainReplication(checkpointer);
    disconnect();
    for (let round = 0; round < ROUNDS; round++) {
      disconnect();
      off.push(await perPut(checkpointer, round * 3, `${name}-off`));
      await connect({ apiKey: KEY, target });
      on.push(await perPut(checkpointer, round * 3 + 1, `${name}-local`));
      left.local += (await drainReplication(checkpointer))?.synced ?? 0;
      await connect({ apiKey: KEY, target: stub });
      onStub.push(await perPut(checkpointer, round * 3 + 2, `${name}-stub`));
      left.stub += (await drainReplication(checkpointer))?.synced ?? 0;
    }
    disconnect();
    const offMedian = median(off);
    const onMedian = median(on);
    const stubMedian = median(onStub);
    console.log(
      `${name}: put off ${offMedian.toFixed(1)} µs; on, local Platform ${onMedian.toFixed(1)} µs = ${(onMedian / offMedian).toFixed(3)}x; on, stub Platform ${stubMedian.toFixed(1)} µs = ${(stubMedian / offMedian).toFixed(3)}x (target <= 1.1x)`,
    );
    for (const mode of ['off', 'local', 'stub']) console.log(cpuLine(name, `${name}-${mode}`));
    console.log(`${name}: rows not yet sent when the put loops ended: local Platform ${left.local}, stub ${left.stub} of ${PUTS * ROUNDS} each`);

    // Drain throughput: a backlog written offline, then one timed drain.
    const execution = `drain-${Math.random().toString(36).slice(2)}`;
    const batch = Array.from({ length: DRAIN_ROWS }, (_, i) => ({
      execution_id: execution,
      chain_name: 'bench',
      node_id: `n${i % 10}`,
      node_index: i,
      state_snapshot: state,
    }));
    for (let i = 0; i < batch.length; i += 500) await checkpointer.putWrites(batch.slice(i, i + 500));
    await connect({ apiKey: KEY, target, verify: false });
    const start = process.hrtime.bigint();
    const drained = await drainReplication(checkpointer);
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    disconnect();
    console.log(
      `${name}: drain ${drained?.synced} rows in ${seconds.toFixed(2)} s = ${Math.round((drained?.synced ?? 0) / seconds)} rows/s (${drained?.outcome})`,
    );
  } finally {
    await checkpointer.close();
  }
}

const dir = await mkdtemp(path.join(tmpdir(), 'agentkit-bench-replication-'));
const platform = await startPlatform({ dir, apiKeys: [KEY] });
const stub = await startStub();
try {
  console.log(`replication bench: ${PUTS} puts x ${ROUNDS} rounds per mode, medians; local Platform at ${platform.url}`);
  await figures('sqlite', () => new SQLiteCheckpointer(path.join(dir, 'local.db')), platform.url, stub.url);
  const pg = await withScratchSchema(async (url, schema) => {
    await figures('postgres', () => new PostgresCheckpointer(url, { schema }), platform.url, stub.url);
  });
  if (typeof pg === 'string') console.log(`postgres: ${pg}`);
} finally {
  stub.stop();
  await platform.stop();
  await rm(dir, { recursive: true, force: true });
}
