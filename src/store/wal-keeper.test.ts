import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { suite } from '../../test-support/uvu.js';
import { openLocalStore } from './open.js';
import { retainWalKeeper, walKeeperCount, walKeeperThreadCount, WRITER_CHECKPOINT_FRAMES } from './wal-keeper.js';

const test = suite<{ dir: string }>('WAL keeper', { state: { dir: '' } });

test.beforeEach(async (ctx) => {
  ctx.dir = await mkdtemp(path.join(tmpdir(), 'agentkit-wal-'));
});
test.afterEach(async (ctx) => {
  // No retries: every test awaits its last release, which settles once the keeper thread has closed its connection.
  await rm(ctx.dir, { recursive: true, force: true });
});

/** A WAL database with automatic checkpoints off and 200 rows of 2 KB written (about 100 pages in the WAL). */
function writeRows(file: string, keeper: boolean): { db: Database.Database; release: () => Promise<void> } {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  // The keeper turns automatic checkpoints off itself (asserted below); the control turns them off by hand.
  if (!keeper) db.pragma('wal_autocheckpoint = 0');
  const release = keeper ? retainWalKeeper(db, file, { intervalMs: 20 }) : () => Promise.resolve();
  db.exec('CREATE TABLE t (v TEXT)');
  const insert = db.prepare('INSERT INTO t VALUES (?)');
  for (let i = 0; i < 200; i++) insert.run('x'.repeat(2048));
  return { db, release };
}

test('the keeper copies the WAL back into the database file while the writer stays open, off its thread', async ({ dir }) => {
  const control = writeRows(path.join(dir, 'control.db'), false);
  const kept = writeRows(path.join(dir, 'kept.db'), true);
  try {
    assert.is(kept.db.pragma('wal_autocheckpoint', { simple: true }), WRITER_CHECKPOINT_FRAMES, 'the writer checkpoints on its own thread only as a backstop');
    assert.is(walKeeperCount(), 1);
    const deadline = Date.now() + 5000;
    while ((await stat(path.join(dir, 'kept.db'))).size < 400 * 1024 && Date.now() < deadline) await sleep(20);
    assert.ok((await stat(path.join(dir, 'kept.db'))).size >= 400 * 1024, 'the rows reached the database file');
    assert.ok((await stat(path.join(dir, 'control.db'))).size < 64 * 1024, 'without a keeper (and autocheckpoint off) they would not have');
  } finally {
    const stopped = kept.release();
    kept.db.close();
    control.db.close();
    await stopped;
  }
  assert.is(walKeeperCount(), 0, 'the last release stops the thread');
});

test('the last release settles once the thread has closed its connection: the store is one file again, even for a thread still starting', async ({ dir }) => {
  const file = path.join(dir, 'brief.db');
  for (let round = 0; round < 5; round++) {
    const db = openLocalStore(file);
    db.exec('CREATE TABLE IF NOT EXISTS t (v TEXT)');
    // Released at once: the thread is still loading SQLite when it is told to stop, and opens the file after that.
    const release = retainWalKeeper(db, file);
    db.prepare('INSERT INTO t VALUES (?)').run(`round ${round}`);
    const stopped = release();
    db.close();
    await stopped;
    assert.is(walKeeperCount(), 0, 'the file has no keeper');
    assert.is(walKeeperThreadCount(), 0, 'the thread has exited');
    assert.equal(await readdir(dir), ['brief.db'], 'no -wal or -shm left behind by the keeper');
  }
  const check = new Database(file);
  assert.is((check.prepare('SELECT count(*) AS n FROM t').get() as { n: number }).n, 5);
  check.close();
});

test('a process with nothing else to do still sees the last release settle (the stopping thread keeps it alive)', async ({ dir }) => {
  // The CLI's commands close their store and then print: the process must not end while the keeper stops.
  const file = path.join(dir, 'cli.db');
  const script = `
    import { openLocalStore } from ${JSON.stringify(path.resolve('src/store/open.ts'))};
    import { retainWalKeeper } from ${JSON.stringify(path.resolve('src/store/wal-keeper.ts'))};
    const db = openLocalStore(${JSON.stringify(file)});
    const release = retainWalKeeper(db, ${JSON.stringify(file)});
    db.exec('CREATE TABLE t (v TEXT)');
    const stopped = release();
    db.close();
    stopped.then(() => process.stdout.write('settled'));`;
  const { code, out, err } = await new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c));
    child.stderr.on('data', (c: Buffer) => (err += c));
    child.on('close', (code) => resolve({ code, out, err }));
  });
  assert.is(code, 0, err);
  assert.is(out, 'settled', 'the process ended before the release settled');
  assert.equal(await readdir(dir), ['cli.db']);
}, 30_000);

