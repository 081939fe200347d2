/**
 * `agentkit store migrate --db <path|url>` (issue 38) on both engines: every table family's migrations, once; a second
 * run changes nothing; on Postgres the durability and trace tables both exist afterwards.
 */
import * as assert from 'uvu/assert';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { Agent, flushTraces, openStore, PG_LATEST_VERSION, PostgresCheckpointer } from '../../src/index.js';
import { ScriptedModel } from '../../src/testing/index.js';
import { approvalChain } from '../fixtures/durability/chains.js';
import { LATEST_SCHEMA_VERSION } from '../../src/store/migrations.js';
import { PG_TRACE_LATEST_VERSION } from '../../src/tracing/pg-schema.js';
import { PG_PROMPT_LATEST_VERSION } from '../../src/prompts/store/pg-schema.js';
import { PG_KB_FAMILY } from '../../src/kb/pg-kb-store.js';
import { PG_FORK_FAMILY } from '../../src/forks/pg-fork-store.js';
import { PG_EVAL_FAMILY } from '../../src/eval/pg-eval-store.js';
import { parseStoreValue, storeLabel } from '../../src/config/store-value.js';
import { PG_PLATFORM_FAMILY } from '../../src/platform/server/pg-schema.js';
import { conformance, startCounterServer } from '../harness/index.js';

const area = conformance('store: migrate');

area.scenario('store migrate brings the store to this version, idempotently', { surfaces: ['cli'], timeoutMs: 60_000 }, async (t) => {
  const store = t.store!;
  const label = storeLabel(parseStoreValue(store));
  const first = await t.cli(['store', 'migrate', '--db', store, '--json']);
  assert.is(first.code, 0, first.stderr);
  const expected =
    t.backend.kind === 'sqlite'
      ? { store: label, engine: 'sqlite', checkpoints: LATEST_SCHEMA_VERSION, traces: null, prompts: null, forks: null, evals: null, kb: null, platform: null }
      : {
          store: label,
          engine: 'postgres',
          checkpoints: PG_LATEST_VERSION,
          traces: PG_TRACE_LATEST_VERSION,
          prompts: PG_PROMPT_LATEST_VERSION,
          forks: PG_FORK_FAMILY.migrations.length,
          evals: PG_EVAL_FAMILY.migrations.length,
          kb: PG_KB_FAMILY.migrations.length,
          platform: PG_PLATFORM_FAMILY.migrations.length,
        };
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
    for (const table of [
      'checkpoints',
      'pending_interrupts',
      'spans',
      'processes',
      'trace_schema_version',
      'prompts',
      'prompt_versions',
      'prompt_labels',
      'prompt_fragments',
      'prompt_schema_version',
      'ui_forks',
      'eval_runs',
      'eval_cases',
      'eval_schema_version',
      'kb_bases',
      'kb_documents',
      'kb_chunks',
      'kb_schema_version',
    ])
      assert.ok(tables.includes(table), `${table} in ${tables.join(', ')}`);
  } finally {
    await client.end();
  }
});

area.scenario(
  'after store migrate by the owner, an application role with only SELECT, INSERT, UPDATE and DELETE runs, pauses, resumes and lists traces',
  { backends: ['postgres'], surfaces: ['cli'], timeoutMs: 90_000 },
  async (t) => {
    if (t.backend.kind !== 'postgres') return;
    const migrated = await t.cli(['store', 'migrate', '--db', t.store!]);
    assert.is(migrated.code, 0, migrated.stderr);
    const role = `agentkit_app_${t.backend.schema}`.slice(0, 60);
    const owner = new pg.Client({ connectionString: t.backend.url });
    await owner.connect();
    t.defer(async () => {
      await owner.query(`DROP OWNED BY "${role}"`).catch(() => undefined);
      await owner.query(`DROP ROLE IF EXISTS "${role}"`);
      await owner.end();
    });
    const s = `"${t.backend.schema}"`;
    await owner.query(`CREATE ROLE "${role}" LOGIN NOCREATEDB NOCREATEROLE`);
    await owner.query(`GRANT USAGE ON SCHEMA ${s} TO "${role}"`);
    await owner.query(`GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA ${s} TO "${role}"`);
    await owner.query(`GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA ${s} TO "${role}"`);
    const denied = await owner.query<{ create: boolean; db: boolean }>(
      `SELECT has_schema_privilege($1, $2, 'CREATE') AS create, has_database_privilege($1, current_database(), 'CREATE') AS db`,
      [role, t.backend.schema],
    );
    assert.equal(denied.rows[0], { create: false, db: false }, 'the role may not create tables or schemas');

    const url = new URL(t.store!);
    url.username = role;
    const appStore = url.toString();
    const checkpointer = new PostgresCheckpointer(openStore(appStore));
    t.defer(() => checkpointer.close());
    const counter = await startCounterServer();
    t.defer(() => counter.close());
    const chain = approvalChain(checkpointer, { counterUrl: counter.url, charge: 'idempotent' });
    const paused = await chain.run({ amount: 10 }, { executionId: 'app-role-1' });
    assert.is(paused.status, 'paused');
    const done = await chain.resume('app-role-1', { resumeValue: { approved: true, metadata: {} } });
    assert.is(done.status, 'completed');
    assert.is(counter.count('/charge'), 1);

    const agent = new Agent({ name: 'app_role', systemPrompt: 'Answer.', llm: new ScriptedModel(['ok']), checkpointer, traceDb: appStore });
    const answered = await agent.run('hello', { executionId: 'app-role-agent' });
    await flushTraces();
    const listed = await t.cli(['traces', 'list', '--json', '--db', appStore]);
    assert.is(listed.code, 0, listed.stderr);
    assert.ok(
      (JSON.parse(listed.stdout) as { items: Array<{ trace_id: string }> }).items.some((trace) => trace.trace_id === answered.trace_id),
      'the application role wrote and reads the trace',
    );
    // Prompts too (ADR 0062): the role registers versions and moves a label on the schema the owner migrated.
    await writeFile(path.join(t.cwd, 'greeting.txt'), 'Hello {{name}}');
    assert.equal(await t.cli(['prompts', 'add', 'greeting', '--file', 'greeting.txt', '--label', 'production', '--db', appStore]), {
      code: 0,
      stdout: 'greeting v1 [production]\n',
      stderr: '',
    });
    const shown = await t.cli(['prompts', 'show', 'greeting', '--label', 'production', '--db', appStore]);
    assert.equal([shown.code, shown.stdout], [0, 'Hello {{name}}\n']);
    const again = await t.cli(['store', 'migrate', '--db', appStore]);
    assert.is(again.code, 0, again.stderr);
    assert.match(again.stdout, /is current/);

    // A schema nobody migrated: the role is told, in one line, what to run.
    const fresh = new URL(appStore);
    fresh.searchParams.set('schema', `${t.backend.schema}_unmigrated`);
    const refused = await t.cli(['executions', 'prune', '--older-than', '1d', '--db', fresh.toString()]);
    const run = await t.cli(['store', 'migrate', '--db', fresh.toString()]);
    assert.is(run.code, 2, run.stderr);
    assert.is(run.stderr.trim().split('\n').length, 1, run.stderr);
    assert.match(
      run.stderr,
      /^error: this database role may not migrate the durability tables of Postgres schema ".*_unmigrated" \(at v0, this agentkit needs v\d+\): run `agentkit store migrate --db <url>` once with a role that may create tables/,
    );
    assert.is(refused.code, 0, 'a read-only command on an unmigrated schema reads it as empty');
  },
);

area.run();
