/**
 * Checkpoint storage growth: one execution whose state grows by 1 KB per step, 200 times, on each backend.
 *
 *   Agent history: one Agent run receiving 200 tool results of 1 KB (50 model turns of four tool calls each; an
 *                  Agent runs at most 100 turns), a scripted model.
 *   Chain state:   one Chain run of 200 nodes, each appending 1 KB to a list in its state.
 *
 * Figures: bytes the store grew by (SQLite: pages in use after the WAL is folded in; Postgres: the checkpoints table
 * with its indexes and TOAST) against the 200 KB of payload (target <= 2x), and the time per turn (Agent: between
 * model calls; Chain: between node starts) of the last ten turns against the first ten (target <= 1.5x). Each case
 * runs once on a throwaway store before it is measured, so its first turns are warm. A last row repeats the SQLite
 * Agent case with a secret registered (as a provider key is in a deployment): every row then goes through the
 * redactor; the line before it, the Agent case traced into the same local.db (per-turn time with spans written).
 *
 *   node scripts/bench.mjs checkpoint-growth
 *
 * Postgres uses AGENTKIT_TEST_PG_URL (default the local test server) in a scratch schema dropped afterwards.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Type from 'typebox';
import Database from 'better-sqlite3';
import { withScratchSchema } from './lib/pg-scratch.js';
import { Agent, Chain, PostgresCheckpointer, SQLiteCheckpointer, tool, type Checkpointer } from '../src/index.js';
import { FunctionModel } from '../src/testing/index.js';
import { chunk } from './lib/payload.js';
import { registerSecret } from '../src/config/secrets.js';
import { flushTraces } from '../src/tracing/index.js';

const STEPS = 200;
const KB = 1024;
const PAYLOAD = STEPS * KB;
/** Tool calls per model turn (an Agent runs at most 100 turns). */
const CALLS_PER_TURN = 4;

/** Per-turn times (ms) from the instants each turn started at. */
function turnTimes(starts: number[]): number[] {
  return starts.slice(1).map((t, i) => t - starts[i]!);
}

function mean(values: number[]): number {
  return values.reduce((a, b) => a + b, 0) / values.length;
}

/** The Agent run: times between model calls. */
async function agentRun(checkpointer: Checkpointer, traceDb?: string): Promise<number[]> {
  let n = 0;
  const fetchDoc = tool({
    name: 'fetch_doc',
    description: 'Fetch 1 KB',
    parameters: Type.Object({ i: Type.Number() }),
    registry: false,
    execute: async ({ i }) => chunk(i),
  });
  const starts: number[] = [];
  const model = new FunctionModel(() => {
    starts.push(performance.now());
    if (n >= STEPS) return 'done';
    const calls = Array.from({ length: CALLS_PER_TURN }, (_, k) => ({ id: `call_${n + k}`, name: 'fetch_doc', arguments: { i: n + k } }));
    n += CALLS_PER_TURN;
    return { toolCalls: calls };
  });
  const tracing = traceDb ? { traceDb } : { trace: false };
  const agent = new Agent({
    name: 'reader',
    systemPrompt: 'You read.',
    llm: model,
    tools: [fetchDoc],
    checkpointer,
    ...tracing,
    config: { maxIterations: 100 },
  });
  const result = await agent.run('read everything', { executionId: 'growth-agent' });
  if (result.status !== 'completed') throw new Error(`agent ended ${result.status}`);
  return turnTimes(starts);
}

/** The Chain run: times between node starts. */
async function chainRun(checkpointer: Checkpointer): Promise<number[]> {
  const chain = new Chain('grower', { checkpointer, maxSteps: STEPS + 10 });
  const starts: number[] = [];
  for (let i = 0; i < STEPS; i++) {
    chain.addNode(`n${i}`, (state) => {
      starts.push(performance.now());
      return { log: [...((state.log as string[] | undefined) ?? []), chunk(i)] };
    });
    if (i > 0) chain.connect(`n${i - 1}`, `n${i}`);
  }
  const result = await chain.run('grow', { executionId: 'growth-chain' });
  if (result.status !== 'completed') throw new Error(`chain ended ${result.status}`);
  return turnTimes(starts);
}

interface Figures {
  bytes: number;
  first: number;
  last: number;
}

function figures(bytes: number, times: number[]): Figures {
  return { bytes, first: mean(times.slice(0, 10)), last: mean(times.slice(-10)) };
}

