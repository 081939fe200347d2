import * as assert from 'uvu/assert';
import { mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import Database from 'better-sqlite3';
import { suite } from '../../test-support/uvu.js';
import { LATEST_SCHEMA_VERSION, StoreOpenError, StoreVersionError, openLocalStore, schemaVersion, utcNow } from './index.js';
import { checkpointDbPath, localDbPath } from '../config/paths.js';

const test = suite<{ dir: string }>('local store', { state: { dir: '' } });

test.beforeEach(async (ctx) => {
  ctx.dir = await mkdtemp(path.join(tmpdir(), 'agentkit-store-'));
});
test.afterEach(async (ctx) => {
  await rm(ctx.dir, { recursive: true, force: true });
});

test('a new store is created private (dir 0700, file 0600), in WAL mode, at the latest schema', async ({ dir }) => {
  const file = path.join(dir, '.agentkit', 'local.db');
  const db = openLocalStore(file);
  try {
    assert.is((await stat(path.dirname(file))).mode & 0o777, 0o700);
    assert.is((await stat(file)).mode & 0o777, 0o600);
    assert.is(db.pragma('journal_mode', { simple: true }), 'wal');
    assert.is(db.pragma('synchronous', { simple: true }), 1, 'NORMAL');
    assert.is(db.pragma('busy_timeout', { simple: true }), 5000);
    assert.is(schemaVersion(db), LATEST_SCHEMA_VERSION);
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all();
    for (const table of ['attachments', 'checkpoints', 'guardrail_events', 'idempotency_cache', 'pending_interrupts', 'spans', 'trace_annotations']) {
      assert.ok(tables.includes(table), `table ${table}`);
    }
    db.prepare("INSERT INTO pending_interrupts (execution_id, chain_name, node_id, reason, created_at) VALUES ('e', 'c', 'n', 'r', 'now')").run();
    assert.is((await stat(`${file}-wal`)).mode & 0o777, 0o600, 'the WAL file is as private as the store');
  } finally {
    db.close();
  }
});

test('opening again is a no-op: setup is idempotent and keeps data', ({ dir }) => {
  const file = path.join(dir, 'local.db');
  const first = openLocalStore(file);
  first.prepare("INSERT INTO spans (span_id, trace_id, name, start_time) VALUES ('s1', 't1', 'agent.x', ?)").run(utcNow());
  first.close();
  const second = openLocalStore(file);
  try {
    assert.is(schemaVersion(second), LATEST_SCHEMA_VERSION);
    assert.is(second.prepare('SELECT count(*) FROM spans').pluck().get(), 1);
  } finally {
    second.close();
  }
});

test('a pre-v20 store upgrades in place and its checkpoint rows keep a NULL step_type', ({ dir }) => {
  const file = path.join(dir, 'local.db');
  const old = openLocalStore(file, { targetVersion: 19 });
  assert.is(schemaVersion(old), 19);
  const columns = old.prepare('PRAGMA table_info(checkpoints)').all() as Array<{ name: string }>;
  assert.not.ok(
    columns.some((c) => c.name === 'step_type'),
    'v19 has no step_type',
  );
  old
    .prepare("INSERT INTO checkpoints (id, checkpoint_id, chain_name, execution_id, node_id, created_at) VALUES ('c1', 'c1', 'chain', 'e1', 'a', ?)")
    .run(utcNow());
  old.close();
  const upgraded = openLocalStore(file);
  try {
    assert.is(schemaVersion(upgraded), LATEST_SCHEMA_VERSION);
    const row = upgraded.prepare("SELECT step_type, run_status FROM checkpoints WHERE id = 'c1'").get() as { step_type: unknown; run_status: unknown };
    assert.equal(row, { step_type: null, run_status: null });
  } finally {
    upgraded.close();
  }
});

test('v28: executions get integer keys in the order they started; rows find theirs, written by any SQL; the index is on the key', ({ dir }) => {
  const file = path.join(dir, 'local.db');
  const old = openLocalStore(file, { targetVersion: 27 });
  const insert = old.prepare("INSERT INTO checkpoints (checkpoint_id, chain_name, execution_id, node_id, created_at) VALUES (?, 'chain', ?, 'a', ?)");
  // Two executions, interleaved; 'e-late' sorts first by id but started second.
  for (const [id, execution] of [
    ['c1', 'e-zeta'],
    ['c2', 'e-late'],
    ['c3', 'e-zeta'],
    ['c4', 'e-late'],
  ])
    insert.run(id, execution, utcNow());
  old.close();
  const upgraded = openLocalStore(file);
  try {
    assert.equal(upgraded.prepare('SELECT exec_key, execution_id FROM executions ORDER BY exec_key').all(), [
      { exec_key: 1, execution_id: 'e-zeta' },
      { exec_key: 2, execution_id: 'e-late' },
    ]);
    assert.equal(upgraded.prepare('SELECT checkpoint_id, exec_key FROM checkpoints ORDER BY rowid').all(), [
      { checkpoint_id: 'c1', exec_key: 1 },
      { checkpoint_id: 'c2', exec_key: 2 },
      { checkpoint_id: 'c3', exec_key: 1 },
      { checkpoint_id: 'c4', exec_key: 2 },
    ]);
    // A row written without a key (SQL of a tool or a test) gets its execution's key, a new execution the next one.
    const plain = upgraded.prepare("INSERT INTO checkpoints (checkpoint_id, chain_name, execution_id, node_id, created_at) VALUES (?, 'chain', ?, 'a', ?)");
    plain.run('c5', 'e-late', utcNow());
    plain.run('c6', 'e-new', utcNow());
    assert.equal(upgraded.prepare("SELECT checkpoint_id, exec_key FROM checkpoints WHERE checkpoint_id IN ('c5', 'c6') ORDER BY rowid").all(), [
      { checkpoint_id: 'c5', exec_key: 2 },
      { checkpoint_id: 'c6', exec_key: 3 },
    ]);
    const indexes = upgraded.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'checkpoints' ORDER BY name").pluck().all();
    assert.ok(indexes.includes('idx_cp_exec_key') && !indexes.includes('idx_cp_exec'), `indexes: ${indexes.join(', ')}`);
    // An execution's rows are read through its key's index, not by scanning for the random id.
    const plan = (
      upgraded
        .prepare(
          'EXPLAIN QUERY PLAN SELECT * FROM checkpoints WHERE exec_key = (SELECT exec_key FROM executions WHERE execution_id = ?) ORDER BY created_at DESC, rowid DESC LIMIT 1',
        )
        .all('e-late') as Array<{ detail: string }>
    ).map((row) => row.detail);
    assert.ok(
      plan.some((detail) => /USING INDEX idx_cp_exec_key \(exec_key=\?\)/.test(detail)),
      plan.join(' | '),
    );
    assert.not.ok(
      plan.some((detail) => /^SCAN checkpoints/.test(detail)),
      plan.join(' | '),
    );
  } finally {
    upgraded.close();
  }
});

test('v26: checkpoint_id becomes the key (no id index), rows and their write order are kept; new stores get 8 KiB pages', ({ dir }) => {
  const file = path.join(dir, 'local.db');
  const old = openLocalStore(file, { targetVersion: 25 });
  assert.is(old.pragma('page_size', { simple: true }), 8192, 'a new file gets 8 KiB pages');
  const insert = old.prepare(
    "INSERT INTO checkpoints (id, checkpoint_id, chain_name, execution_id, node_id, state_snapshot, created_at) VALUES (?, ?, 'chain', 'e1', 'a', ?, ?)",
  );
  for (const id of ['z', 'a', 'm']) insert.run(id, id, JSON.stringify({ id }), utcNow());
  old.close();
  const upgraded = openLocalStore(file);
  try {
    assert.equal(upgraded.prepare('SELECT checkpoint_id, id, state_snapshot, delta_base, output_keys FROM checkpoints ORDER BY rowid').all(), [
      { checkpoint_id: 'z', id: 'z', state_snapshot: '{"id":"z"}', delta_base: null, output_keys: null },
      { checkpoint_id: 'a', id: 'a', state_snapshot: '{"id":"a"}', delta_base: null, output_keys: null },
      { checkpoint_id: 'm', id: 'm', state_snapshot: '{"id":"m"}', delta_base: null, output_keys: null },
    ]);
    const indexes = upgraded.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'checkpoints' ORDER BY name").pluck().all();
    assert.equal(
      indexes,
      ['idx_cp_exec_key', 'idx_cp_quarantined', 'idx_cp_status_problem', 'idx_cp_unsynced', 'sqlite_autoindex_checkpoints_1'],
      'one key index, not two',
    );
    assert.throws(
      () => upgraded.prepare("INSERT INTO checkpoints (checkpoint_id, chain_name, execution_id, node_id, created_at) VALUES ('a', 'c', 'e', 'n', 'x')").run(),
      /UNIQUE/,
    );
  } finally {
    upgraded.close();
  }
});

test('v30: the outbox reads unsynced checkpoints through idx_cp_unsynced in write order, with no sort; idx_cp_synced is gone', ({ dir }) => {
  const file = path.join(dir, 'local.db');
  const old = openLocalStore(file, { targetVersion: 29 });
  const insert = old.prepare(
    "INSERT INTO checkpoints (checkpoint_id, chain_name, execution_id, node_id, state_snapshot, created_at, synced) VALUES (?, 'chain', 'e1', 'a', '{}', ?, ?)",
  );
  // Timestamps out of write order, and some rows already pushed.
  for (const [id, at, synced] of [
    ['c1', '2026-01-03T00:00:00.000000Z', 0],
    ['c2', '2026-01-01T00:00:00.000000Z', 1],
    ['c3', '2026-01-02T00:00:00.000000Z', 0],
    ['c4', '2026-01-01T00:00:00.000000Z', 0],
  ] as const)
    insert.run(id, at, synced);
  old.close();
  // Up to v35: v36 makes rows left unsent local-only (the next test).
  const upgraded = openLocalStore(file, { targetVersion: 35 });
  try {
    const indexes = upgraded.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'checkpoints' ORDER BY name").pluck().all();
    assert.ok(indexes.includes('idx_cp_unsynced') && !indexes.includes('idx_cp_synced'), `indexes: ${indexes.join(', ')}`);
    for (const [sql, params] of [
      ['SELECT rowid FROM checkpoints WHERE synced = 0 AND quarantine_reason IS NULL ORDER BY rowid ASC LIMIT ?', [10]],
      ['SELECT rowid FROM checkpoints WHERE synced = 0 AND quarantine_reason IS NULL AND project_id = ? ORDER BY rowid ASC LIMIT ?', ['', 10]],
    ] as const) {
      const plan = (upgraded.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as Array<{ detail: string }>).map((row) => row.detail);
      assert.ok(
        plan.some((detail) => detail.includes('USING INDEX idx_cp_unsynced')),
        plan.join(' | '),
      );
      assert.not.ok(
        plan.some((detail) => detail.includes('TEMP B-TREE')),
        `no sort: ${plan.join(' | ')}`,
      );
    }
    assert.equal(
      upgraded.prepare('SELECT checkpoint_id FROM checkpoints WHERE synced = 0 AND quarantine_reason IS NULL ORDER BY rowid ASC LIMIT 10').pluck().all(),
      ['c1', 'c3', 'c4'],
    );
    assert.is(upgraded.prepare('SELECT count(*) FROM checkpoints INDEXED BY idx_cp_unsynced WHERE synced = 0').pluck().get(), 3);
  } finally {
    upgraded.close();
  }
});

test('v36: rows queued but unsent before consent was recorded become local-only; sent and quarantined rows stay as they were', ({ dir }) => {
  const file = path.join(dir, 'local.db');
  const old = openLocalStore(file, { targetVersion: 35 });
  const insert = old.prepare(
    "INSERT INTO checkpoints (checkpoint_id, chain_name, execution_id, node_id, state_snapshot, created_at, synced, quarantine_reason) VALUES (?, 'chain', 'e1', 'a', '{}', '2026-01-01T00:00:00.000000Z', ?, ?)",
  );
  insert.run('unsent', 0, null);
  insert.run('sent', 1, null);
  insert.run('refused', 1, 'too large');
  old.close();
  const upgraded = openLocalStore(file);
  try {
    assert.equal(upgraded.prepare('SELECT checkpoint_id, synced, local_only FROM checkpoints ORDER BY rowid').raw().all(), [
      ['unsent', 1, 1],
      ['sent', 1, 0],
      ['refused', 1, 0],
    ]);
  } finally {
    upgraded.close();
  }
});

test('a store from a newer agentkit is refused with a clear message', ({ dir }) => {
  const file = path.join(dir, 'local.db');
  const raw = new Database(file);
  raw.pragma(`user_version = ${LATEST_SCHEMA_VERSION + 5}`);
  raw.close();
  try {
    openLocalStore(file);
    assert.unreachable('must refuse');
  } catch (error) {
    assert.instance(error, StoreVersionError);
    assert.is((error as StoreVersionError).code, 'store_version_error');
    assert.match(
      (error as Error).message,
      new RegExp(`schema v${LATEST_SCHEMA_VERSION + 5}, newer than this agentkit supports \\(v${LATEST_SCHEMA_VERSION}\\)`),
    );
  }
});

test('four processes creating the same new store at once all end at the latest schema', async ({ dir }) => {
  const file = path.join(dir, 'race.db');
  const script = `
    import { openLocalStore, schemaVersion } from ${JSON.stringify(path.resolve('src/store/index.ts'))};
    const db = openLocalStore(${JSON.stringify(file)});
    process.stdout.write(String(schemaVersion(db)));
    db.close();`;
  const outputs = await Promise.all(
    Array.from(
      { length: 4 },
      () =>
        new Promise<string>((resolve, reject) => {
          const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
          let out = '';
          let err = '';
          child.stdout.on('data', (c: Buffer) => (out += c));
          child.stderr.on('data', (c: Buffer) => (err += c));
          child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(err))));
        }),
    ),
  );
  assert.equal(outputs, Array(4).fill(String(LATEST_SCHEMA_VERSION)));
}, 30_000);

