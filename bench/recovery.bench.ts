/**
 * Recovery on Postgres (docs/adr/0050, 0051): how long a killed or stopped replica's runs take to complete on a
 * survivor, and what the sweep costs a replica that has nothing to recover.
 *
 * 1. Hand-over latency: two `agent serve` replicas (the built binary) of the live agent (conformance fixture: a
 *    200 ms idempotent payout, then notify) on a scratch schema, default lease and sweep interval unless overridden.
 *    Each round posts RUNS runs to one replica, waits until all are inside their payout, then SIGKILLs it (or sends
 *    SIGTERM), and times kill -> every one of its executions `completed` (read through `listExecutions`). A fresh
 *    replica replaces it. Each round starts at a random point of the sweep interval. Same machine, so a SIGKILLed holder is seen dead at the survivor's next sweep (a replica on
 *    another machine waits for the lease too: add `AGENTKIT_EXECUTION_LEASE_MS`).
 * 2. Idle sweep cost: one `Recoverer.sweep()` against a store with COMPLETED finished executions and LIVE in-flight
 *    ones held by another host's live leases (nothing to recover), SWEEPS times: wall time and this process's CPU
 *    per sweep, and per minute at the default interval (5000 ms: 12 sweeps a minute).
 *
 *   node scripts/bench.mjs recovery                          # 5 rounds per stop kind, 3 runs each, 2,000 idle sweeps
 *   ROUNDS=10 RUNS=5 AGENTKIT_RECOVER_INTERVAL_MS=1000 node scripts/bench.mjs recovery
 */
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { startCli, type CliProcess } from '../conformance/harness/cli-process.js';
import { PostgresCheckpointer } from '../src/durability/postgres-checkpointer.js';
import { listExecutions } from '../src/recovery/list.js';
import { Recoverer } from '../src/recovery/recoverer.js';
import { liveAgent } from '../conformance/fixtures/durability/live-run.js';
import { withScratchSchema } from './lib/pg-scratch.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const ROUNDS = Number(process.env.ROUNDS ?? 5);
const RUNS = Number(process.env.RUNS ?? 3);
const SWEEPS = Number(process.env.SWEEPS ?? 2000);
const COMPLETED = Number(process.env.COMPLETED ?? 1000);
const LIVE = Number(process.env.LIVE ?? 50);
const INTERVAL_MS = Number(process.env.AGENTKIT_RECOVER_INTERVAL_MS ?? 5000);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function spread(values: number[], unit: string, digits = 0): string {
  return `${median(values).toFixed(digits)} ${unit} (${Math.min(...values).toFixed(digits)}..${Math.max(...values).toFixed(digits)})`;
}

interface Replica {
  proc: CliProcess;
  url: string;
  pid: number;
}

async function handOver(url: string, schema: string, signal: 'SIGKILL' | 'SIGTERM'): Promise<number[]> {
  const dir = await mkdtemp(path.join(tmpdir(), 'agentkit-bench-recovery-'));
  const log = path.join(dir, 'live.log');
  const fixture = pathToFileURL(path.join(root, 'conformance/fixtures/durability/live-run.ts')).href;
  const config = { kind: 'postgres', url, schema };
  await writeFile(
    path.join(dir, 'runners.mts'),
    `import { liveAgentFor } from ${JSON.stringify(fixture)};\nexport const live = () => liveAgentFor(${JSON.stringify(config)});\n`,
  );
  const env = { LIVE_LOG: log, LIVE_TOOL_MS: '200', LIVE_REPLAY_CLASS: 'idempotent', AGENTKIT_LOCAL_DB: path.join(dir, 'local.db') };
  const start = async (): Promise<Replica> => {
    const proc = startCli(['agent', 'serve', 'runners.mts:live', '--port', '0', '--host', '127.0.0.1'], { cwd: dir, env: { ...process.env, ...env } });
    const [, address] = await proc.waitForStderr(/serving \w+ '[^']+' on (http:\/\/[^ ]+)/, 60_000);
    return { proc, url: address!, pid: proc.child.pid! };
  };
  const store = new PostgresCheckpointer(url, { schema });
  const replicas = await Promise.all([start(), start()]);
  const latencies: number[] = [];
  try {
    for (let round = 0; round < ROUNDS; round++) {
      const victim = replicas[round % 2]!;
      // A random phase: rounds would otherwise start in step with the survivor's last sweep.
      await sleep(Math.random() * INTERVAL_MS);
      const refs = Array.from({ length: RUNS }, () => `${signal}-${round}-${randomUUID().slice(0, 8)}`);
      for (const ref of refs) {
        void fetch(`${victim.url}/run`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ input: `pay ${ref}` }),
        }).catch(() => null);
      }
      const inPayout = () => existsSync(log) && refs.every((ref) => readFileSync(log, 'utf8').includes(`payout ${ref} ${victim.pid}`));
      while (!inPayout()) await sleep(10);
      victim.proc.child.kill(signal);
      const killed = performance.now();
      // Only the victims' runs were posted: round r is done when (r + 1) x RUNS executions have completed.
      const done = async () => (await listExecutions(store, { limit: 1000 })).filter((item) => item.state === 'completed').length >= (round + 1) * RUNS;
      while (!(await done())) await sleep(20);
      latencies.push(performance.now() - killed);
      await victim.proc.exited;
      replicas[round % 2] = await start();
    }
  } finally {
    for (const replica of replicas) replica.proc.kill();
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
  return latencies;
}

