/**
 * Fork rows of the state table: a fork of a completed, failed or paused run is a new execution linked by
 * `parent_checkpoint_id`, leaves the original untouched and writes its own terminal row (none on a pause); a
 * completed branch is not resumable, a failed branch is; forks from the terminal row or of a run with nothing else
 * are refused.
 */
import * as assert from 'uvu/assert';
import { AlreadyResumed, ChainCheckpointError, ChainResumeError, latestForkable, runEndRow } from '../../src/index.js';
import { approvalChain, fiveSteps } from '../fixtures/durability/chains.js';
import { checkpointerFor, conformance } from '../harness/index.js';

const area = conformance('durability: fork');

area.scenario(
  'fork of a completed run: fresh id, origin row, own terminal row, original untouched; resuming the branch is AlreadyResumed',
  { rows: ['transition:fork', 'transition:fork-completed-resume', 'error:already-resumed'] },
  async (t) => {
    const checkpointer = checkpointerFor(t.backend);
    t.defer(() => checkpointer.close());
    const chain = fiveSteps(checkpointer);
    await chain.run(null, { executionId: 'orig' });
    const original = await checkpointer.list('orig');
    const step2 = original.find((r) => r.node_id === 'step_2')!;

    const branch = await chain.fork('orig', { checkpointId: step2.checkpoint_id, modifiedState: { total: 100 }, context: { why: 'what-if' } });
    assert.is(branch.status, 'completed');
    assert.is.not(branch.execution_id, 'orig');
    assert.match(branch.execution_id, /^[0-9a-f-]{36}$/);
    assert.equal(Object.keys(branch.node_results), ['step_3', 'step_4', 'step_5']);
    assert.is(branch.final_state.total, 112);
    assert.equal(await checkpointer.list('orig'), original, 'the original is untouched');

    const rows = await checkpointer.list(branch.execution_id);
    assert.equal(
      rows.map((r) => [r.node_id, r.step_type, r.run_status]),
      [
        ['__fork_origin__', 'fork_origin', null],
        ['step_3', 'node', null],
        ['step_4', 'node', null],
        ['step_5', 'node', null],
        ['run_end', 'run_end', 'completed'],
      ],
    );
    assert.is(rows[0]!.parent_checkpoint_id, step2.checkpoint_id);
    assert.equal(rows[0]!.state_snapshot, { input: null, total: 100, ran: ['step_1', 'step_2'] });
    assert.equal(rows[0]!.node_input, { source_execution_id: 'orig', source_checkpoint_id: step2.checkpoint_id, start_node: 'step_3' });

    for (const options of [{}, { resumeValue: { approved: true } }]) {
      try {
        await chain.resume(branch.execution_id, options);
        assert.unreachable();
      } catch (error) {
        assert.instance(error, AlreadyResumed);
      }
    }
    try {
      await chain.fork('orig');
      assert.unreachable('the default fork point of a completed run is its last node');
    } catch (error) {
      assert.instance(error, ChainResumeError);
      assert.match((error as Error).message, "node 'step_5' is the last node of chain 'five_steps'");
    }
  },
);

area.scenario(
  'fork of a failed run branches from its last real checkpoint; a failed branch writes failed and resumes',
  { rows: ['transition:fork', 'transition:fork-failed-resume'] },
  async (t) => {
    const checkpointer = checkpointerFor(t.backend);
    t.defer(() => checkpointer.close());
    const failing = fiveSteps(checkpointer, { failAt: 4 });
    await failing.run(null, { executionId: 'broken' }).catch(() => undefined);
    const original = await checkpointer.list('broken');
    assert.is(original.at(-1)!.run_status, 'failed');
    assert.is((await latestForkable(checkpointer, 'broken'))!.node_id, 'step_3', 'the failed marker is skipped');

    // The branch fails too: it closes itself with a failed terminal row.
    const branchId = 'broken-retry';
    const branchError = await failing.fork('broken', { input: 'retry', branchExecutionId: branchId }).then(
      () => null,
      (error: Error) => error,
    );
    assert.is(branchError?.message, 'step_4 failed: upstream unavailable');
    const branchRows = await checkpointer.list(branchId);
    assert.equal(
      branchRows.map((r) => [r.node_id, r.run_status]),
      [
        ['__fork_origin__', null],
        ['run_end', 'failed'],
      ],
    );
    assert.is(branchRows[0]!.parent_checkpoint_id, original.find((r) => r.node_id === 'step_3')!.checkpoint_id);
    await failing.fork('broken', { branchExecutionId: branchId }).then(
      () => assert.unreachable('a branch id in use is refused'),
      (error: Error) => assert.instance(error, ChainCheckpointError),
    );

    // A failed branch resumes from its last real checkpoint (its origin) with a patched state.
    const resumed = await failing.resume(branchId, { modifiedState: { fixed: true } });
    assert.is(resumed.status, 'completed');
    assert.is(resumed.execution_id, branchId);
    assert.equal(Object.keys(resumed.node_results), ['step_4', 'step_5']);
    assert.is(resumed.final_state.input, 'retry');
    assert.equal(await checkpointer.list('broken'), original);
  },
);

