/**
 * local.db v28 (ADR 0029): the SQLite checkpointer finds an execution's rows through the execution's integer key
 * (`executions`, `checkpoints.exec_key`), given to executions in the order they start. These tests drive the
 * checkpointer and read the store file with a second connection.
 */
import * as assert from 'uvu/assert';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { suite } from '../../test-support/uvu.js';
import { SQLiteCheckpointer } from './sqlite-checkpointer.js';
import { ROWS_OF_EXECUTION } from './sqlite-states.js';

const test = suite<{ dir: string }>('SQLite execution keys', { state: { dir: '' } });

test.beforeEach(async (ctx) => {
  ctx.dir = await mkdtemp(path.join(tmpdir(), 'agentkit-exec-keys-'));
});
test.afterEach(async (ctx) => {
  await rm(ctx.dir, { recursive: true, force: true, maxRetries: 5 });
});

const row = (execution: string, node: string, state: Record<string, unknown> = {}) => ({
  execution_id: execution,
  chain_name: 'c',
  node_id: node,
  state_snapshot: state,
});

function read<T>(file: string, sql: string): T[] {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare(sql).all() as T[];
  } finally {
    db.close();
  }
}

test('each execution gets the next key at its first row; later rows, alone or in a group commit, carry it', async ({ dir }) => {
  const file = path.join(dir, 'local.db');
  const checkpointer = new SQLiteCheckpointer(file);
  try {
    // Random-looking ids, started in this order: the keys follow start order, not the ids.
    await checkpointer.put(row('f3c1', 'a'));
    await checkpointer.put(row('0b7e', 'a'));
    await Promise.all([checkpointer.put(row('f3c1', 'b')), checkpointer.put(row('9d20', 'a')), checkpointer.put(row('0b7e', 'b'))]);
    await checkpointer.putWrites([row('9d20', 'b'), row('5a5a', 'a')]);
    assert.equal(read(file, 'SELECT exec_key, execution_id FROM executions ORDER BY exec_key'), [
      { exec_key: 1, execution_id: 'f3c1' },
      { exec_key: 2, execution_id: '0b7e' },
      { exec_key: 3, execution_id: '9d20' },
      { exec_key: 4, execution_id: '5a5a' },
    ]);
    assert.equal(read(file, 'SELECT execution_id, node_id, exec_key FROM checkpoints ORDER BY rowid'), [
      { execution_id: 'f3c1', node_id: 'a', exec_key: 1 },
      { execution_id: '0b7e', node_id: 'a', exec_key: 2 },
      { execution_id: 'f3c1', node_id: 'b', exec_key: 1 },
      { execution_id: '9d20', node_id: 'a', exec_key: 3 },
      { execution_id: '0b7e', node_id: 'b', exec_key: 2 },
      { execution_id: '9d20', node_id: 'b', exec_key: 3 },
      { execution_id: '5a5a', node_id: 'a', exec_key: 4 },
    ]);
    assert.equal(
      (await checkpointer.list('0b7e')).map((c) => c.node_id),
      ['a', 'b'],
    );
    assert.is((await checkpointer.getLast('9d20'))?.node_id, 'b');
    assert.equal(await checkpointer.list('never-ran'), []);
    assert.is(await checkpointer.getLast('never-ran'), null);
  } finally {
    await checkpointer.close();
  }
});

test('deleting an execution removes its key; the same id written again starts over with a new key and only its new rows', async ({ dir }) => {
  const file = path.join(dir, 'local.db');
  const checkpointer = new SQLiteCheckpointer(file);
  try {
    await checkpointer.put(row('e1', 'a', { n: 1 }));
    await checkpointer.put(row('e1', 'b', { n: 2 }));
    await checkpointer.put(row('e2', 'a'));
    assert.is(await checkpointer.deleteExecution('e1'), 2);
    assert.equal(read(file, 'SELECT exec_key, execution_id FROM executions ORDER BY exec_key'), [{ exec_key: 2, execution_id: 'e2' }]);
    await checkpointer.put(row('e1', 'c', { n: 3 }));
    assert.equal(read(file, "SELECT exec_key FROM executions WHERE execution_id = 'e1'"), [{ exec_key: 3 }]);
    const rows = await checkpointer.list('e1');
    assert.equal(
      rows.map((c) => [c.node_id, c.state_snapshot]),
      [['c', { n: 3 }]],
      'a full state, not a delta against a deleted row',
    );
  } finally {
    await checkpointer.close();
  }
});