/** Bytes of local.db in use (the WAL folded in first). */
function sqliteBytes(file: string): number {
  const db = new Database(file);
  try {
    db.pragma('wal_checkpoint(TRUNCATE)');
    const pages = (db.pragma('page_count', { simple: true }) as number) - (db.pragma('freelist_count', { simple: true }) as number);
    return pages * (db.pragma('page_size', { simple: true }) as number);
  } finally {
    db.close();
  }
}

async function sqliteCase(run: (c: Checkpointer) => Promise<number[]>): Promise<Figures> {
  const dir = await mkdtemp(path.join(tmpdir(), 'agentkit-growth-'));
  const file = path.join(dir, 'local.db');
  try {
    const checkpointer = new SQLiteCheckpointer(file);
    await checkpointer.setup();
    const before = sqliteBytes(file);
    const times = await run(checkpointer);
    await checkpointer.close();
    return figures(sqliteBytes(file) - before, times);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function postgresCase(run: (c: Checkpointer) => Promise<number[]>): Promise<Figures | string> {
  return withScratchSchema(async (url, schema, admin) => {
    const checkpointer = new PostgresCheckpointer(url, { schema });
    const size = async () => Number((await admin.query<{ n: string }>(`SELECT pg_total_relation_size('"${schema}".checkpoints') AS n`)).rows[0]!.n);
    try {
      await checkpointer.setup();
      const before = await size();
      const times = await run(checkpointer);
      return figures((await size()) - before, times);
    } finally {
      await checkpointer.close();
    }
  });
}

function report(label: string, f: Figures | string): void {
  if (typeof f === 'string') {
    console.log(`  ${label.padEnd(24)} ${f}`);
    return;
  }
  const growth = f.bytes / PAYLOAD;
  const slope = f.last / f.first;
  console.log(
    `  ${label.padEnd(24)} ${(f.bytes / 1024).toFixed(0).padStart(6)} KB on disk = ${growth.toFixed(2)}x payload (target <= 2: ${growth <= 2 ? 'met' : 'MISSED'})` +
      `   turn ${f.first.toFixed(3)} -> ${f.last.toFixed(3)} ms = ${slope.toFixed(2)}x (target <= 1.5: ${slope <= 1.5 ? 'met' : 'MISSED'})`,
  );
}

/**
 * The same workload once on a throwaway store first, so the measured run's first ten turns are not its code's first
 * (compiled while running, they were several times slower than warm ones and flattered the per-turn ratio).
 */
async function warm(run: (c: Checkpointer) => Promise<number[]>): Promise<void> {
  await sqliteCase(run);
}

console.log(`checkpoint growth: one execution, ${STEPS} steps x 1 KB (payload ${PAYLOAD / 1024} KB); first ten turns vs last ten, warm`);
for (const [label, run, backend] of [
  ['SQLite, Agent history', agentRun, sqliteCase],
  ['SQLite, Chain state', chainRun, sqliteCase],
  ['Postgres, Agent history', agentRun, postgresCase],
  ['Postgres, Chain state', chainRun, postgresCase],
] as const) {
  await warm(run);
  report(label, await backend(run));
}
// Traced into the same local.db, as on the defaults: the per-turn time (spans and checkpoints both grow with the run;
// the bytes on this line are both together, so the 2x target does not apply to them).
{
  const traced = async (c: Checkpointer) => {
    const times = await agentRun(c, (c as SQLiteCheckpointer).dbPath);
    await flushTraces();
    return times;
  };
  await warm(traced);
  const f = await sqliteCase(traced);
  console.log(
    `  ${'SQLite, Agent, traced'.padEnd(24)} ${(f.bytes / 1024).toFixed(0).padStart(6)} KB on disk (checkpoints and spans) = ${(f.bytes / PAYLOAD).toFixed(2)}x payload` +
      `   turn ${f.first.toFixed(3)} -> ${f.last.toFixed(3)} ms = ${(f.last / f.first).toFixed(2)}x (target <= 1.5: ${f.last / f.first <= 1.5 ? 'met' : 'MISSED'})`,
  );
}
// Last, as it cannot be undone in this process: a secret registered, as a provider key is in a real deployment, so
// every row's state goes through the redactor (ADR 0035).
registerSecret('sk-growth-bench-0123456789abcdef');
await warm(agentRun);
report('SQLite, Agent, a secret', await sqliteCase(agentRun));