test('a released connection gets automatic checkpoints back; one keeper serves every connection to a file', async ({ dir }) => {
  const file = path.join(dir, 'shared.db');
  const first = writeRows(file, true);
  const second = new Database(file);
  const releaseSecond = retainWalKeeper(second, file);
  try {
    assert.is(walKeeperCount(), 1, 'one thread per file');
    await releaseSecond();
    assert.is(second.pragma('wal_autocheckpoint', { simple: true }), 1000);
    assert.is(walKeeperCount(), 1, 'still retained by the first connection');
  } finally {
    second.close();
    const stopped = first.release();
    first.db.close();
    await stopped;
  }
  assert.is(walKeeperCount(), 0);
});

test('the WAL stays bounded while a kept connection writes without pause, and starts over', async ({ dir }) => {
  // Before the backstop (automatic checkpoints off on a kept connection) this loop left a WAL of about 70 MB:
  // SQLite starts the WAL over only after a checkpoint that copied every frame, which the keeper never saw.
  const file = path.join(dir, 'busy.db');
  const db = openLocalStore(file);
  const release = retainWalKeeper(db, file);
  try {
    const pageSize = db.pragma('page_size', { simple: true }) as number;
    db.exec('CREATE TABLE t (v TEXT)');
    const insert = db.prepare('INSERT INTO t VALUES (?)');
    // Four times the backstop's frames: a WAL that never started over would end at 4x the threshold.
    const frames = 4 * WRITER_CHECKPOINT_FRAMES;
    let largest = 0;
    for (let i = 0; i < frames; i++) {
      insert.run('x'.repeat(500)); // one frame a commit
      if (i % 100 === 0) {
        largest = Math.max(largest, (await stat(`${file}-wal`)).size);
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
    largest = Math.max(largest, (await stat(`${file}-wal`)).size);
    // The backstop checkpoint cannot run while the keeper's own pass over the large WAL holds the checkpoint lock, so
    // a writer this fast (10 us a commit on some disks) adds frames until that pass ends, the longer the slower the
    // disk's copy and fsync: measured up to 1.26x the threshold on one VM, 1.75x on another and 2.86x on a machine whose
    // two cores ran three test suites. 3.5x still proves the WAL started over: the loop writes 4x its frames.
    const bound = Math.round(3.5 * WRITER_CHECKPOINT_FRAMES) * (pageSize + 24);
    assert.ok(largest <= bound, `the WAL reached ${largest} bytes for ${frames} commits (bound ${bound})`);
    assert.is((db.prepare('SELECT count(*) AS n FROM t').get() as { n: number }).n, frames);
  } finally {
    const stopped = release();
    db.close();
    await stopped;
  }
});

test('a reader that keeps its snapshot does not get writers held off every tick: the RESTART retries back off', async ({ dir }) => {
  const file = path.join(dir, 'reader.db');
  const db = openLocalStore(file);
  db.exec('CREATE TABLE t (v TEXT)');
  const reader = new Database(file, { readonly: true });
  reader.prepare('BEGIN').run();
  reader.prepare('SELECT count(*) FROM t').get(); // the snapshot is taken: the WAL cannot start over while it is held
  const release = retainWalKeeper(db, file);
  try {
    // Over BUSY_FRAMES frames, so every keeper pass tries a RESTART, which the reader makes wait and fail.
    const insert = db.prepare('INSERT INTO t VALUES (?)');
    for (let i = 0; i < 1200; i++) insert.run('x'.repeat(500));
    // Writes that never wait (as a group commit's first attempt): the time the keeper holds them off is the time
    // they find the lock taken. A RESTART attempt holds writers for up to 10 ms; every 20 ms that is about a third.
    db.pragma('busy_timeout = 0');
    let blockedMs = 0;
    const started = Date.now();
    while (Date.now() - started < 2000) {
      const attempt = Date.now();
      try {
        insert.run('y');
      } catch (error) {
        if ((error as { code?: string }).code !== 'SQLITE_BUSY') throw error;
        await sleep(1);
        blockedMs += Date.now() - attempt;
        continue;
      }
      await sleep(1);
    }
    assert.ok(blockedMs < 400, `writers were held off ${blockedMs} ms of 2000`);
  } finally {
    reader.prepare('COMMIT').run();
    reader.close();
    const stopped = release();
    db.close();
    await stopped;
  }
});

test.run();