test('prune removes the keys of executions it emptied and keeps the rest', async ({ dir }) => {
  const file = path.join(dir, 'local.db');
  const checkpointer = new SQLiteCheckpointer(file);
  try {
    await checkpointer.put(row('old', 'a'));
    await checkpointer.put(row('old', 'b'));
    await checkpointer.put(row('kept', 'a'));
    const writer = new Database(file);
    try {
      writer.prepare("UPDATE checkpoints SET created_at = '2020-01-01T00:00:00.000000Z' WHERE execution_id = 'old'").run();
    } finally {
      writer.close();
    }
    assert.is(await checkpointer.prune(new Date('2021-01-01T00:00:00Z')), 2);
    assert.equal(read(file, 'SELECT execution_id FROM executions ORDER BY exec_key'), [{ execution_id: 'kept' }]);
    assert.equal(
      (await checkpointer.list('kept')).map((c) => c.node_id),
      ['a'],
    );
    assert.equal(await checkpointer.list('old'), []);
  } finally {
    await checkpointer.close();
  }
});

test("the checkpointer makes each execution's key before its first row (no trigger needed); the trigger still keys a row whose key another process deleted", async ({
  dir,
}) => {
  const file = path.join(dir, 'local.db');
  const checkpointer = new SQLiteCheckpointer(file);
  try {
    await checkpointer.setup();
    const other = new Database(file);
    try {
      // The store's trigger gone: every key below is the checkpointer's own.
      other.exec('DROP TRIGGER checkpoints_exec_key');
      await checkpointer.put(row('x1', 'a'));
      await Promise.all([checkpointer.put(row('x1', 'b')), checkpointer.put(row('x2', 'a')), checkpointer.put(row('x3', 'a'))]);
      await checkpointer.putWrites([row('x2', 'b'), row('x4', 'a')]);
      assert.equal(
        read(
          file,
          'SELECT c.execution_id, c.node_id, c.exec_key = e.exec_key AS keyed FROM checkpoints c LEFT JOIN executions e USING (execution_id) ORDER BY c.rowid',
        ),
        [
          { execution_id: 'x1', node_id: 'a', keyed: 1 },
          { execution_id: 'x1', node_id: 'b', keyed: 1 },
          { execution_id: 'x2', node_id: 'a', keyed: 1 },
          { execution_id: 'x3', node_id: 'a', keyed: 1 },
          { execution_id: 'x2', node_id: 'b', keyed: 1 },
          { execution_id: 'x4', node_id: 'a', keyed: 1 },
        ],
      );
      assert.equal(
        (await checkpointer.list('x2')).map((c) => c.node_id),
        ['a', 'b'],
      );
      // Back as migrations made it; another process deletes x1's key while this one still remembers x1.
      other.exec(`CREATE TRIGGER checkpoints_exec_key AFTER INSERT ON checkpoints WHEN NEW.exec_key IS NULL BEGIN
        INSERT OR IGNORE INTO executions (execution_id) VALUES (NEW.execution_id);
        UPDATE checkpoints SET exec_key = (SELECT exec_key FROM executions WHERE execution_id = NEW.execution_id) WHERE rowid = NEW.rowid;
      END;`);
      other.prepare("DELETE FROM executions WHERE execution_id = 'x1'").run();
    } finally {
      other.close();
    }
    await checkpointer.put(row('x1', 'c'));
    assert.equal(read(file, "SELECT c.exec_key = e.exec_key AS keyed FROM checkpoints c JOIN executions e USING (execution_id) WHERE c.node_id = 'c'"), [
      { keyed: 1 },
    ]);
    assert.is((await checkpointer.getLast('x1'))?.node_id, 'c');
  } finally {
    await checkpointer.close();
  }
});

test("the checkpointer's reads of one execution use the key's index, not a scan", async ({ dir }) => {
  const file = path.join(dir, 'local.db');
  const checkpointer = new SQLiteCheckpointer(file);
  await checkpointer.put(row('e1', 'a'));
  await checkpointer.close();
  const db = new Database(file, { readonly: true });
  try {
    for (const [sql, params] of [
      [`SELECT * FROM checkpoints WHERE ${ROWS_OF_EXECUTION} ORDER BY created_at DESC, rowid DESC LIMIT 1`, ['e1']],
      [`SELECT * FROM checkpoints WHERE ${ROWS_OF_EXECUTION} ORDER BY created_at ASC, rowid ASC LIMIT 10`, ['e1']],
      [
        `SELECT * FROM checkpoints WHERE ${ROWS_OF_EXECUTION} AND node_id = ? AND agent_path IS ? AND status = 'interrupted' ORDER BY created_at DESC, rowid DESC LIMIT 1`,
        ['e1', 'a', null],
      ],
      [`DELETE FROM checkpoints WHERE ${ROWS_OF_EXECUTION}`, ['e1']],
    ] as const) {
      const plan = (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as Array<{ detail: string }>).map((r) => r.detail);
      assert.ok(
        plan.some((d) => /USING (COVERING )?INDEX idx_cp_exec_key \(exec_key=\?\)/.test(d)),
        plan.join(' | '),
      );
      assert.not.ok(
        plan.some((d) => d.startsWith('SCAN checkpoints')),
        plan.join(' | '),
      );
      assert.not.ok(
        plan.some((d) => d.includes('TEMP B-TREE')),
        `no sort: ${plan.join(' | ')}`,
      );
    }
  } finally {
    db.close();
  }
});

test.run();
