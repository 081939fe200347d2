/**
 * `agentkit store migrate --db <path|url>` (issue 38) on both engines: every table family's migrations, once; a second
 * run changes nothing; on Postgres the durability and trace tables both exist afterwards.
 */
import * as assert from 'uvu/assert';
import { existsSync } from 'node:fs';
import pg from 'pg';
import { PG_LATEST_VERSION } from '../../src/index.js';
import { LATEST_SCHEMA_VERSION } from '../../src/store/migrations.js';
import { PG_TRACE_LATEST_VERSION } from '../../src/tracing/pg-schema.js';
import { parseStoreValue, storeLabel } from '../../src/config/store-value.js';
import { conformance } from '../harness/index.js';

const area = conformance('store: migrate');

area.scenario('store migrate brings the store to this version, idempotently', { surfaces: ['cli'], timeoutMs: 60_000 }, async (t) => {
  const store = t.store!;
  const label = storeLabel(parseStoreValue(store));
  const first = await t.cli(['store', 'migrate', '--db', store, '--json']);
  assert.is(first.code, 0, first.stderr);
  const expected =
    t.backend.kind === 'sqlite'
      ? { store: label, engine: 'sqlite', checkpoints: LATEST_SCHEMA_VERSION, traces: null }
      : { store: label, engine: 'postgres', checkpoints: PG_LATEST_VERSION, traces: PG_TRACE_LATEST_VERSION };
  assert.equal(JSON.parse(first.stdout), expected);
  const again = await t.cli(['store', 'migrate', '--db', store]);
  assert.is(again.code, 0, again.stderr);
  assert.match(again.stdout, `store ${label} is current`);
  if (t.backend.kind === 'sqlite') {
    assert.ok(existsSync(store));
    return;
  }
  if (t.backend.kind !== 'postgres') return;
  const client = new pg.Client({ connectionString: t.backend.url });
  await client.connect();
  try {
    const tables = (
      await client.query<{ table_name: string }>('SELECT table_name FROM information_schema.tables WHERE table_schema = $1', [t.backend.schema])
    ).rows.map((r) => r.table_name);
    for (const table of ['checkpoints', 'pending_interrupts', 'spans', 'processes', 'trace_schema_version'])
      assert.ok(tables.includes(table), `${table} in ${tables.join(', ')}`);
  } finally {
    await client.end();
  }
});

area.run();