async function idleSweeps(url: string, schema: string): Promise<{ wall: number[]; cpu: number[] }> {
  const store = new PostgresCheckpointer(url, { schema: `${schema}_idle` });
  try {
    const agent = liveAgent(store);
    await store.setup();
    for (let i = 0; i < COMPLETED; i++) {
      const id = `done-${i}`;
      const row = { execution_id: id, chain_name: 'payout-desk', node_index: 0, status: 'completed' as const, state_snapshot: {} };
      const generation = (await store.acquireLease(id, 'otherhost:1:x:y', 60_000, { first: { ...row, node_id: 'turn:0', step_type: 'llm_call' } }))!;
      // Its terminal row ends the active stretch, as a finished run's does.
      await store.put(
        { ...row, node_id: 'run_end', step_type: 'run_end', run_status: 'completed', agent_path: null },
        { owner: 'otherhost:1:x:y', generation, release: true },
      );
    }
    // In flight on another machine: active, unexpired, its holder alive as far as this host can tell.
    for (let i = 0; i < LIVE; i++) {
      await store.acquireLease(`live-${i}`, `otherhost:${i + 2}:x:${randomUUID()}`, 3_600_000, {
        first: {
          execution_id: `live-${i}`,
          chain_name: 'payout-desk',
          node_id: 'turn:0',
          node_index: 0,
          step_type: 'llm_call',
          status: 'completed',
          state_snapshot: {},
        },
      });
    }
    const recoverer = new Recoverer([agent]);
    for (let i = 0; i < 50; i++) await recoverer.sweep();
    const wall: number[] = [];
    const cpu: number[] = [];
    for (let i = 0; i < SWEEPS; i++) {
      const before = process.cpuUsage();
      const t = performance.now();
      const { decided, started } = await recoverer.sweep();
      wall.push(performance.now() - t);
      const used = process.cpuUsage(before);
      cpu.push((used.user + used.system) / 1000);
      if (decided.length + started.length > 0) throw new Error('the idle sweep found something to do');
    }
    return { wall, cpu };
  } finally {
    await store.close();
  }
}

const result = await withScratchSchema(async (url, schema, admin) => {
  try {
    console.log(`recovery on Postgres: ${ROUNDS} rounds x ${RUNS} runs per stop kind, sweep interval ${INTERVAL_MS} ms (jittered 0.75-1.25)`);
    for (const signal of ['SIGKILL', 'SIGTERM'] as const) {
      const latencies = await handOver(url, `${schema}_${signal.toLowerCase()}`, signal);
      console.log(`  ${signal} -> every run of the replica completed on the survivor: ${spread(latencies, 'ms')} (median, lowest..highest round)`);
    }
    const { wall, cpu } = await idleSweeps(url, schema);
    const perMinute = 60_000 / INTERVAL_MS;
    console.log(`  idle sweep (${COMPLETED} ended executions, ${LIVE} in flight elsewhere, ${SWEEPS} sweeps): one indexed read each`);
    console.log(`    wall per sweep ${spread(wall, 'ms', 2)}, p99 ${[...wall].sort((a, b) => a - b)[Math.floor(wall.length * 0.99)]!.toFixed(2)} ms`);
    console.log(`    replica CPU per sweep ${spread(cpu, 'ms', 3)}`);
    console.log(
      `    per idle replica per minute (${perMinute} sweeps): ${perMinute} queries, ${(median(cpu) * perMinute).toFixed(1)} ms CPU, ${(median(wall) * perMinute).toFixed(1)} ms of sweeping`,
    );
  } finally {
    for (const suffix of ['_sigkill', '_sigterm', '_idle']) await admin.query(`DROP SCHEMA IF EXISTS "${schema}${suffix}" CASCADE`);
  }
});
if (typeof result === 'string') console.log(`recovery bench: Postgres ${result}`);
