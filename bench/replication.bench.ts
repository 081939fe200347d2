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

/** Microseconds per put over PUTS sequential puts. */
async function perPut(checkpointer: Checkpointer, round: number): Promise<number> {
  const execution = `bench-${round}-${Math.random().toString(36).slice(2)}`;
  const start = process.hrtime.bigint();
  for (let i = 0; i < PUTS; i++) await checkpointer.put({ execution_id: execution, chain_name: 'bench', node_id: `n${i % 10}`, node_index: i, state_snapshot: state });
  return Number(process.hrtime.bigint() - start) / 1000 / PUTS;
}

async function figures(name: string, open: () => Checkpointer, target: string, stub: string): Promise<void> {
  const checkpointer = open();
  await checkpointer.setup();
  const off: number[] = [];
  const on: number[] = [];
  const onStub: number[] = [];
  try {
    await perPut(checkpointer, -1); // warm-up
    for (let round = 0; round < ROUNDS; round++) {
      disconnect();
      off.push(await perPut(checkpointer, round * 3));
      await connect({ apiKey: KEY, target });
      on.push(await perPut(checkpointer, round * 3 + 1));
      await drainReplication(checkpointer);
      await connect({ apiKey: KEY, target: stub });
      onStub.push(await perPut(checkpointer, round * 3 + 2));
      await drainReplication(checkpointer);
    }
    disconnect();
    const offMedian = median(off);
    const onMedian = median(on);
    const stubMedian = median(onStub);
    console.log(`${name}: put off ${offMedian.toFixed(1)} µs; on, local Platform ${onMedian.toFixed(1)} µs = ${(onMedian / offMedian).toFixed(3)}x; on, stub Platform ${stubMedian.toFixed(1)} µs = ${(stubMedian / offMedian).toFixed(3)}x (target <= 1.1x)`);

    // Drain throughput: a backlog written offline, then one timed drain.
    const execution = `drain-${Math.random().toString(36).slice(2)}`;
    const batch = Array.from({ length: DRAIN_ROWS }, (_, i) => ({ execution_id: execution, chain_name: 'bench', node_id: `n${i % 10}`, node_index: i, state_snapshot: state }));
    for (let i = 0; i < batch.length; i += 500) await checkpointer.putWrites(batch.slice(i, i + 500));
    await connect({ apiKey: KEY, target, verify: false });
    const start = process.hrtime.bigint();
    const drained = await drainReplication(checkpointer);
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    disconnect();
    console.log(`${name}: drain ${drained?.synced} rows in ${seconds.toFixed(2)} s = ${Math.round((drained?.synced ?? 0) / seconds)} rows/s (${drained?.outcome})`);
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
