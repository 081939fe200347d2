/**
 * Postgres checkpoint indexes whose keys only append (the primary key on time-ordered checkpoint ids, the unsynced
 * index on `seq`) fill their leaves (fillfactor 100, ADR 0032): in a new schema and in one set up by the ladder
 * before that step, with rows already in it. Checked in the catalog and on the leaves themselves.
 */
import * as assert from 'uvu/assert';
import pg from 'pg';
import { PG_LATEST_VERSION, PG_MIGRATIONS } from '../../src/durability/postgres-migrations.js';
import { checkpointerFor, conformance, type Backend } from '../harness/index.js';

const area = conformance('durability: Postgres append-only indexes');
const APPEND_ONLY = ['checkpoints_pkey', 'checkpoints_unsynced_idx'];
const STEP = PG_MIGRATIONS.findIndex((m) => m.description.startsWith('append-only checkpoint indexes'));

async function withClient<T>(backend: Backend, fn: (client: pg.Client, schema: string) => Promise<T>): Promise<T> {
  if (backend.kind !== 'postgres') throw new Error('a Postgres backend is needed');
  const client = new pg.Client({ connectionString: backend.url });
  await client.connect();
  try {
    return await fn(client, backend.schema);
  } finally {
    await client.end();
  }
}

/** Each checkpoints index's reloptions, by name. */
async function indexOptions(backend: Backend): Promise<Record<string, string[] | null>> {
  return withClient(backend, async (client, schema) => {
    const result = await client.query<{ relname: string; reloptions: string[] | null }>(
      `SELECT c.relname, c.reloptions FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
       WHERE i.indrelid = to_regclass($1)`,
      [`"${schema}".checkpoints`],
    );
    return Object.fromEntries(result.rows.map((r) => [r.relname, r.reloptions]));
  });
}

/** Puts `count` rows (time-ordered ids, so primary-key leaves split at the right edge) in batches of 50. */
async function fill(backend: Backend, count: number): Promise<void> {
  const checkpointer = checkpointerFor(backend);
  try {
    for (let i = 0; i < count; i += 50) {
      await checkpointer.putWrites(
        Array.from({ length: 50 }, (_, k) => ({ execution_id: `e${(i + k) % 7}`, chain_name: 'c', node_id: `n${i + k}`, state_snapshot: { i: i + k } })),
      );
    }
  } finally {
    await checkpointer.close();
  }
}

/**
 * Pages of the primary key, and of a control: a text primary key with the default fillfactor in a scratch table,
 * given the same ids in the same (time) order.
 */
async function keyPages(backend: Backend): Promise<{ ours: number; control: number }> {
  return withClient(backend, async (client, schema) => {
    await client.query(`CREATE TABLE "${schema}".control (id TEXT PRIMARY KEY)`);
    await client.query(`INSERT INTO "${schema}".control SELECT checkpoint_id FROM "${schema}".checkpoints ORDER BY seq`);
    const pages = async (name: string) =>
      Number((await client.query<{ n: string }>('SELECT pg_relation_size(to_regclass($1)) / 8192 AS n', [`"${schema}".${name}`])).rows[0]!.n);
    return { ours: await pages('checkpoints_pkey'), control: await pages('control_pkey') };
  });
}

/** Set the schema up with the current ladder; asserts it is current and the append-only indexes fill their leaves. */
async function setUpCurrent(t: Parameters<Parameters<typeof area.scenario>[2]>[0]) {
  const checkpointer = checkpointerFor(t.backend);
  t.defer(() => checkpointer.close());
  await checkpointer.setup();
  assert.is(await checkpointer.schemaVersion(), PG_LATEST_VERSION);
  const options = await indexOptions(t.backend);
  for (const name of APPEND_ONLY) assert.equal(options[name], ['fillfactor=100'], name);
  return { checkpointer, options };
}

area.scenario('a new schema: the primary key and the unsynced index fill their leaves', { backends: ['postgres'] }, async (t) => {
  const { options } = await setUpCurrent(t);
  // The execution index takes keys in the middle (execution ids are random): it keeps the default reserve.
  assert.is(options.checkpoints_execution_idx, null);
  await fill(t.backend, 3000);
  // 3000 ids of 36 characters: about 156 KB of index tuples, 20 full leaves; at the default fillfactor 90, 22.
  const { ours, control } = await keyPages(t.backend);
  assert.ok(ours <= control - 2, `primary key ${ours} pages, control at the default fillfactor ${control}`);
});

area.scenario('a schema from before the step gets the option on setup; its rows stay readable', { backends: ['postgres'] }, async (t) => {
  assert.ok(STEP > 0, 'the ladder has the fillfactor step');
  await withClient(t.backend, async (client, schema) => {
    await client.query('BEGIN');
    await client.query(
      `CREATE TABLE "${schema}".schema_version (version INTEGER PRIMARY KEY, description TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())`,
    );
    for (let version = 1; version <= STEP; version++) {
      await client.query(PG_MIGRATIONS[version - 1]!.sql(`"${schema}"`));
      await client.query(`INSERT INTO "${schema}".schema_version (version, description) VALUES ($1, $2)`, [version, PG_MIGRATIONS[version - 1]!.description]);
    }
    await client.query('COMMIT');
  });
  assert.is((await indexOptions(t.backend)).checkpoints_pkey, null, 'before the step: the default');
  const old = await withClient(t.backend, async (client, schema) => {
    const row = await client.query<{ id: string }>(
      `INSERT INTO "${schema}".checkpoints (checkpoint_id, chain_name, execution_id, node_id, state_snapshot) VALUES ('old-1', 'c', 'old', 'a', '{"k": 1}') RETURNING checkpoint_id AS id`,
    );
    return row.rows[0]!.id;
  });
  const { checkpointer } = await setUpCurrent(t);
  assert.equal((await checkpointer.getById(old))!.state_snapshot, { k: 1 });
  const next = await checkpointer.put({ execution_id: 'old', chain_name: 'c', node_id: 'b', state_snapshot: { k: 2 } });
  assert.equal((await checkpointer.getLast('old'))!.checkpoint_id, next.checkpoint_id);
});

area.run();
