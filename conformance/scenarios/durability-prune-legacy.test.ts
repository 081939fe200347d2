/**
 * Store upkeep and old stores: `prune` removes completed and failed history but never a paused run (its interrupted
 * checkpoint, pending row, history and cached side effects), and rows with a NULL step_type (a pre-v20 local store)
 * resume like any other.
 */
import * as assert from 'uvu/assert';
import pg from 'pg';
import { StoreVersionError, openLocalStore, schemaVersion, utcNow } from '../../src/store/index.js';
import { approvalChain, fiveSteps } from '../fixtures/durability/chains.js';
import { checkpointerFor, conformance, startCounterServer } from '../harness/index.js';

const area = conformance('durability: prune and old stores');

area.scenario(
  'prune removes completed and failed runs and keeps the paused one resumable without repeating its charge',
  { rows: ['transition:paused->running'] },
  async (t) => {
    const counter = await startCounterServer();
    const checkpointer = checkpointerFor(t.backend);
    t.defer(() => counter.close());
    t.defer(() => checkpointer.close());
    await fiveSteps(checkpointer).run(null, { executionId: 'done' });
    await fiveSteps(checkpointer, { failAt: 2 })
      .run(null, { executionId: 'failed' })
      .catch(() => undefined);
    const billing = approvalChain(checkpointer, { counterUrl: counter.url, charge: 'idempotent' });
    await billing.run('refund', { executionId: 'paused' });
    const pausedRows = await checkpointer.list('paused');
    const pending = await checkpointer.listPendingInterrupts();

    assert.is(await checkpointer.prune(soon()), 10, '7 rows of the completed run, 3 of the failed one (start rows included)');
    assert.equal(await checkpointer.list('done'), []);
    assert.equal(await checkpointer.list('failed'), []);
    assert.equal(await checkpointer.list('paused'), pausedRows);
    assert.equal(await checkpointer.listPendingInterrupts(), pending);

    const resumed = await billing.resume('paused', { resumeValue: { approved: true } });
    assert.is(resumed.status, 'completed');
    assert.is(counter.count('/charge'), 1, 'the cached charge survived the prune');
    assert.is(await checkpointer.prune(soon()), 7, 'once finished, its history goes (6 rows with the start and decision rows, and the idempotency record)');
    assert.equal(
      (await checkpointer.list('paused')).map((r) => [r.node_id, r.status]),
      [['charge', 'interrupted']],
      'interrupted checkpoints are never pruned',
    );
  },
);

area.scenario(
  'rows with a NULL step_type (pre-v20 store) are resumable: a crashed run and a paused run',
  { rows: ['transition:paused->running'] },
  async (t) => {
    const rows = legacyRows();
    if (t.backend.kind === 'sqlite') {
      const db = openLocalStore(t.backend.dbPath, { targetVersion: 19 });
      try {
        assert.is(schemaVersion(db), 19);
        const insert = db.prepare(`INSERT INTO checkpoints (id, checkpoint_id, chain_name, execution_id, node_id, node_index, status,
        state_snapshot, iteration, iteration_counters, interrupt_reason, interrupt_context, created_at)
        VALUES (@checkpoint_id, @checkpoint_id, @chain_name, @execution_id, @node_id, @node_index, @status, @state, @iteration, '{}',
        @interrupt_reason, @interrupt_context, @created_at)`);
        for (const row of rows.checkpoints) {
          insert.run({ ...row, state: JSON.stringify(row.state_snapshot), interrupt_context: row.interrupt_context && JSON.stringify(row.interrupt_context) });
        }
        db.prepare(`INSERT INTO pending_interrupts (execution_id, chain_name, node_id, reason, context, created_at)
        VALUES ('legacy-pause', 'refund', 'approval', 'manager_approval', '{"amount":70}', ?)`).run(rows.checkpoints[3]!.created_at);
      } finally {
        db.close();
      }
    }
    const checkpointer = checkpointerFor(t.backend);
    t.defer(() => checkpointer.close());
    if (t.backend.kind === 'postgres') {
      // Postgres has had step_type from its first migration; rows imported from an old store still carry NULL.
      await checkpointer.putWrites(rows.checkpoints.slice(0, 3).map((row) => ({ ...row, step_type: null })));
      await checkpointer.recordInterrupt({ ...rows.checkpoints[3]!, step_type: null }, { reason: 'manager_approval', context: { amount: 70 } });
    }
    const legacy = (await checkpointer.list('legacy-crash')).concat(await checkpointer.list('legacy-pause'));
    assert.equal(
      legacy.map((r) => r.step_type),
      [null, null, null, null],
    );

    const crashed = await fiveSteps(checkpointer).resume('legacy-crash');
    assert.is(crashed.status, 'completed');
    assert.equal(Object.keys(crashed.node_results), ['step_3', 'step_4', 'step_5']);
    assert.is(crashed.final_state.total, 15);

    const paused = await approvalChain(checkpointer).resume('legacy-pause', { resumeValue: { approved: true, metadata: { approver: 'ops' } } });
    assert.is(paused.status, 'completed');
    assert.equal(paused.final_state.seen_context, { amount: 70 });
    assert.equal(paused.output, { receipt: 'approved 70' });
    assert.equal(
      (await checkpointer.list('legacy-pause')).map((r) => [r.node_id, r.step_type]),
      [
        ['seed', null],
        ['approval', null],
        ['approval', 'resume'],
        ['approval', 'node'],
        ['finalize', 'node'],
        ['run_end', 'run_end'],
      ],
    );
  },
);

