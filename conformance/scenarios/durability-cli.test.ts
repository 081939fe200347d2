/**
 * The durability CLI on SQLite and Postgres: setup-checkpointer, list-pending, inspect, resume (in-process, and the
 * real built binary loading a TypeScript runner through tsx), with the spec's exit codes.
 */
import * as assert from 'uvu/assert';
import { existsSync } from 'node:fs';
import { userInfo } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { InvalidSchemaNameError, PG_LATEST_VERSION, PostgresCheckpointer } from '../../src/index.js';
import { LATEST_SCHEMA_VERSION } from '../../src/store/migrations.js';
import { approvalChain } from '../fixtures/durability/chains.js';
import { pauseRun, storeFlags, writeRunner } from '../fixtures/durability/cli-variant.js';
import { checkpointerFor, conformance, spawnNode } from '../harness/index.js';

const area = conformance('durability: CLI');
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

area.scenario('setup-checkpointer provisions the store, idempotently', { rows: ['cli:setup-checkpointer'], surfaces: ['cli'] }, async (t) => {
  if (t.backend.kind === 'sqlite') {
    const first = await t.cli(['setup-checkpointer']);
    assert.is(first.code, 0, first.stderr);
    assert.is(first.stdout, `SQLite checkpointer ready: ${t.backend.dbPath} (local store schema v${LATEST_SCHEMA_VERSION})\n`);
    assert.ok(existsSync(t.backend.dbPath));
    const again = await t.cli(['setup-checkpointer', '--backend', 'sqlite']);
    assert.equal([again.code, again.stdout], [0, first.stdout]);
    const other = await t.cli(['setup-checkpointer', '--connection-string', 'other/store.db']);
    assert.is(other.stdout, `SQLite checkpointer ready: ${path.join(t.cwd, 'other/store.db')} (local store schema v${LATEST_SCHEMA_VERSION})\n`);
    const legacy = await t.cli(['setup-checkpointer'], { env: { AGENTKIT_LOCAL_DB: '', AGENTKIT_CHECKPOINT_DB_PATH: 'legacy/checkpoints.db' } });
    assert.is(
      legacy.stdout,
      `SQLite checkpointer ready: ${path.join(t.cwd, 'legacy/checkpoints.db')} (local store schema v${LATEST_SCHEMA_VERSION})\n`,
      'the legacy variable still names the checkpoint store',
    );
    const schema = await t.cli(['setup-checkpointer', '--schema', 'agentkit']);
    assert.equal([schema.code, schema.stderr], [2, 'error: --schema applies to --backend postgres only; usage: agentkit setup-checkpointer [options]\n']);
  } else if (t.backend.kind === 'postgres') {
    const args = ['setup-checkpointer', '--backend', 'postgres', '--connection-string', t.backend.url, '--schema', t.backend.schema];
    const first = await t.cli(args);
    assert.is(first.code, 0, first.stderr);
    assert.is(first.stdout, `Postgres checkpointer ready: schema "${t.backend.schema}" (migration v${PG_LATEST_VERSION})\n`);
    assert.not.match(first.stdout, t.backend.url, 'the connection string (it may hold a password) is not printed');
    const again = await t.cli(args);
    assert.equal([again.code, again.stdout], [0, first.stdout]);
    const client = new pg.Client({ connectionString: t.backend.url });
    await client.connect();
    try {
      const tables = await client.query('SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name', [t.backend.schema]);
      assert.equal(
        tables.rows.map((r) => r.table_name),
        ['checkpoints', 'execution_leases', 'execution_recoveries', 'idempotency_cache', 'pending_interrupts', 'schema_version', 'served_idempotency_keys'],
      );
    } finally {
      await client.end();
    }
    const noDsn = await t.cli(['setup-checkpointer', '--backend', 'postgres']);
    assert.equal([noDsn.code, noDsn.stdout], [2, '']);
    assert.is(
      noDsn.stderr,
      'error: --backend postgres needs --connection-string <postgres://user@host:port/database>; usage: agentkit setup-checkpointer [options]\n',
    );
  }
  const unknown = await t.cli(['setup-checkpointer', '--backend', 'mysql']);
  assert.equal([unknown.code, unknown.stderr], [2, "error: unknown backend 'mysql': use sqlite or postgres; usage: agentkit setup-checkpointer [options]\n"]);
});

