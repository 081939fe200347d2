/**
 * Durability across real process boundaries: a child killed with SIGKILL in the middle of node 3 is resumed by the
 * parent (nodes 3-5 run exactly once), and a run paused in process A is resumed in process B with the interrupt
 * context frozen at pause time, even after the stored state row was rewritten in between.
 */
import * as assert from 'uvu/assert';
import Database from 'better-sqlite3';
import pg from 'pg';
import { AlreadyResumed, type ChainResult } from '../../src/index.js';
import { approvalChain, fiveSteps } from '../fixtures/durability/chains.js';
import { backendConfig, checkpointerFor, conformance, spawnNode, type ScenarioContext } from '../harness/index.js';

const area = conformance('durability: process boundaries');

area.scenario(
  'SIGKILL during node 3; resume runs exactly nodes 3-5, each node once in history plus the terminal row',
  { rows: ['transition:failed->running'], timeoutMs: 60_000 },
  async (t) => {
    const args = JSON.stringify({ config: backendConfig(t.backend), executionId: 'exec-crash' });
    const child = spawnNode('conformance/fixtures/durability/child.ts', ['crash', args]);
    t.defer(() => child.process.kill('SIGKILL'));
    await child.waitForLine((line) => line === 'started step_3', 30_000);
    child.process.kill('SIGKILL');
    const exit = await child.exit();
    assert.is(exit.signal, 'SIGKILL');

    const checkpointer = checkpointerFor(t.backend);
    t.defer(() => checkpointer.close());
    const before = await checkpointer.list('exec-crash');
    assert.equal(
      before.map((r) => r.node_id),
      ['__run_start__', 'step_1', 'step_2'],
      'node 3 never committed',
    );

    const result = await fiveSteps(checkpointer).resume('exec-crash');
    assert.is(result.status, 'completed');
    assert.is(result.execution_id, 'exec-crash');
    assert.equal(Object.keys(result.node_results), ['step_3', 'step_4', 'step_5']);
    assert.equal(result.final_state, { input: null, total: 15, ran: ['step_1', 'step_2', 'step_3', 'step_4', 'step_5'] });

    const rows = await checkpointer.list('exec-crash');
    assert.equal(
      rows.map((r) => r.node_id),
      ['__run_start__', 'step_1', 'step_2', 'step_3', 'step_4', 'step_5', 'run_end'],
    );
    assert.equal(
      rows.map((r) => r.step_type),
      ['run_start', 'node', 'node', 'node', 'node', 'node', 'run_end'],
    );
    assert.equal(
      rows.map((r) => r.iteration),
      [0, 0, 1, 2, 3, 4, 4],
    );
    assert.is(rows[6]!.run_status, 'completed');
    const written = (ids: string[]) => rows.filter((r) => ids.includes(r.node_id)).map((r) => r.created_at);
    assert.ok(
      written(['step_3', 'step_4', 'step_5']).every((at) => at > written(['step_1', 'step_2']).sort().at(-1)!),
      'nodes 3-5 were written after the crash',
    );
  },
);

area.scenario(
  'pause in process A, resume in process B: the frozen context wins over a rewritten state row',
  { rows: ['transition:running->paused', 'transition:paused->running'], timeoutMs: 60_000 },
  async (t) => {
    const config = backendConfig(t.backend);
    const a = spawnNode('conformance/fixtures/durability/child.ts', ['pause', JSON.stringify({ config })]);
    t.defer(() => a.process.kill('SIGKILL'));
    const paused = JSON.parse(await a.waitForLine((line) => line.startsWith('{'))) as ChainResult;
    assert.is((await a.exit()).code, 0, a.stderr());
    assert.is(paused.status, 'paused');
    assert.equal(paused.pending_interrupt, {
      reason: 'manager_approval',
      context: { amount: 50000, policy: 'high-value' },
      node_id: 'approval',
      agent_path: null,
    });

    // Someone edits the stored pause between the two processes: the state and the row's copy of the context.
    await rewriteInterruptedRow(t, paused.execution_id, { input: 'refund order 42', amount: 1 }, { amount: 1, policy: 'none' });

    const b = spawnNode('conformance/fixtures/durability/child.ts', ['resume', JSON.stringify({ config, executionId: paused.execution_id })]);
    t.defer(() => b.process.kill('SIGKILL'));
    const resumed = JSON.parse(await b.waitForLine((line) => line.startsWith('{'))) as ChainResult;
    assert.is((await b.exit()).code, 0, b.stderr());
    assert.is(resumed.status, 'completed');
    assert.is(resumed.execution_id, paused.execution_id);
    assert.equal(resumed.final_state.seen_context, { amount: 50000, policy: 'high-value' }, 'the context frozen at pause time');
    assert.is(resumed.final_state.approver, 'bob');
    assert.is(resumed.final_state.amount, 1, 'the state itself comes from the (rewritten) checkpoint');

    const checkpointer = checkpointerFor(t.backend);
    t.defer(() => checkpointer.close());
    assert.equal(await checkpointer.listPendingInterrupts(), []);
    try {
      await approvalChain(checkpointer).resume(paused.execution_id, { resumeValue: { approved: true } });
      assert.unreachable();
    } catch (error) {
      assert.instance(error, AlreadyResumed);
    }
  },
);

/** Overwrite the interrupted checkpoint of an execution directly in the store, bypassing the SDK. */
async function rewriteInterruptedRow(t: ScenarioContext, executionId: string, state: object, context: object): Promise<void> {
  if (t.backend.kind === 'sqlite') {
    const db = new Database(t.backend.dbPath);
    try {
      const changed = db
        // A full state (delta_base NULL: not a delta on an earlier row, docs/durability.md "How rows are stored").
        .prepare("UPDATE checkpoints SET state_snapshot = ?, delta_base = NULL, interrupt_context = ? WHERE execution_id = ? AND status = 'interrupted'")
        .run(JSON.stringify(state), JSON.stringify(context), executionId).changes;
      assert.is(changed, 1);
    } finally {
      db.close();
    }
  } else if (t.backend.kind === 'postgres') {
    const client = new pg.Client({ connectionString: t.backend.url });
    await client.connect();
    try {
      const result = await client.query(
        `UPDATE "${t.backend.schema}".checkpoints SET state_snapshot = $1::jsonb, delta_base = NULL, state_delta = NULL, interrupt_context = $2::jsonb
         WHERE execution_id = $3 AND status = 'interrupted'`,
        [JSON.stringify(state), JSON.stringify(context), executionId],
      );
      assert.is(result.rowCount, 1);
    } finally {
      await client.end();
    }
  }
}

area.run();