area.scenario(
  'fork of a paused run: the branch pauses again on its own, with no terminal row; the original stays paused',
  { rows: ['transition:fork'] },
  async (t) => {
    const checkpointer = checkpointerFor(t.backend);
    t.defer(() => checkpointer.close());
    const chain = approvalChain(checkpointer);
    await chain.run('refund', { executionId: 'waiting' });
    const branch = await chain.fork('waiting', { modifiedState: { amount: 10 } });
    assert.is(branch.status, 'paused');
    assert.equal(branch.pending_interrupt, {
      reason: 'manager_approval',
      context: { amount: 10, policy: 'high-value' },
      node_id: 'approval',
      agent_path: null,
    });
    assert.equal(
      (await checkpointer.list(branch.execution_id)).map((r) => [r.node_id, r.status]),
      [
        ['__fork_origin__', 'completed'],
        ['approval', 'interrupted'],
      ],
    );
    assert.equal((await checkpointer.listPendingInterrupts()).map((p) => p.execution_id).sort(), [branch.execution_id, 'waiting'].sort());
    const done = await chain.resume(branch.execution_id, { resumeValue: { approved: false } });
    assert.equal(done.output, { receipt: 'rejected 10' });
    assert.equal(
      (await checkpointer.listPendingInterrupts()).map((p) => p.execution_id),
      ['waiting'],
    );
  },
);

area.scenario('fork from the terminal row is refused with ChainCheckpointError', { rows: ['error:fork-terminal-row'] }, async (t) => {
  const checkpointer = checkpointerFor(t.backend);
  t.defer(() => checkpointer.close());
  const chain = fiveSteps(checkpointer);
  await chain.run(null, { executionId: 'ended' });
  const terminal = (await checkpointer.getLast('ended'))!;
  assert.is(terminal.step_type, 'run_end');
  try {
    await chain.fork('ended', { checkpointId: terminal.checkpoint_id });
    assert.unreachable();
  } catch (error) {
    assert.instance(error, ChainCheckpointError);
    assert.not.instance(error, ChainResumeError);
    assert.match((error as Error).message, `checkpoint '${terminal.checkpoint_id}' is the terminal row of execution 'ended'`);
  }
  assert.is((await checkpointer.list('ended')).length, 7, 'nothing was written');
});

area.scenario('fork of a run holding nothing but its terminal row: no checkpoint to fork', { rows: ['error:fork-nothing'] }, async (t) => {
  const checkpointer = checkpointerFor(t.backend);
  t.defer(() => checkpointer.close());
  const chain = fiveSteps(checkpointer, { failAt: 1 });
  // A run from before start rows existed that failed in its first node: its terminal row is all it holds.
  await checkpointer.put(
    runEndRow({ executionId: 'stillborn', chainName: chain.name, status: 'failed', state: { input: null }, nodeIndex: 0, error: new Error('step_1 failed') }),
  );
  assert.equal(
    (await checkpointer.list('stillborn')).map((r) => r.node_id),
    ['run_end'],
  );
  assert.is(await latestForkable(checkpointer, 'stillborn'), null);
  for (const id of ['stillborn', 'never-ran']) {
    try {
      await chain.fork(id);
      assert.unreachable();
    } catch (error) {
      assert.instance(error, ChainCheckpointError);
      assert.is((error as Error).message, `No checkpoint found to fork for execution '${id}': the run holds no executed step to branch from`);
    }
  }
  try {
    await chain.fork('stillborn', { checkpointId: 'no-such-checkpoint' });
    assert.unreachable();
  } catch (error) {
    assert.match((error as Error).message, "for execution 'stillborn' / checkpoint 'no-such-checkpoint'");
  }
});

area.run();