area.scenario(
  'an invalid Postgres schema name is rejected before connecting',
  { rows: ['error:invalid-pg-schema'], backends: 'none', surfaces: ['sdk', 'cli'] },
  async (t) => {
    // Nothing listens on port 1: a connection attempt would fail differently.
    const nowhere = 'postgres://x@127.0.0.1:1/db';
    const message =
      'invalid Postgres schema name "bad-name; DROP SCHEMA public": it must match [A-Za-z_][A-Za-z0-9_]* (letters, digits, underscores; not starting with a digit)';
    if (t.surface === 'sdk') {
      try {
        new PostgresCheckpointer(nowhere, { schema: 'bad-name; DROP SCHEMA public' });
        assert.unreachable();
      } catch (error) {
        assert.instance(error, InvalidSchemaNameError);
        assert.is((error as Error).message, message);
      }
      return;
    }
    const result = await t.cli(['setup-checkpointer', '--backend', 'postgres', '--connection-string', nowhere, '--schema', 'bad-name; DROP SCHEMA public']);
    assert.equal([result.code, result.stderr], [2, `error: ${message}\n`]);
    const listed = await t.cli(['list-pending', '--connection-string', nowhere, '--schema', '1abc']);
    assert.is(listed.code, 2);
    assert.match(listed.stderr, 'invalid Postgres schema name "1abc"');
  },
);

area.scenario('list-pending: empty message, table, --limit, --json; read-only', { rows: ['cli:list-pending'], surfaces: ['cli'] }, async (t) => {
  const empty = await t.cli(['list-pending', ...storeFlags(t)]);
  assert.equal([empty.code, empty.stdout, empty.stderr], [0, 'No pending interrupts.\n', '']);
  if (t.backend.kind === 'sqlite') assert.not.ok(existsSync(t.backend.dbPath), 'listing does not create the store');

  await pauseRun(t, 'exec-a');
  await pauseRun(t, 'exec-b');
  const listed = await t.cli(['list-pending', ...storeFlags(t)]);
  assert.is(listed.code, 0, listed.stderr);
  const lines = listed.stdout.trimEnd().split('\n');
  assert.is(lines.length, 3);
  assert.match(lines[0]!, /^EXECUTION ID\s+CHAIN\s+NODE\s+REASON\s+AGENT PATH\s+CREATED AT\s+CONTEXT$/);
  // Piped output (not a terminal) is never cut: the context is whole (cli-lists.test.ts checks a real terminal).
  assert.match(lines[1]!, /^exec-b\s+refund\s+approval\s+manager_approval\s+-\s+\d{4}-\d\d-\d\dT[\d:.]+Z\s+\{"amount":50000,"policy":"high-value"\}$/);
  assert.match(lines[2]!, /^exec-a\s+refund\s+approval\s+manager_approval\s+/);

  const limited = await t.cli(['list-pending', '--limit', '1', ...storeFlags(t)]);
  assert.is(limited.stdout.trimEnd().split('\n').length, 2);
  const json = await t.cli(['list-pending', '--json', ...storeFlags(t)]);
  const checkpointer = checkpointerFor(t.backend);
  t.defer(() => checkpointer.close());
  assert.equal(JSON.parse(json.stdout), await checkpointer.listPendingInterrupts());
  const bad = await t.cli(['list-pending', '--limit', '0', ...storeFlags(t)]);
  assert.is(bad.code, 2);
  const both = await t.cli(['list-pending', '--db-path', 'x.db', '--connection-string', 'postgres://h/db']);
  assert.equal(
    [both.code, both.stderr],
    [2, 'error: give either --db (a file or a postgres:// URL) or --connection-string (Postgres), not both; usage: agentkit list-pending [options]\n'],
  );
});

