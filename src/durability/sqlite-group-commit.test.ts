import * as assert from 'uvu/assert';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { suite } from '../../test-support/uvu.js';
import { walKeeperCount } from '../store/wal-keeper.js';
import { ChainCheckpointError } from './errors.js';
import { SQLiteCheckpointer } from './sqlite-checkpointer.js';

const test = suite<{ dir: string }>('SQLite group commit', { state: { dir: '' } });

test.beforeEach(async (ctx) => {
  ctx.dir = await mkdtemp(path.join(tmpdir(), 'agentkit-group-'));
});
test.afterEach(async (ctx) => {
  await rm(ctx.dir, { recursive: true, force: true });
});

test('concurrent puts all commit, in the order they were made', async ({ dir }) => {
  const checkpointer = new SQLiteCheckpointer(path.join(dir, 'local.db'));
  try {
    const ids = Array.from({ length: 100 }, (_, i) => `cp-${String(i).padStart(3, '0')}`);
    const rows = await Promise.all(ids.map((id, i) => checkpointer.put({ execution_id: 'e1', chain_name: 'c', node_id: `n${i}`, checkpoint_id: id })));
    assert.equal(
      rows.map((r) => r.checkpoint_id),
      ids,
    );
    assert.equal(
      (await checkpointer.list('e1', { limit: 1000 })).map((r) => r.checkpoint_id),
      ids,
    );
    // Storage order too (rowid): replication reads unsynced rows in it, and list() alone sorts by created_at.
    const reader = new Database(path.join(dir, 'local.db'), { readonly: true });
    try {
      assert.equal(reader.prepare('SELECT checkpoint_id FROM checkpoints ORDER BY rowid').pluck().all(), ids);
    } finally {
      reader.close();
    }
    assert.is(walKeeperCount(), 1, 'the first write handed WAL checkpoints to a keeper');
  } finally {
    await checkpointer.close();
  }
  assert.is(walKeeperCount(), 0, 'close released it');
});

test('a delta row whose base another process deleted is written whole, inside a group commit too; the rows beside it stay deltas', async ({ dir }) => {
  const file = path.join(dir, 'local.db');
  const writer = new SQLiteCheckpointer(file, { commitThread: 'off' });
  const other = new SQLiteCheckpointer(file, { commitThread: 'off' });
  const row = (execution: string, node: string, items: string[]) => ({ execution_id: execution, chain_name: 'c', node_id: node, state_snapshot: { items } });
  try {
    await Promise.all([writer.put(row('gone', 'a', ['1'])), writer.put(row('kept', 'a', ['1']))]);
    await Promise.all([writer.put(row('gone', 'b', ['1', '2'])), writer.put(row('kept', 'b', ['1', '2']))]);
    assert.is(await other.deleteExecution('gone'), 2);
    // One turn, one transaction: 'gone' is remembered against a row that no longer exists.
    const [gone, kept] = await Promise.all([writer.put(row('gone', 'c', ['1', '2', '3'])), writer.put(row('kept', 'c', ['1', '2', '3']))]);
    const reader = new Database(file, { readonly: true });
    try {
      const stored = reader
        .prepare('SELECT checkpoint_id, execution_id, delta_base, state_snapshot FROM checkpoints WHERE node_id = ? ORDER BY rowid')
        .all('c') as Array<Record<string, string | null>>;
      assert.equal(
        stored.map((r) => [r.checkpoint_id, r.delta_base === null]),
        [
          [gone!.checkpoint_id, true],
          [kept!.checkpoint_id, false],
        ],
      );
      assert.equal(JSON.parse(stored[0]!.state_snapshot!), { items: ['1', '2', '3'] });
      assert.equal(JSON.parse(stored[1]!.state_snapshot!), { append: { items: ['3'] } });
    } finally {
      reader.close();
    }
    assert.equal((await other.getLast('gone'))!.state_snapshot, { items: ['1', '2', '3'] });
    assert.equal(
      (await other.list('kept')).map((r) => (r.state_snapshot.items as string[]).length),
      [1, 2, 3],
    );
  } finally {
    await writer.close();
    await other.close();
  }
});

