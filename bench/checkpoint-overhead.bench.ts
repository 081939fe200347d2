/**
 * Checkpoint overhead per chain step, against the physical floor of the same store.
 *
 * For each backend: the per-step time of a 10-node chain with the checkpointer, minus the same chain without one
 * (the overhead durability adds), next to the time of one raw single-row insert per step on the same store, in the
 * same run: a prepared, autocommitted INSERT of the same row into the same `checkpoints` table (same indexes, the same
 * keys as the checkpointer writes: time-ordered checkpoint ids, a random execution id per 10 rows and, on SQLite, the
 * execution's integer key), with the values precomputed. That is the physical floor of persisting a
 * step: one row per step in one transaction. Targets (issue 18): overhead within 1.3x that insert on SQLite and 1.2x
 * on Postgres. For scale, an insert into a bare one-index table is printed too.
 *
 *   node scripts/bench.mjs checkpoint-overhead
 *
 * Postgres uses AGENTKIT_TEST_PG_URL (default the local test server) in a scratch schema dropped afterwards; it is
 * reported as unavailable when the server does not answer. Figures are medians of several interleaved rounds.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { withScratchSchema } from './lib/pg-scratch.js';
import { Chain, PostgresCheckpointer, SQLiteCheckpointer, type Checkpointer } from '../src/index.js';
import { openLocalStore, utcNow } from '../src/store/index.js';
import { timeOrderedId } from '../src/durability/time-ordered-id.js';

const NODES = 10;
const ROUNDS = 7;

function buildChain(checkpointer: Checkpointer | null): Chain {
  const chain = new Chain('bench', { checkpointer });
  for (let i = 0; i < NODES; i++) {
    chain.addNode(`n${i}`, (state) => ({ [`n${i}`]: i, total: ((state.total as number | undefined) ?? 0) + i }));
    if (i > 0) chain.connect(`n${i - 1}`, `n${i}`);
  }
  return chain;
}

/** Microseconds per chain step over `runs` runs. */
async function perStep(chain: Chain, runs: number): Promise<number> {
  const start = process.hrtime.bigint();
  for (let i = 0; i < runs; i++) await chain.run('bench input');
  return Number(process.hrtime.bigint() - start) / 1000 / (runs * NODES);
}