test('opening a new store while another process holds a rollback-mode write lock on it waits for the lock instead of failing with SQLITE_BUSY', async ({
  dir,
}) => {
  const file = path.join(dir, 'held.db');
  // Another process starts creating the file in rollback mode and holds its write lock for a moment.
  const script = `
    import Database from 'better-sqlite3';
    const db = new Database(${JSON.stringify(file)});
    db.exec('BEGIN IMMEDIATE');
    db.exec('CREATE TABLE other_writer (x)');
    process.stdout.write('locked\\n');
    setTimeout(() => { db.exec('COMMIT'); db.close(); }, 400);`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'], cwd: process.cwd() });
  await new Promise<void>((resolve, reject) => {
    child.stdout.once('data', () => resolve());
    child.once('exit', (code) => reject(new Error(`the lock holder exited early (${code})`)));
  });
  const db = openLocalStore(file);
  try {
    assert.is(db.pragma('journal_mode', { simple: true }), 'wal');
    assert.is(schemaVersion(db), LATEST_SCHEMA_VERSION);
    assert.is((db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name = 'other_writer'").get() as { n: number }).n, 1);
  } finally {
    db.close();
    await new Promise((resolve) => (child.exitCode === null ? child.once('exit', resolve) : resolve(null)));
  }
});

test('utcNow is ISO-8601 UTC with microseconds and strictly increasing', () => {
  const stamps = Array.from({ length: 1000 }, () => utcNow());
  for (const stamp of stamps) assert.match(stamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
  for (let i = 1; i < stamps.length; i++) assert.ok(stamps[i]! > stamps[i - 1]!, `${stamps[i]} > ${stamps[i - 1]}`);
});

test('store paths: AGENTKIT_LOCAL_DB wins, the legacy checkpoint variable is honoured for checkpoints only', () => {
  const cwd = '/work/project';
  assert.is(localDbPath({ env: {}, cwd }), '/work/project/.agentkit/local.db');
  assert.is(localDbPath({ env: { AGENTKIT_LOCAL_DB: 'data/x.db' }, cwd }), '/work/project/data/x.db');
  assert.is(localDbPath({ env: { AGENTKIT_CHECKPOINT_DB_PATH: '/legacy.db' }, cwd }), '/work/project/.agentkit/local.db');
  assert.is(checkpointDbPath({ env: { AGENTKIT_CHECKPOINT_DB_PATH: '/legacy.db' }, cwd }), '/legacy.db');
  assert.is(checkpointDbPath({ env: { AGENTKIT_CHECKPOINT_DB_PATH: '/legacy.db', AGENTKIT_LOCAL_DB: '/new.db' }, cwd }), '/new.db');
});

test('a path that cannot be a store is refused with its path and what was expected (StoreOpenError, exit 1)', async ({ dir }) => {
  const folder = path.join(dir, 'stores');
  await mkdir(folder);
  const text = path.join(dir, 'notes.txt');
  await writeFile(text, 'not a database\n'.repeat(50));
  const blocked = path.join(text, 'local.db');
  const cases: Array<[string, boolean, string]> = [
    [folder, false, `store ${folder} is a folder; expected the agentkit SQLite store file (e.g. ${folder}/local.db)`],
    [folder, true, `store ${folder} is a folder; expected the agentkit SQLite store file (e.g. ${folder}/local.db)`],
    [text, false, `store ${text} is not a SQLite database; expected the agentkit SQLite store file (e.g. .agentkit/local.db)`],
    [text, true, `store ${text} is not a SQLite database; expected the agentkit SQLite store file (e.g. .agentkit/local.db)`],
    [
      path.join(dir, 'missing.db'),
      true,
      `store not found: ${path.join(dir, 'missing.db')} does not exist (expected the agentkit SQLite store file, e.g. .agentkit/local.db)`,
    ],
    [blocked, false, `cannot open the store ${blocked}: `],
  ];
  for (const [file, readonly, message] of cases) {
    try {
      openLocalStore(file, { readonly }).close();
      assert.unreachable(`${file} opened`);
    } catch (error) {
      assert.instance(error, StoreOpenError, `${file}: ${(error as Error).message}`);
      assert.ok((error as StoreOpenError).message.startsWith(message), (error as Error).message);
      assert.is((error as StoreOpenError).exitCode, 1);
      assert.is((error as StoreOpenError).path, file);
    }
  }
  assert.is((await stat(text)).size, 'not a database\n'.length * 50, 'the file that is not a database is left as it was');
});

test.run();