test('a row that cannot be written fails only its own put', async ({ dir }) => {
  const checkpointer = new SQLiteCheckpointer(path.join(dir, 'local.db'));
  try {
    await checkpointer.put({ execution_id: 'e1', chain_name: 'c', node_id: 'a', checkpoint_id: 'taken' });
    const results = await Promise.allSettled([
      checkpointer.put({ execution_id: 'e1', chain_name: 'c', node_id: 'b', checkpoint_id: 'b' }),
      checkpointer.put({ execution_id: 'e1', chain_name: 'c', node_id: 'dup', checkpoint_id: 'taken' }),
      checkpointer.put({ execution_id: 'e1', chain_name: 'c', node_id: 'c', checkpoint_id: 'c' }),
    ]);
    assert.equal(
      results.map((r) => r.status),
      ['fulfilled', 'rejected', 'fulfilled'],
    );
    const failure = (results[1] as PromiseRejectedResult).reason as Error;
    assert.instance(failure, ChainCheckpointError);
    assert.is(failure.message, "checkpoint 'taken' already exists");
    assert.equal(
      (await checkpointer.list('e1')).map((r) => r.node_id),
      ['a', 'b', 'c'],
    );
  } finally {
    await checkpointer.close();
  }
});

test('putWrites joins the group commit and stays atomic: a failing pair writes neither row, the puts around it commit', async ({ dir }) => {
  const checkpointer = new SQLiteCheckpointer(path.join(dir, 'local.db'));
  try {
    await checkpointer.put({ execution_id: 'e1', chain_name: 'c', node_id: 'a', checkpoint_id: 'taken' });
    const results = await Promise.allSettled([
      checkpointer.put({ execution_id: 'e1', chain_name: 'c', node_id: 'b', checkpoint_id: 'b' }),
      checkpointer.putWrites([
        { execution_id: 'e2', chain_name: 'c', node_id: 'last', checkpoint_id: 'fresh' },
        { execution_id: 'e2', chain_name: 'c', node_id: 'run_end', checkpoint_id: 'taken' },
      ]),
      checkpointer.putWrites([
        { execution_id: 'e3', chain_name: 'c', node_id: 'last', checkpoint_id: 'ok-1' },
        { execution_id: 'e3', chain_name: 'c', node_id: 'run_end', checkpoint_id: 'ok-2' },
      ]),
      checkpointer.put({ execution_id: 'e1', chain_name: 'c', node_id: 'c', checkpoint_id: 'c' }),
    ]);
    assert.equal(
      results.map((r) => r.status),
      ['fulfilled', 'rejected', 'fulfilled', 'fulfilled'],
    );
    assert.is(((results[1] as PromiseRejectedResult).reason as Error).message, "checkpoint 'taken' already exists");
    assert.equal(
      (results[2] as PromiseFulfilledResult<Array<{ checkpoint_id: string }>>).value.map((r) => r.checkpoint_id),
      ['ok-1', 'ok-2'],
    );
    assert.equal(await checkpointer.list('e2'), [], 'neither row of the failed pair');
    assert.equal(
      (await checkpointer.list('e3')).map((r) => r.node_id),
      ['last', 'run_end'],
    );
    assert.equal(
      (await checkpointer.list('e1')).map((r) => r.node_id),
      ['a', 'b', 'c'],
    );
    // Alone in its turn, a pair is one transaction too.
    await checkpointer
      .putWrites([
        { execution_id: 'e4', chain_name: 'c', node_id: 'x', checkpoint_id: 'x' },
        { execution_id: 'e4', chain_name: 'c', node_id: 'y', checkpoint_id: 'b' },
      ])
      .then(
        () => assert.unreachable('a duplicate id'),
        (error: Error) => assert.is(error.message, "checkpoint 'b' already exists"),
      );
    assert.equal(await checkpointer.list('e4'), []);
    assert.equal(await checkpointer.putWrites([]), []);
  } finally {
    await checkpointer.close();
  }
});

test('close commits puts it has accepted; a put after close is refused', async ({ dir }) => {
  const file = path.join(dir, 'local.db');
  const checkpointer = new SQLiteCheckpointer(file);
  const pending = checkpointer.put({ execution_id: 'e1', chain_name: 'c', node_id: 'last', checkpoint_id: 'last' });
  await checkpointer.close();
  assert.is((await pending).checkpoint_id, 'last');
  await checkpointer.put({ execution_id: 'e1', chain_name: 'c', node_id: 'late' }).then(
    () => assert.unreachable('a closed checkpointer must refuse'),
    (error: Error) => assert.match(error.message, /is closed/),
  );
  const reopened = new SQLiteCheckpointer(file);
  try {
    assert.equal(
      (await reopened.list('e1')).map((r) => r.checkpoint_id),
      ['last'],
    );
  } finally {
    await reopened.close();
  }
});