/** Microseconds per raw insert over `count` inserts. */
async function perInsert(insert: (i: number) => unknown, count: number): Promise<number> {
  const start = process.hrtime.bigint();
  for (let i = 0; i < count; i++) await insert(i);
  return Number(process.hrtime.bigint() - start) / 1000 / count;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** A payload like the state a step writes (the chain's state grows to about this size). */
const payload = JSON.stringify({ input: 'bench input', total: 45, ...Object.fromEntries(Array.from({ length: NODES }, (_, i) => [`n${i}`, i])) });

interface Figures {
  backend: string;
  bare: number;
  withCheckpointer: number;
  raw: number;
  simple: number;
}

/** Keys for raw rows' executions (local.db's `exec_key`), far above the checkpointer's own. */
let rawExecutionKey = 1_000_000_000;

/**
 * Precomputed keys like the chain writes: time-ordered checkpoint ids (ADR 0030), a random execution id per NODES
 * rows with its integer key (local.db v28; given, so the store's trigger has nothing to do), increasing timestamps.
 */
function rawRows(count: number): Array<[string, string, string, number]> {
  let execution = randomUUID();
  let key = rawExecutionKey++;
  return Array.from({ length: count }, (_, i) => {
    if (i % NODES === 0) {
      execution = randomUUID();
      key = rawExecutionKey++;
    }
    return [timeOrderedId(), execution, utcNow(), key];
  });
}

function summarize(backend: string, rounds: Array<[number, number, number, number]>): Figures {
  const at = (k: number) => median(rounds.map((x) => x[k]!));
  return { backend, bare: at(0), withCheckpointer: at(1), raw: at(2), simple: at(3) };
}

async function sqliteFigures(): Promise<Figures> {
  const dir = await mkdtemp(path.join(tmpdir(), 'agentkit-bench-'));
  const file = path.join(dir, 'local.db');
  const checkpointer = new SQLiteCheckpointer(file);
  const db = openLocalStore(file);
  const insert = db.prepare(`INSERT INTO checkpoints (checkpoint_id, chain_name, execution_id, node_id, node_index, status, step_type,
    state_snapshot, node_output, iteration, iteration_counters, created_at, synced, exec_key)
    VALUES (?, 'bench', ?, 'n1', 1, 'completed', 'node', ?, '{"n1":1}', 1, '{}', ?, 0, ?)`);
  db.exec('CREATE TABLE bench_bare (id TEXT PRIMARY KEY, payload TEXT NOT NULL)');
  const bareInsert = db.prepare('INSERT INTO bench_bare (id, payload) VALUES (?, ?)');
  const bare = buildChain(null);
  const durable = buildChain(checkpointer);
  const runs = 300;
  try {
    await perStep(bare, 50);
    await perStep(durable, 50);
    const rounds: Array<[number, number, number, number]> = [];
    for (let r = 0; r < ROUNDS; r++) {
      const b = await perStep(bare, runs);
      const d = await perStep(durable, runs);
      const rows = rawRows(runs * NODES);
      const raw = await perInsert((i) => insert.run(rows[i]![0], rows[i]![1], payload, rows[i]![2], rows[i]![3]), rows.length);
      const simple = await perInsert((i) => bareInsert.run(rows[i]![0], payload), rows.length);
      rounds.push([b, d, raw, simple]);
    }
    return summarize('SQLite', rounds);
  } finally {
    db.close();
    await checkpointer.close();
    await rm(dir, { recursive: true, force: true });
  }
}

async function postgresFigures(): Promise<Figures | string> {
  return withScratchSchema(async (url, schema, admin) => {
    const checkpointer = new PostgresCheckpointer(url, { schema });
    const raw = new pg.Pool({ connectionString: url, max: 1 });
    try {
      await checkpointer.setup();
      await admin.query(`CREATE TABLE "${schema}".bench_bare (id TEXT PRIMARY KEY, payload JSONB NOT NULL)`);
      const sql = `INSERT INTO "${schema}".checkpoints (checkpoint_id, chain_name, execution_id, node_id, node_index, status, step_type,
        state_snapshot, node_output, iteration, iteration_counters, created_at)
        VALUES ($1, 'bench', $2, 'n1', 1, 'completed', 'node', $3::jsonb, '{"n1":1}'::jsonb, 1, '{}'::jsonb, $4::timestamptz)`;
      const bareSql = `INSERT INTO "${schema}".bench_bare (id, payload) VALUES ($1, $2::jsonb)`;
      const bare = buildChain(null);
      const durable = buildChain(checkpointer);
      const runs = 60;
      await perStep(bare, 20);
      await perStep(durable, 20);
      const warm = rawRows(100);
      await perInsert((i) => raw.query(sql, [warm[i]![0], warm[i]![1], payload, warm[i]![2]]), warm.length);
      const rounds: Array<[number, number, number, number]> = [];
      for (let r = 0; r < ROUNDS; r++) {
        const b = await perStep(bare, runs);
        const d = await perStep(durable, runs);
        const rows = rawRows(runs * NODES);
        const rawInsert = await perInsert((i) => raw.query(sql, [rows[i]![0], rows[i]![1], payload, rows[i]![2]]), rows.length);
        const simple = await perInsert((i) => raw.query(bareSql, [rows[i]![0], payload]), rows.length);
        rounds.push([b, d, rawInsert, simple]);
      }
      return summarize('Postgres', rounds);
    } finally {
      await raw.end();
      await checkpointer.close();
    }
  });
}

function report(figures: Figures, target: number): void {
  const overhead = figures.withCheckpointer - figures.bare;
  const ratio = overhead / figures.raw;
  console.log(`${figures.backend}:`);
  console.log(`  chain step without a checkpointer  ${figures.bare.toFixed(1).padStart(8)} us`);
  console.log(`  chain step with the checkpointer   ${figures.withCheckpointer.toFixed(1).padStart(8)} us`);
  console.log(`  checkpoint overhead per step       ${overhead.toFixed(1).padStart(8)} us`);
  console.log(`  raw checkpoint-row insert (floor)  ${figures.raw.toFixed(1).padStart(8)} us`);
  console.log(
    `  overhead / raw insert              ${ratio.toFixed(2).padStart(8)} x   (target <= ${target.toFixed(2)}: ${ratio <= target ? 'met' : 'MISSED'})`,
  );
  console.log(
    `  for scale: bare one-index insert   ${figures.simple.toFixed(1).padStart(8)} us   (overhead / it: ${(overhead / figures.simple).toFixed(2)} x)`,
  );
}

console.log(`checkpoint overhead: ${NODES}-node chain, medians of ${ROUNDS} interleaved rounds`);
report(await sqliteFigures(), 1.3);
const pgFigures = await postgresFigures();
if (typeof pgFigures === 'string') console.log(`Postgres: ${pgFigures}`);
else report(pgFigures, 1.2);