area.scenario('setup is gated on the stored version: a store from a newer agentkit is refused, untouched', {}, async (t) => {
  if (t.backend.kind === 'sqlite') {
    const db = openLocalStore(t.backend.dbPath);
    db.pragma('user_version = 99');
    db.close();
  } else if (t.backend.kind === 'postgres') {
    const setup = checkpointerFor(t.backend);
    await setup.setup();
    await setup.close();
    const client = new pg.Client({ connectionString: t.backend.url });
    await client.connect();
    await client.query(`INSERT INTO "${t.backend.schema}".schema_version (version, description) VALUES (99, 'from the future')`);
    await client.end();
  }
  const checkpointer = checkpointerFor(t.backend);
  t.defer(() => checkpointer.close());
  for (const attempt of [() => checkpointer.setup(), () => checkpointer.getLast('x')]) {
    try {
      await attempt();
      assert.unreachable('a newer store is refused');
    } catch (error) {
      assert.instance(error, StoreVersionError);
      assert.match((error as Error).message, /has schema v99, newer than this agentkit supports \(v\d+\); upgrade agentkit to open it/);
    }
  }
});

/** A cutoff a minute ahead: every row written so far is older than it. */
function soon(): Date {
  return new Date(Date.now() + 60_000);
}

/** Rows as a pre-v20 agentkit wrote them: no step_type, no terminal rows. */
function legacyRows() {
  const row = (execution_id: string, chain_name: string, node_id: string, node_index: number, state: object, extra: object = {}) => ({
    checkpoint_id: `${execution_id}-${node_id}-${node_index}`,
    execution_id,
    chain_name,
    node_id,
    node_index,
    status: 'completed' as 'completed' | 'interrupted',
    state_snapshot: state as Record<string, unknown>,
    iteration: node_index,
    interrupt_reason: null as string | null,
    interrupt_context: null as Record<string, unknown> | null,
    created_at: utcNow(),
    ...extra,
  });
  return {
    checkpoints: [
      row('legacy-crash', 'five_steps', 'step_1', 0, { total: 1, ran: ['step_1'] }),
      row('legacy-crash', 'five_steps', 'step_2', 1, { total: 3, ran: ['step_1', 'step_2'] }),
      row('legacy-pause', 'refund', 'seed', 0, { input: 'old', amount: 70 }),
      row(
        'legacy-pause',
        'refund',
        'approval',
        1,
        { input: 'old', amount: 70 },
        {
          status: 'interrupted',
          interrupt_reason: 'manager_approval',
          interrupt_context: { amount: 70 },
        },
      ),
    ],
  };
}

area.run();
