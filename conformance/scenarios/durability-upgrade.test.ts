/**
 * A checkpoint store written before delta checkpoints (conformance/fixtures/durability/upgrade/, made by the release
 * before the change) is read without loss, migrated, resumed and forked: on SQLite the committed local.db (schema
 * v25), on Postgres the old schema's rows replayed into a schema built by its migrations v1-v2.
 */
import * as assert from 'uvu/assert';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import pg from 'pg';
import { PG_LATEST_VERSION } from '../../src/durability/postgres-migrations.js';
import { LATEST_SCHEMA_VERSION } from '../../src/store/migrations.js';
import type { Checkpoint } from '../../src/types.js';
import { approverAgent, payAgent, shape } from '../fixtures/durability/agents.js';
import { approvalChain, fiveSteps } from '../fixtures/durability/chains.js';
import { checkpointerFor, conformance, type Backend } from '../harness/index.js';
import { installOldStore, readPgFixture } from '../harness/old-store.js';

const area = conformance('durability: upgrade to delta checkpoints');
const fixtures = path.join(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/durability/upgrade');
const EXECUTIONS = ['upgrade-agent-paused', 'upgrade-chain-paused', 'upgrade-agent-done', 'upgrade-chain-done'];
const JSON_COLUMNS = ['state_snapshot', 'node_input', 'node_output', 'iteration_counters', 'interrupt_context'];
const INT_COLUMNS = ['node_index', 'iteration'];

/** The old store's rows as Checkpoints, straight from the fixture (every column the checkpointer returns). */
async function fixtureRows(kind: 'sqlite' | 'postgres'): Promise<Checkpoint[]> {
  let rows: Array<Record<string, unknown>>;
  if (kind === 'sqlite') {
    const db = new Database(path.join(fixtures, 'local.db'), { readonly: true });
    try {
      rows = db.prepare('SELECT * FROM checkpoints ORDER BY rowid').all() as Array<Record<string, unknown>>;
    } finally {
      db.close();
    }
  } else {
    rows = (await readPgFixture(fixtures)).tables.checkpoints.sort((a, b) => Number(a.seq) - Number(b.seq));
  }
  return rows.map((row) => {
    const out: Record<string, unknown> = {};
    for (const field of [
      'checkpoint_id',
      'execution_id',
      'chain_name',
      'node_id',
      'node_index',
      'status',
      'step_type',
      'run_status',
      'parent_checkpoint_id',
      'state_snapshot',
      'node_input',
      'node_output',
      'iteration',
      'iteration_counters',
      'interrupt_reason',
      'interrupt_context',
      'agent_path',
      'created_at',
    ]) {
      const value = row[field] ?? null;
      out[field] = value === null ? null : JSON_COLUMNS.includes(field) ? JSON.parse(value as string) : INT_COLUMNS.includes(field) ? Number(value) : value;
    }
    return out as unknown as Checkpoint;
  });
}

area.scenario(
  'a store written before delta checkpoints is read without loss, migrated, resumed and forked',
  { rows: ['transition:paused->running', 'transition:fork'] },
  async (t) => {
    await installOldStore(t.backend, fixtures, 25);
    const old = await fixtureRows(t.backend.kind as 'sqlite' | 'postgres');
    const checkpointer = checkpointerFor(t.backend);
    t.defer(() => checkpointer.close());

    // Read: every old row, field for field, through each read path; the store is migrated on first use.
    for (const execution of EXECUTIONS) {
      const rows = old.filter((r) => r.execution_id === execution);
      assert.ok(rows.length >= 3, `fixture rows of ${execution}`);
      assert.equal(await checkpointer.list(execution), rows, `list(${execution})`);
      assert.equal(await checkpointer.getLast(execution), rows.at(-1));
      assert.equal(await checkpointer.getById(rows[0]!.checkpoint_id), rows[0]);
    }
    assert.is(await checkpointer.schemaVersion(), t.backend.kind === 'sqlite' ? LATEST_SCHEMA_VERSION : PG_LATEST_VERSION);
    assert.equal((await checkpointer.listPendingInterrupts()).map((p) => p.execution_id).sort(), ['upgrade-agent-paused', 'upgrade-chain-paused']);
    // Rows queued before consent was recorded are local-only after the upgrade (docs/adr/0054): none is queued, and
    // `platform push` still hands out every old row, in write order.
    assert.equal(await checkpointer.fetchUnsynced(100), [], 'nothing queued without consent');
    const unsynced = await checkpointer.fetchLocalOnly(100, '');
    assert.equal(
      unsynced.map((u) => u.checkpoint),
      old,
      'push still hands out every old row, in write order',
    );

    // Resume both paused runs: they finish where they paused, with the old history.
    const { agent, model } = approverAgent(checkpointer);
    const agentDone = await agent.resume('upgrade-agent-paused', { resumeValue: { approved: true, metadata: { approver: 'ops' } } });
    assert.equal([agentDone.status, agentDone.output], ['completed', 'Result: refunded 70 (approved by ops)']);
    assert.equal(shape(model.received.at(-1)!), ['system', 'user', 'assistant:call_refund', 'tool:call_refund']);
    const chainDone = await approvalChain(checkpointer).resume('upgrade-chain-paused', { resumeValue: { approved: true, metadata: { approver: 'ops' } } });
    assert.equal([chainDone.status, chainDone.output, chainDone.final_state.amount], ['completed', { receipt: 'approved 50000' }, 50000]);

    // Rows written after the upgrade are delta rows on top of the old ones, and read back whole.
    const resumedRows = await checkpointer.list('upgrade-agent-paused');
    assert.equal(
      resumedRows.slice(0, 3),
      old.filter((r) => r.execution_id === 'upgrade-agent-paused'),
      'old rows unchanged',
    );
    assert.equal(
      resumedRows.map((r) => (r.state_snapshot.messages as unknown[]).length),
      [2, 3, 3, 3, 4, 5],
    );
    assert.equal(shape(resumedRows.at(-1)!.state_snapshot.messages as never), ['system', 'user', 'assistant:call_refund', 'tool:call_refund', 'assistant']);
    assert.ok((await deltaRows(t.backend, 'upgrade-agent-paused')) >= 1, 'new rows of the execution are stored as deltas');

    // Fork the finished runs from their old rows.
    const pay = payAgent(checkpointer);
    const branch = await pay.agent.fork('upgrade-agent-done');
    assert.equal([branch.status, branch.output], ['completed', 'Done — paid $100.']);
    assert.equal(shape(pay.model.received[0]!), ['system', 'user', 'assistant:call_pay', 'tool:call_pay']);
    const step3 = old.find((r) => r.execution_id === 'upgrade-chain-done' && r.node_id === 'step_3')!;
    const chainBranch = await fiveSteps(checkpointer).fork('upgrade-chain-done', { checkpointId: step3.checkpoint_id });
    assert.equal(
      [chainBranch.status, chainBranch.final_state.total, chainBranch.final_state.ran],
      ['completed', 15, ['step_1', 'step_2', 'step_3', 'step_4', 'step_5']],
    );
    assert.equal(
      await checkpointer.list('upgrade-agent-done'),
      old.filter((r) => r.execution_id === 'upgrade-agent-done'),
      'the forked run is untouched',
    );
  },
);

/** Rows of an execution stored as deltas (delta_base set), read with the backend's own SQL. */
async function deltaRows(backend: Backend, executionId: string): Promise<number> {
  if (backend.kind === 'sqlite') {
    const db = new Database(backend.dbPath, { readonly: true });
    try {
      return (db.prepare('SELECT count(*) AS n FROM checkpoints WHERE execution_id = ? AND delta_base IS NOT NULL').get(executionId) as { n: number }).n;
    } finally {
      db.close();
    }
  }
  if (backend.kind !== 'postgres') return 0;
  const client = new pg.Client({ connectionString: backend.url });
  await client.connect();
  try {
    const result = await client.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM "${backend.schema}".checkpoints WHERE execution_id = $1 AND delta_base IS NOT NULL`,
      [executionId],
    );
    return result.rows[0]!.n;
  } finally {
    await client.end();
  }
}

area.run();
