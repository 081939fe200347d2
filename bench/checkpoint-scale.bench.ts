/**
 * Checkpoint cost as the store grows: does a row cost more in a store of 240,000 rows than in one of 30,000?
 *
 * The load is a serving process's: 30 executions at a time, four rows each, through `SQLiteCheckpointer.put` (their
 * rows share group commits), each execution with a fresh random (v4) id, as the spec makes them. Per window of
 * 30,000 rows: microseconds per row (wall, one thread writing) and the main thread's CPU per row.
 *
 * Baselines in the same run: the same rows in the same batches inserted by raw SQL into the two index layouts of
 * the `checkpoints` table: the one local.db had before v28 (an index on the random execution id: each row lands on a
 * random leaf) and the one it has now (an index on the execution's integer key, ADR 0029). The issue has no
 * figure for this; what is shown is whether a row's cost stays flat as the store grows (last window / first).
 *
 *   node scripts/bench.mjs checkpoint-scale          BENCH_WINDOWS (default 8) windows of 30,000 rows
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SQLiteCheckpointer } from '../src/index.js';
import { openLocalStore, utcNow } from '../src/store/index.js';
import { timeOrderedId } from '../src/durability/time-ordered-id.js';

const WINDOWS = Number(process.env.BENCH_WINDOWS ?? 8);
const WINDOW = 30_000;
const CONCURRENT = 30;
const ROWS_PER_EXECUTION = 4;
/** A state like a served agent's (a short history). */
const STATE = { messages: 'x'.repeat(300) };

interface Window {
  rows: number;
  wallUs: number;
  cpuUs: number;
}

/** Per-window costs of `write(batch)` called with CONCURRENT new executions' rows at a time. */
async function measure(writeRound: () => Promise<void>): Promise<Window[]> {
  const windows: Window[] = [];
  let rows = 0;
  for (let w = 0; w < WINDOWS; w++) {
    const start = process.hrtime.bigint();
    const cpu = process.cpuUsage();
    const target = rows + WINDOW;
    while (rows < target) {
      await writeRound();
      rows += CONCURRENT * ROWS_PER_EXECUTION;
    }
    const used = process.cpuUsage(cpu);
    windows.push({ rows, wallUs: Number(process.hrtime.bigint() - start) / 1000 / WINDOW, cpuUs: (used.user + used.system) / WINDOW });
  }
  return windows;
}

async function checkpointerCase(dir: string): Promise<Window[]> {
  const checkpointer = new SQLiteCheckpointer(path.join(dir, 'checkpointer.db'));
  const execution = async () => {
    const id = randomUUID();
    for (let i = 0; i < ROWS_PER_EXECUTION; i++)
      await checkpointer.put({ execution_id: id, chain_name: 'served', node_id: `n${i}`, state_snapshot: { ...STATE, i } });
  };
  try {
    return await measure(async () => {
      await Promise.all(Array.from({ length: CONCURRENT }, execution));
    });
  } finally {
    await checkpointer.close();
  }
}

/** Raw inserts into `checkpoints`, one transaction per batch of CONCURRENT rows, on the old or the new index. */
async function rawCase(dir: string, layout: 'random-id index (before v28)' | 'execution key index (v28)'): Promise<Window[]> {
  const db = openLocalStore(path.join(dir, layout.startsWith('random') ? 'raw-v27.db' : 'raw-v28.db'));
  const byId = layout.startsWith('random');
  if (byId) db.exec('DROP INDEX idx_cp_exec_key; DROP TRIGGER checkpoints_exec_key; CREATE INDEX idx_cp_exec ON checkpoints(execution_id, created_at);');
  const insert = db.prepare(`INSERT INTO checkpoints (checkpoint_id, chain_name, execution_id, node_id, state_snapshot, created_at, exec_key)
    VALUES (?, 'served', ?, ?, ?, ?, ?)`);
  const state = JSON.stringify(STATE);
  let nextKey = 1;
  const batch = db.transaction((executions: Array<[string, number]>, step: number) => {
    for (const [id, key] of executions) insert.run(timeOrderedId(), id, `n${step}`, state, utcNow(), byId ? null : key);
  });
  try {
    return await measure(async () => {
      const executions = Array.from({ length: CONCURRENT }, () => [randomUUID(), nextKey++] as [string, number]);
      // Four group commits, as four steps of thirty concurrent runs; a turn of the event loop between them.
      for (let step = 0; step < ROWS_PER_EXECUTION; step++) {
        batch(executions, step);
        await new Promise((resolve) => setImmediate(resolve));
      }
    });
  } finally {
    db.close();
  }
}

function print(label: string, windows: Window[]): void {
  const first = windows[0]!;
  const last = windows.at(-1)!;
  const growth = last.wallUs / first.wallUs;
  console.log(`  ${label}`);
  console.log(`    per row, by store size: ${windows.map((w) => `${w.rows / 1000}k ${w.wallUs.toFixed(1)}`).join(', ')} us`);
  console.log(
    `    first -> last window: ${first.wallUs.toFixed(1)} -> ${last.wallUs.toFixed(1)} us = ${growth.toFixed(2)}x; CPU ${first.cpuUs.toFixed(1)} -> ${last.cpuUs.toFixed(1)} us`,
  );
}

const dir = await mkdtemp(path.join(tmpdir(), 'agentkit-scale-'));
try {
  console.log(`checkpoint cost as the store grows: ${CONCURRENT} executions at a time, ${ROWS_PER_EXECUTION} rows each, windows of ${WINDOW} rows`);
  const oldRaw = await rawCase(dir, 'random-id index (before v28)');
  const newRaw = await rawCase(dir, 'execution key index (v28)');
  const checkpointer = await checkpointerCase(dir);
  print('baseline: raw insert, random-id index (before v28)', oldRaw);
  print('raw insert, execution key index (v28)', newRaw);
  print('SQLiteCheckpointer.put (v28)', checkpointer);
  const lastRatio = newRaw.at(-1)!.wallUs / oldRaw.at(-1)!.wallUs;
  const growth = checkpointer.at(-1)!.wallUs / checkpointer[0]!.wallUs;
  console.log(`  raw insert at ${oldRaw.at(-1)!.rows / 1000}k rows, key index / random-id index: ${lastRatio.toFixed(2)}x`);
  console.log(`  checkpointer, last window / first: ${growth.toFixed(2)}x`);
} finally {
  await rm(dir, { recursive: true, force: true });
}
