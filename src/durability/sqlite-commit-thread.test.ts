import * as assert from 'uvu/assert';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { suite } from '../../test-support/uvu.js';
import { ChainCheckpointError } from './errors.js';
import { BASE_GONE, CommitFailed, CommitThread, HALTED, ThreadLost } from './sqlite-commit-thread.js';
import type { Worker } from 'node:worker_threads';
import { WritePriority } from '../store/write-priority.js';
import { SQLiteCheckpointer } from './sqlite-checkpointer.js';

const test = suite<{ dir: string }>('SQLite commit thread (ADR 0031)', { state: { dir: '' } });

test.beforeEach(async (ctx) => {
  ctx.dir = await mkdtemp(path.join(tmpdir(), 'agentkit-commit-thread-'));
});
test.afterEach(async (ctx) => {
  // The commit thread's connection may still be closing (its -wal and -shm files come and go): retry a busy removal.
  await rm(ctx.dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
});

const EXECUTIONS = Array.from({ length: 6 }, (_, i) => `exec-${i}`);

/** A round of concurrent puts, one per execution: each execution's history grows by one entry. */
function round(checkpointer: SQLiteCheckpointer, n: number) {
  return Promise.all(
    EXECUTIONS.map((id) =>
      checkpointer.put({
        execution_id: id,
        chain_name: 'c',
        node_id: `n${n}`,
        node_index: n,
        checkpoint_id: `${id}-${String(n).padStart(3, '0')}`,
        state_snapshot: { log: Array.from({ length: n + 1 }, (_, i) => `entry ${i} of ${id}`) },
      }),
    ),
  );
}

/** Rounds of concurrent puts until the checkpointer commits on its thread (it starts once puts meet in a batch). */
async function untilOnThread(checkpointer: SQLiteCheckpointer): Promise<number> {
  let n = 0;
  const deadline = Date.now() + 10_000;
  while (!checkpointer.usesCommitThread) {
    assert.ok(Date.now() < deadline, 'the commit thread started within 10 s');
    await round(checkpointer, n++);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return n;
}

test('concurrent runs move their group commits to the thread: rows are stored as deltas, in order, and read back whole', async ({ dir }) => {
  const file = path.join(dir, 'local.db');
  const checkpointer = new SQLiteCheckpointer(file);
  let n = await untilOnThread(checkpointer);
  for (const end = n + 20; n < end; n++) {
    const rows = await round(checkpointer, n);
    assert.equal(
      rows.map((r) => (r.state_snapshot.log as string[]).length),
      EXECUTIONS.map(() => n + 1),
      'each put returns its row as stored',
    );
  }
  assert.ok(checkpointer.usesCommitThread);
  for (const id of EXECUTIONS) {
    const rows = await checkpointer.list(id, { limit: 1000 });
    assert.is(rows.length, n);
    assert.equal(rows.at(-1)!.state_snapshot, { log: Array.from({ length: n }, (_, i) => `entry ${i} of ${id}`) });
  }
  await checkpointer.close();
  const db = new Database(file, { readonly: true });
  try {
    // Storage order is write order within each execution (the outbox and getLast rely on it), every row has its
    // execution's key, and rows after the first are deltas against the one before.
    for (const id of EXECUTIONS) {
      const stored = db.prepare('SELECT checkpoint_id, delta_base, exec_key FROM checkpoints WHERE execution_id = ? ORDER BY rowid').all(id) as Array<{
        checkpoint_id: string;
        delta_base: string | null;
        exec_key: number | null;
      }>;
      assert.equal(
        stored.map((r) => r.checkpoint_id),
        Array.from({ length: n }, (_, i) => `${id}-${String(i).padStart(3, '0')}`),
      );
      assert.ok(
        stored.every((r) => r.exec_key !== null),
        'every row has its execution key',
      );
      assert.ok(
        stored.slice(1).every((r, i) => r.delta_base === null || r.delta_base === stored[i]!.checkpoint_id),
        'deltas are against the row before',
      );
      assert.ok(stored.filter((r) => r.delta_base !== null).length >= n - 2, 'rows after the first are deltas');
    }
  } finally {
    db.close();
  }
});

test("on the thread, a turn's first 12 puts are sent ahead as they are made, the rest at the end of the turn, and every row lands in order", async ({
  dir,
}) => {
  const file = path.join(dir, 'local.db');
  const checkpointer = new SQLiteCheckpointer(file);
  const sent: number[] = [];
  const commit = CommitThread.prototype.commit;
  CommitThread.prototype.commit = function (this: CommitThread, rows) {
    sent.push(rows.length);
    return commit.call(this, rows);
  };
  try {
    await untilOnThread(checkpointer);
    for (const count of [20, 11, 12]) {
      sent.length = 0;
      const ids = Array.from({ length: count }, (_, i) => `ahead-${count}-${String(i).padStart(2, '0')}`);
      // All in one turn: no await between the puts.
      const rows = await Promise.all(
        ids.map((id, i) => checkpointer.put({ execution_id: id, chain_name: 'c', node_id: 'n', checkpoint_id: `${id}-cp`, state_snapshot: { i } })),
      );
      assert.equal(
        rows.map((r) => r.checkpoint_id),
        ids.map((id) => `${id}-cp`),
      );
      assert.equal(sent, count > 12 ? [12, count - 12] : [count], `${count} puts in one turn`);
    }
  } finally {
    CommitThread.prototype.commit = commit;
    await checkpointer.close();
  }
  const db = new Database(file, { readonly: true });
  try {
    const stored = db.prepare("SELECT checkpoint_id FROM checkpoints WHERE execution_id LIKE 'ahead-20-%' ORDER BY rowid").pluck().all();
    assert.equal(
      stored,
      Array.from({ length: 20 }, (_, i) => `ahead-20-${String(i).padStart(2, '0')}-cp`),
      'stored in the order put',
    );
  } finally {
    db.close();
  }
});

test('on the thread, a delta row whose base another process deleted comes back refused: the batch is written again here, every row once and in order, then the thread goes on', async ({
  dir,
}) => {
  const file = path.join(dir, 'local.db');
  const checkpointer = new SQLiteCheckpointer(file);
  const other = new SQLiteCheckpointer(file, { commitThread: 'off' });
  try {
    const n = await untilOnThread(checkpointer);
    await round(checkpointer, n);
    const gone = EXECUTIONS[0]!;
    assert.is(await other.deleteExecution(gone), n + 1);
    const rows = await round(checkpointer, n + 1);
    assert.equal(
      rows.map((r) => (r.state_snapshot.log as string[]).length),
      EXECUTIONS.map(() => n + 2),
    );
    assert.ok(checkpointer.usesCommitThread, 'the thread was resumed after the refused batch');
    const reader = new Database(file, { readonly: true });
    try {
      const stored = reader.prepare('SELECT execution_id, delta_base FROM checkpoints WHERE node_id = ? ORDER BY rowid').all(`n${n + 1}`) as Array<{
        execution_id: string;
        delta_base: string | null;
      }>;
      assert.equal(
        stored.map((r) => r.execution_id),
        EXECUTIONS,
        'every row once, in order',
      );
      // A refused batch is written again row by row here, each row whole (its executions were forgotten).
      assert.ok(
        stored.every((r) => r.delta_base === null),
        'the refused batch was written again as full rows',
      );
    } finally {
      reader.close();
    }
    assert.equal(
      (await other.list(gone)).map((r) => r.node_id),
      [`n${n + 1}`],
    );
    assert.equal((await other.getLast(gone))!.state_snapshot, { log: Array.from({ length: n + 2 }, (_, i) => `entry ${i} of ${gone}`) });
    await round(checkpointer, n + 2);
    const reader2 = new Database(file, { readonly: true });
    try {
      const next = reader2
        .prepare('SELECT delta_base FROM checkpoints WHERE node_id = ? ORDER BY rowid')
        .pluck()
        .all(`n${n + 2}`);
      assert.is(next.length, EXECUTIONS.length);
      assert.ok(
        next.every((base) => base !== null),
        'the next batch is deltas again',
      );
    } finally {
      reader2.close();
    }
    for (const id of EXECUTIONS) {
      assert.equal((await other.getLast(id))!.state_snapshot, { log: Array.from({ length: n + 3 }, (_, i) => `entry ${i} of ${id}`) });
    }
  } finally {
    await checkpointer.close();
    await other.close();
  }
});

test("commitThread: 'off' keeps every group commit on the caller's thread", async ({ dir }) => {
  const checkpointer = new SQLiteCheckpointer(path.join(dir, 'local.db'), { commitThread: 'off' });
  try {
    for (let n = 0; n < 10; n++) await round(checkpointer, n);
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.is(checkpointer.usesCommitThread, false);
    assert.is((await checkpointer.list('exec-0', { limit: 100 })).length, 10);
  } finally {
    await checkpointer.close();
  }
  assert.throws(
    () => new SQLiteCheckpointer(path.join(dir, 'x.db'), { commitThread: 'always' as 'auto' }),
    /commitThread must be 'auto' or 'off', got "always"/,
  );
});

test('on the thread, a row that cannot be written fails only its own put, and the batches after it land in order', async ({ dir }) => {
  const checkpointer = new SQLiteCheckpointer(path.join(dir, 'local.db'));
  try {
    // The rounds it took (a loaded machine may need more than 100): the last round below comes after them.
    const rounds = await untilOnThread(checkpointer);
    await checkpointer.put({ execution_id: 'e1', chain_name: 'c', node_id: 'a', checkpoint_id: 'taken' });
    const first = [
      checkpointer.put({ execution_id: 'e1', chain_name: 'c', node_id: 'b', checkpoint_id: 'b' }),
      checkpointer.put({ execution_id: 'e1', chain_name: 'c', node_id: 'dup', checkpoint_id: 'taken' }),
      checkpointer.put({ execution_id: 'e1', chain_name: 'c', node_id: 'c', checkpoint_id: 'c' }),
    ];
    // A later turn of the event loop: another batch, sent while the first may still be on the thread.
    await new Promise((resolve) => setImmediate(resolve));
    const second = [
      checkpointer.put({ execution_id: 'e1', chain_name: 'c', node_id: 'd', checkpoint_id: 'd' }),
      checkpointer.put({ execution_id: 'e2', chain_name: 'c', node_id: 'x', checkpoint_id: 'x' }),
    ];
    const results = await Promise.allSettled([...first, ...second]);
    assert.equal(
      results.map((r) => r.status),
      ['fulfilled', 'rejected', 'fulfilled', 'fulfilled', 'fulfilled'],
    );
    const failure = (results[1] as PromiseRejectedResult).reason as Error;
    assert.instance(failure, ChainCheckpointError);
    assert.is(failure.message, "checkpoint 'taken' already exists");
    assert.equal(
      (await checkpointer.list('e1')).map((r) => r.node_id),
      ['a', 'b', 'c', 'd'],
    );
    // The thread writes again after the failure.
    await round(checkpointer, rounds);
    assert.ok(checkpointer.usesCommitThread);
  } finally {
    await checkpointer.close();
  }
});

test('close waits for the rows on the thread: every accepted put is stored', async ({ dir }) => {
  const file = path.join(dir, 'local.db');
  const checkpointer = new SQLiteCheckpointer(file);
  const n = await untilOnThread(checkpointer);
  const puts = [round(checkpointer, n)];
  await new Promise((resolve) => setImmediate(resolve));
  puts.push(round(checkpointer, n + 1));
  await checkpointer.close();
  // Counted as soon as close returns: nothing is left for the thread to do.
  const db = new Database(file, { readonly: true });
  try {
    assert.is(db.prepare('SELECT count(*) FROM checkpoints').pluck().get(), EXECUTIONS.length * (n + 2));
  } finally {
    db.close();
  }
  assert.is((await Promise.all(puts)).flat().length, EXECUTIONS.length * 2);
});

test('when the thread dies with batches in flight, the checkpointer writes their rows itself, once, and stays on its own thread', async ({ dir }) => {
  const file = path.join(dir, 'local.db');
  // Keep a handle on the thread the checkpointer starts, to kill it.
  const start = CommitThread.start.bind(CommitThread);
  let started: CommitThread | undefined;
  CommitThread.start = (...args: Parameters<typeof CommitThread.start>) => (started = start(...args));
  const checkpointer = new SQLiteCheckpointer(file);
  const holder = new Database(file);
  try {
    const n = await untilOnThread(checkpointer);
    assert.ok(started);
    // The store is locked, so the round's batch waits on the thread: it is in flight when the thread dies.
    holder.exec('BEGIN IMMEDIATE');
    const puts = round(checkpointer, n);
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.is(started!.inFlight, 1);
    const dead = (started as unknown as { worker: Worker }).worker.terminate();
    holder.exec('COMMIT');
    await dead;
    const rows = await puts;
    assert.equal(
      rows.map((r) => r.node_id),
      EXECUTIONS.map(() => `n${n}`),
    );
    assert.is(checkpointer.usesCommitThread, false);
    await round(checkpointer, n + 1);
    assert.is(checkpointer.usesCommitThread, false, 'a lost thread is not started again');
    for (const id of EXECUTIONS) {
      const stored = (await checkpointer.list(id, { limit: 1000 })).map((r) => r.node_id);
      assert.equal(
        stored,
        Array.from({ length: n + 2 }, (_, i) => `n${i}`),
        'every row once, in order',
      );
      assert.equal((await checkpointer.getLast(id))!.state_snapshot, { log: Array.from({ length: n + 2 }, (_, i) => `entry ${i} of ${id}`) });
    }
  } finally {
    CommitThread.start = start;
    holder.close();
    await checkpointer.close();
  }
});

/** The thread's own tests' insert: a second parameter other than 1 stands for a vanished delta base (v is NULL). */
const INSERT_T = "INSERT INTO t (id, v) VALUES (?, CASE WHEN ? = 1 THEN 'x' END)";
const BASE_GONE_T = 'NOT NULL constraint failed: t.v';

/** A WAL store with table t (and keys, the execution keys) and a commit thread on it, started and ready. */
async function threadOnTable(dir: string): Promise<{ setup: Database.Database; thread: CommitThread }> {
  const file = path.join(dir, 'store.db');
  const setup = new Database(file);
  setup.pragma('journal_mode = WAL');
  setup.exec(
    'CREATE TABLE t (id TEXT PRIMARY KEY, v TEXT NOT NULL); CREATE TABLE keys (id TEXT PRIMARY KEY); CREATE TABLE leases (id TEXT PRIMARY KEY, owner TEXT, gen INTEGER, expires INTEGER)',
  );
  const thread = CommitThread.start(
    file,
    {
      insert: INSERT_T,
      ensureExecution: 'INSERT OR IGNORE INTO keys (id) VALUES (?)',
      release: 'UPDATE leases SET expires = 0 WHERE id = ? AND owner = ? AND gen = ?',
      baseGoneMessage: BASE_GONE_T,
    },
    { busyTimeoutMs: 1000, lockWaitMs: 5000 },
  )!;
  const deadline = Date.now() + 10_000;
  while (!thread.ready) {
    if (Date.now() >= deadline) {
      thread.stop();
      setup.close();
      assert.unreachable('the thread did not start within 10 s');
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return { setup, thread };
}

test('the thread itself: a failed batch halts it until resume, a vanished base is its own code, nothing of a failed batch is stored', async ({ dir }) => {
  const { setup, thread } = await threadOnTable(dir);
  try {
    await thread.commit([
      { ensure: 'k1', params: ['a', 1] },
      { ensure: null, params: ['b', 1] },
    ]);
    const failed = await thread
      .commit([
        { ensure: 'k2', params: ['c', 1] },
        { ensure: null, params: ['a', 1] },
      ])
      .catch((error: unknown) => error);
    assert.instance(failed, CommitFailed);
    assert.match((failed as CommitFailed).code!, /^SQLITE_CONSTRAINT/);
    const halted = await thread.commit([{ ensure: null, params: ['d', 1] }]).catch((error: unknown) => error);
    assert.is((halted as CommitFailed).code, HALTED, 'a batch after a failed one is refused until resume');
    thread.resume();
    const gone = await thread
      .commit([
        { ensure: null, params: ['e', 1] },
        { ensure: null, params: ['f', 0] },
      ])
      .catch((error: unknown) => error);
    assert.is((gone as CommitFailed).code, BASE_GONE);
    thread.resume();
    await thread.commit([{ ensure: null, params: ['g', 1] }]);
    assert.is(thread.inFlight, 0);
    assert.equal(setup.prepare('SELECT id FROM t ORDER BY id').pluck().all(), ['a', 'b', 'g'], 'failed batches stored nothing');
    assert.equal(setup.prepare('SELECT id FROM keys').pluck().all(), ['k1'], 'not even their execution keys');
  } finally {
    thread.stop();
    setup.close();
  }
});

test("the thread itself: a row carrying a lease release frees that lease (only the named owner's and generation's) in the row's transaction", async ({
  dir,
}) => {
  const { setup, thread } = await threadOnTable(dir);
  try {
    setup.exec("INSERT INTO leases VALUES ('e1', 'me', 2, 999), ('e2', 'other', 1, 999)");
    await thread.commit([{ ensure: null, params: ['a', 1], release: ['e1', 'me', 2] }]);
    await thread.commit([{ ensure: null, params: ['b', 1], release: ['e2', 'me', 1] }]);
    const rows = setup.prepare('SELECT id, expires FROM leases ORDER BY id').all();
    assert.equal(rows, [
      { id: 'e1', expires: 0 },
      { id: 'e2', expires: 999 },
    ]);
    assert.equal(setup.prepare('SELECT id FROM t ORDER BY id').all(), [{ id: 'a' }, { id: 'b' }]);
  } finally {
    thread.stop();
    setup.close();
  }
});

test('the thread itself: a thread that dies with a batch in flight rejects it as lost, and commits nothing more', async ({ dir }) => {
  const { setup, thread } = await threadOnTable(dir);
  try {
    // The store is locked, so the batch waits on the thread: it is in flight when the thread dies.
    setup.exec('BEGIN IMMEDIATE');
    const pending = thread.commit([{ ensure: null, params: ['a', 1] }]).catch((error: unknown) => error);
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.is(thread.inFlight, 1);
    await (thread as unknown as { worker: Worker }).worker.terminate();
    const lost = await pending;
    assert.instance(lost, ThreadLost);
    assert.match((lost as Error).message, /the commit thread exited/);
    // It died counted as a waiting commit: counted out, span writers stop yielding to it.
    assert.is(new WritePriority().contended, false);
    setup.exec('COMMIT');
    assert.is(thread.ready, false);
    assert.instance(
      await thread.commit([{ ensure: null, params: ['b', 1] }]).catch((error: unknown) => error),
      ThreadLost,
      'a lost thread takes no more batches',
    );
    assert.equal(setup.prepare('SELECT id FROM t').pluck().all(), []);
  } finally {
    setup.close();
  }
});

test('the thread itself: one that dies of an uncaught SqliteError (a bare { code } to the parent) is lost, and the process goes on', async ({ dir }) => {
  const file = path.join(dir, 'store.db');
  const setup = new Database(file);
  setup.pragma('journal_mode = WAL');
  try {
    // The insert names a table the store does not have: preparing it throws on the thread, uncaught.
    const thread = CommitThread.start(
      file,
      { insert: 'INSERT INTO missing_table (id) VALUES (?)', ensureExecution: 'SELECT ?', release: 'SELECT ?, ?, ?', baseGoneMessage: 'unused' },
      { busyTimeoutMs: 1000, lockWaitMs: 5000 },
    )!;
    const worker = (thread as unknown as { worker: Worker }).worker;
    await new Promise((resolve) => worker.once('exit', resolve));
    assert.is(thread.ready, false);
    const refused = await thread.commit([{ ensure: null, params: ['a'] }]).catch((error: unknown) => error);
    assert.instance(refused, ThreadLost, 'a lost thread takes no batches');
  } finally {
    setup.close();
  }
});

test.run();
