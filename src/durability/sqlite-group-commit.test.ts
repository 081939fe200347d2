import * as assert from 'uvu/assert';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { suite } from '../../conformance/harness/uvu.js';
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
    assert.equal(rows.map((r) => r.checkpoint_id), ids);
    assert.equal((await checkpointer.list('e1', { limit: 1000 })).map((r) => r.checkpoint_id), ids);
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

test('a row that cannot be written fails only its own put', async ({ dir }) => {
  const checkpointer = new SQLiteCheckpointer(path.join(dir, 'local.db'));
  try {
    await checkpointer.put({ execution_id: 'e1', chain_name: 'c', node_id: 'a', checkpoint_id: 'taken' });
    const results = await Promise.allSettled([
      checkpointer.put({ execution_id: 'e1', chain_name: 'c', node_id: 'b', checkpoint_id: 'b' }),
      checkpointer.put({ execution_id: 'e1', chain_name: 'c', node_id: 'dup', checkpoint_id: 'taken' }),
      checkpointer.put({ execution_id: 'e1', chain_name: 'c', node_id: 'c', checkpoint_id: 'c' }),
    ]);
    assert.equal(results.map((r) => r.status), ['fulfilled', 'rejected', 'fulfilled']);
    const failure = (results[1] as PromiseRejectedResult).reason as Error;
    assert.instance(failure, ChainCheckpointError);
    assert.is(failure.message, "checkpoint 'taken' already exists");
    assert.equal((await checkpointer.list('e1')).map((r) => r.node_id), ['a', 'b', 'c']);
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
    assert.equal((await reopened.list('e1')).map((r) => r.checkpoint_id), ['last']);
  } finally {
    await reopened.close();
  }
});

test.run();