test('while another connection holds the write lock, puts wait without blocking the event loop, then commit as deltas', async ({ dir }) => {
  const file = path.join(dir, 'local.db');
  const checkpointer = new SQLiteCheckpointer(file);
  const holder = new Database(file);
  try {
    const state = (n: number) => ({ messages: Array.from({ length: n }, (_, i) => `message ${i} ${'x'.repeat(200)}`) });
    await checkpointer.put({ execution_id: 'e1', chain_name: 'c', node_id: 'n0', checkpoint_id: 'r0', state_snapshot: state(1) });
    holder.prepare('BEGIN IMMEDIATE').run();
    let settled = 0;
    const puts = [1, 2].map((i) =>
      checkpointer.put({ execution_id: 'e1', chain_name: 'c', node_id: `n${i}`, checkpoint_id: `r${i}`, state_snapshot: state(i + 1) }).then((row) => {
        settled += 1;
        return row;
      }),
    );
    // The event loop keeps turning (a blocked loop would fire none of these timers in time) and nothing is written.
    const started = Date.now();
    for (let tick = 0; tick < 20; tick++) await new Promise((r) => setTimeout(r, 5));
    assert.is(settled, 0, 'no put resolves while the lock is held');
    assert.ok(Date.now() - started < 2000, 'timers kept firing while the puts waited');
    // A put made while the batch waits joins it, after it.
    const late = checkpointer.put({ execution_id: 'e1', chain_name: 'c', node_id: 'n3', checkpoint_id: 'r3', state_snapshot: state(4) });
    holder.prepare('COMMIT').run();
    assert.equal(
      (await Promise.all([...puts, late])).map((r) => r.checkpoint_id),
      ['r1', 'r2', 'r3'],
    );
    const reader = new Database(file, { readonly: true });
    try {
      const rows = reader.prepare('SELECT checkpoint_id, delta_base FROM checkpoints ORDER BY rowid').all();
      // The waiting rows were stored against their predecessors, not restarted as full snapshots.
      assert.equal(rows, [
        { checkpoint_id: 'r0', delta_base: null },
        { checkpoint_id: 'r1', delta_base: 'r0' },
        { checkpoint_id: 'r2', delta_base: 'r1' },
        { checkpoint_id: 'r3', delta_base: 'r2' },
      ]);
    } finally {
      reader.close();
    }
    assert.equal((await checkpointer.getLast('e1'))?.state_snapshot, state(4));
    // The connection's busy timeout is back to the store's (5 s): any other write that meets the lock waits for it
    // (here in vain: the holder is on this thread), instead of failing at once.
    holder.prepare('BEGIN IMMEDIATE').run();
    const blocked = Date.now();
    const failure = await checkpointer.putIdempotent('e1', 'k', 1).then(
      () => null,
      (error: { code?: string }) => error,
    );
    assert.is(failure?.code, 'SQLITE_BUSY');
    assert.ok(Date.now() - blocked >= 4000, `waited ${Date.now() - blocked} ms for the lock`);
    holder.prepare('ROLLBACK').run();
  } finally {
    holder.close();
    await checkpointer.close();
  }
});

test('commitThread is accepted and ignored (the commit thread is gone, ADR 0031); another value is refused', async ({ dir }) => {
  for (const mode of ['auto', 'off'] as const) {
    const checkpointer = new SQLiteCheckpointer(path.join(dir, `${mode}.db`), { commitThread: mode });
    try {
      const rows = await Promise.all(
        ['a', 'b', 'c'].map((node) => checkpointer.put({ execution_id: `e-${mode}`, chain_name: 'c', node_id: node, state_snapshot: { node } })),
      );
      assert.equal(
        rows.map((r) => r.node_id),
        ['a', 'b', 'c'],
      );
      assert.is((await checkpointer.list(`e-${mode}`)).length, 3);
    } finally {
      await checkpointer.close();
    }
  }
  assert.throws(
    () => new SQLiteCheckpointer(path.join(dir, 'x.db'), { commitThread: 'thread' as 'auto' }),
    (error: Error) => error instanceof TypeError && error.message === `SQLiteCheckpointer: commitThread must be 'auto' or 'off', got "thread"`,
  );
});

test.run();
