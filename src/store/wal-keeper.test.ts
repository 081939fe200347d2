import * as assert from 'uvu/assert';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { suite } from '../../conformance/harness/uvu.js';
import { retainWalKeeper, walKeeperCount } from './wal-keeper.js';

const test = suite<{ dir: string }>('WAL keeper', { state: { dir: '' } });

test.beforeEach(async (ctx) => {
  ctx.dir = await mkdtemp(path.join(tmpdir(), 'agentkit-wal-'));
});
test.afterEach(async (ctx) => {
  await rm(ctx.dir, { recursive: true, force: true });
});

/** A WAL database with automatic checkpoints off and 200 rows of 2 KB written (about 100 pages in the WAL). */
function writeRows(file: string, keeper: boolean): { db: Database.Database; release: () => void } {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  // The keeper turns automatic checkpoints off itself (asserted below); the control turns them off by hand.
  if (!keeper) db.pragma('wal_autocheckpoint = 0');
  const release = keeper ? retainWalKeeper(db, file, { intervalMs: 20 }) : () => undefined;
  db.exec('CREATE TABLE t (v TEXT)');
  const insert = db.prepare('INSERT INTO t VALUES (?)');
  for (let i = 0; i < 200; i++) insert.run('x'.repeat(2048));
  return { db, release };
}

test('the keeper copies the WAL back into the database file while the writer stays open, off its thread', async ({ dir }) => {
  const control = writeRows(path.join(dir, 'control.db'), false);
  const kept = writeRows(path.join(dir, 'kept.db'), true);
  try {
    assert.is(kept.db.pragma('wal_autocheckpoint', { simple: true }), 0, 'the writer never checkpoints on its own thread');
    assert.is(walKeeperCount(), 1);
    const deadline = Date.now() + 5000;
    while ((await stat(path.join(dir, 'kept.db'))).size < 400 * 1024 && Date.now() < deadline) await sleep(20);
    assert.ok((await stat(path.join(dir, 'kept.db'))).size >= 400 * 1024, 'the rows reached the database file');
    assert.ok((await stat(path.join(dir, 'control.db'))).size < 64 * 1024, 'without a keeper (and autocheckpoint off) they would not have');
  } finally {
    kept.release();
    kept.db.close();
    control.db.close();
  }
  assert.is(walKeeperCount(), 0, 'the last release stops the thread');
});

test('a released connection gets automatic checkpoints back; one keeper serves every connection to a file', async ({ dir }) => {
  const file = path.join(dir, 'shared.db');
  const first = writeRows(file, true);
  const second = new Database(file);
  const releaseSecond = retainWalKeeper(second, file);
  try {
    assert.is(walKeeperCount(), 1, 'one thread per file');
    releaseSecond();
    assert.is(second.pragma('wal_autocheckpoint', { simple: true }), 1000);
    assert.is(walKeeperCount(), 1, 'still retained by the first connection');
  } finally {
    second.close();
    first.release();
    first.db.close();
  }
  assert.is(walKeeperCount(), 0);
});

test.run();