area.scenario(
  'inspect: history of a paused then completed run; exit 1 when nothing is found',
  { rows: ['cli:inspect', 'error:inspect-empty'], surfaces: ['cli'] },
  async (t) => {
    const missing = await t.cli(['inspect', 'nope', ...storeFlags(t)]);
    const where = t.backend.kind === 'postgres' ? `Postgres schema "${t.backend.schema}"` : t.env.AGENTKIT_LOCAL_DB;
    assert.equal([missing.code, missing.stdout, missing.stderr], [1, '', `error: execution id 'nope' not found in ${where}: it has no checkpoints\n`]);

    await pauseRun(t, 'exec-i');
    const paused = await t.cli(['inspect', 'exec-i', ...storeFlags(t)]);
    assert.is(paused.code, 0, paused.stderr);
    // (A `Traces:` line follows the state when the runs were traced: the leases scenario checks it.)
    const lines = paused.stdout
      .trimEnd()
      .split('\n')
      .filter((line) => !line.startsWith('Traces:'));
    assert.equal(lines.slice(0, 4), ['Execution: exec-i', 'Chain:     refund', 'State:     paused at approval (manager_approval)', 'Checkpoints: 3']);
    assert.match(lines[5]!, /^#\s+NODE\s+STATUS\s+STEP TYPE\s+CREATED AT\s+AGENT PATH$/);
    assert.match(lines[6]!, /^0\s+__run_start__\s+completed\s+run_start\s+\d{4}-[\d-]+T[\d:.]+Z\s+-$/);
    assert.match(lines[7]!, /^1\s+seed\s+completed\s+node\s+\d{4}-[\d-]+T[\d:.]+Z\s+-$/);
    assert.match(lines[8]!, /^2\s+approval\s+interrupted\s+hitl_pause\s+\S+\s+-$/);

    const checkpointer = checkpointerFor(t.backend);
    t.defer(() => checkpointer.close());
    await approvalChain(checkpointer).resume('exec-i', { resumeValue: { approved: true } });
    const done = await t.cli(['inspect', 'exec-i', ...storeFlags(t)]);
    assert.match(done.stdout.replace(/Traces: .*\n/, ''), 'State:     completed\nCheckpoints: 7\n');
    assert.match(done.stdout, /\n3\s+approval\s+completed\s+resume\s+/, 'the claim recorded its decision');
    assert.match(done.stdout, /\n6\s+run_end\s+completed\s+run_end\s+/);
    const json = JSON.parse((await t.cli(['inspect', 'exec-i', '--json', ...storeFlags(t)])).stdout) as Record<string, unknown> & {
      decisions: Array<Record<string, unknown>>;
    };
    const rows = await checkpointer.list('exec-i');
    const decisionRow = rows[3]!;
    assert.equal(json, {
      execution_id: 'exec-i',
      chain_name: 'refund',
      state: 'completed',
      trace_ids: [...new Set(rows.flatMap((row) => (row.trace_id ? [row.trace_id] : [])))],
      decisions: [
        {
          checkpoint_id: decisionRow.checkpoint_id,
          node_id: 'approval',
          agent_path: null,
          reason_for_pause: 'manager_approval',
          resume: { approved: true, metadata: {} },
          decided_by: { principal: userInfo().username, surface: 'sdk' },
          decided_at: (decisionRow.node_output as { decided_at: string }).decided_at,
          reason: null,
          claimed_by: (decisionRow.node_output as { claimed_by: string }).claimed_by,
          offline_host: null,
        },
      ],
      conflicts: [],
      checkpoints: rows,
    });
    assert.match(done.stdout, /\nDecision: {2}manager_approval: approved by \S+ \(sdk\) at \S+\n$/);
  },
);

area.scenario(
  'resume: approves by default, prints the outcome; AlreadyResumed and malformed values exit 2',
  { rows: ['cli:resume', 'error:already-resumed', 'transition:paused->running'], surfaces: ['cli'] },
  async (t) => {
    const runner = await writeRunner(t);
    await pauseRun(t, 'exec-r');
    for (const [value, message] of [
      ['{"approved": tru', 'error: --value is not valid JSON'],
      ['[true]', 'error: --value: a resume value must be an object'],
      ['"yes"', 'error: --value: a resume value must be an object'],
      ['{"approved": "yes"}', 'error: --value: a resume value needs a boolean "approved"'],
      ['{"approved": true, "metadata": [1]}', 'error: --value: "metadata" of a resume value must be an object'],
    ] as const) {
      const bad = await t.cli(['resume', 'exec-r', '--runner', runner, '--value', value]);
      assert.is(bad.code, 2, value);
      assert.ok(bad.stderr.startsWith(message), `${value}: ${bad.stderr}`);
    }
    const notRunner = await t.cli(['resume', 'exec-r', '--runner', 'runner.mts:notARunner']);
    assert.is(notRunner.code, 2);
    assert.match(notRunner.stderr, "target 'runner.mts:notARunner' resolved to an object with keys name, which has no resume(executionId, options) method");
    const missingAttr = await t.cli(['resume', 'exec-r', '--runner', 'runner.mts:nope']);
    assert.is(missingAttr.code, 2);
    assert.match(missingAttr.stderr, `has no attribute 'nope'; it exports: notARunner, refund`);
    const noRunner = await t.cli(['resume', 'exec-r']);
    assert.is(noRunner.code, 2);

    const approved = await t.cli(['resume', 'exec-r', '--runner', runner]);
    assert.is(approved.code, 0, approved.stderr);
    assert.is(approved.stdout, 'execution_id: exec-r\nstatus: completed\noutput: {"receipt":"approved 50000"}\npending_interrupt: null\n');
    const again = await t.cli(['resume', 'exec-r', '--runner', runner]);
    assert.equal([again.code, again.stdout], [2, '']);
    assert.is(
      again.stderr,
      "error: execution id 'exec-r' already finished (completed); there is nothing to resume. Use fork() to run it again from one of its checkpoints.\n",
    );

    await pauseRun(t, 'exec-r2');
    const rejected = await t.cli([
      'resume',
      'exec-r2',
      '--runner',
      runner,
      '--value',
      '{"approved": false, "metadata": {"approver": "carol"}, "data": 1}',
      '--json',
    ]);
    assert.is(rejected.code, 0, rejected.stderr);
    const result = JSON.parse(rejected.stdout) as { status: string; output: unknown; final_state: Record<string, unknown> };
    assert.equal([result.status, result.output], ['completed', { receipt: 'rejected 50000' }]);
    assert.equal(result.final_state.resume_value, { approved: false, metadata: { approver: 'carol' } });
  },
);

area.scenario(
  'resume through the real binary loads a TypeScript runner; a claimed pause exits 2',
  { rows: ['cli:resume', 'error:already-resumed'], surfaces: ['cli'], timeoutMs: 60_000 },
  async (t) => {
    const runner = await writeRunner(t);
    await pauseRun(t, 'exec-bin');
    const checkpointer = checkpointerFor(t.backend);
    t.defer(() => checkpointer.close());
    // Another resumer (a process of its own) holds the claim: the binary's resume loses the race.
    const claimed = await checkpointer.deletePendingInterruptAtomic('exec-bin');
    assert.ok(claimed);
    const lost = await t.bin(['resume', 'exec-bin', '--runner', runner]);
    assert.equal([lost.code, lost.stdout], [2, '']);
    assert.match(lost.stderr, "error: execution id 'exec-bin' has no pending interrupt to claim");

    await pauseRun(t, 'exec-bin2');
    const done = await t.bin(['resume', 'exec-bin2', '--runner', runner, '--value', '{"approved": true, "metadata": {"approver": "dave"}}']);
    assert.is(done.code, 0, done.stderr);
    assert.match(done.stdout, 'status: completed\noutput: {"receipt":"approved 50000"}\n');
    const inspected = await t.bin(['inspect', 'exec-bin2', ...storeFlags(t)]);
    assert.match(inspected.stdout, 'State:     completed');
  },
);

area.scenario(
  'the documented example: pause from a script, list, inspect and approve from the CLI',
  { rows: ['cli:list-pending', 'cli:inspect', 'cli:resume'], surfaces: ['cli'], timeoutMs: 60_000 },
  async (t) => {
    const env: Record<string, string> =
      t.backend.kind === 'postgres'
        ? { DATABASE_URL: t.backend.url, AGENTKIT_PG_SCHEMA: t.backend.schema }
        : { AGENTKIT_LOCAL_DB: (t.backend as { dbPath: string }).dbPath };
    const script = spawnNode('examples/durability/refund-chain.ts', ['refund order A-1042 for $50,000'], { env });
    t.defer(() => script.process.kill('SIGKILL'));
    const idLine = await script.waitForLine((line) => line.startsWith('execution_id: '));
    assert.is((await script.exit()).code, 0, script.stderr());
    assert.equal(script.lines[0], 'status: paused');
    const executionId = idLine.slice('execution_id: '.length);

    const listed = await t.bin(['list-pending', ...storeFlags(t)], { env });
    // Piped output is never cut: the whole execution id, the handle `resume` takes (a terminal: cli-lists.test.ts).
    assert.match(listed.stdout, new RegExp(`${executionId}\\s+refund\\s+approval\\s+manager_approval\\s`));
    const listedJson = await t.bin(['list-pending', '--json', ...storeFlags(t)], { env });
    assert.ok((JSON.parse(listedJson.stdout) as Array<{ execution_id: string }>).some((row) => row.execution_id === executionId));
    const example = path.join(root, 'examples/durability/refund-chain.ts');
    const resumed = await t.bin(
      ['resume', executionId, '--runner', `${example}:refundChain`, '--value', '{"approved": true, "metadata": {"approver": "alice"}}'],
      { env },
    );
    assert.is(resumed.code, 0, resumed.stderr);
    assert.match(resumed.stdout, 'status: completed\noutput: refunded $50000 on order A-1042 (approved by alice)\n');
    const inspected = await t.bin(['inspect', executionId, ...storeFlags(t)], { env });
    assert.match(
      inspected.stdout,
      /assess\s+completed\s+node[\s\S]*approval\s+interrupted\s+hitl_pause[\s\S]*approval\s+completed\s+node[\s\S]*refund\s+completed\s+node[\s\S]*run_end\s+completed\s+run_end/,
    );
  },
);

area.run();
