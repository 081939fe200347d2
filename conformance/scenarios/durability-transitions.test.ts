/**
 * The spec's state table for Chains, row by row, on SQLite and Postgres through the SDK: pause, complete, fail,
 * resume with a value, a lost claim, resume of a completed run, resume of a failed run with a patched state.
 */
import * as assert from 'uvu/assert';
import { AlreadyResumed, Chain, ChainCheckpointError, ChainResumeError, InterruptSignal, interrupt, latestResumable } from '../../src/index.js';
import { approvalChain, fiveSteps } from '../fixtures/durability/chains.js';
import { checkpointerFor, conformance, startCounterServer } from '../harness/index.js';

const area = conformance('durability: chain transitions');

area.scenario(
  'running -> paused: interrupted checkpoint and pending row together, context frozen',
  { rows: ['transition:running->paused', 'error:interrupt-signal'] },
  async (t) => {
    const checkpointer = checkpointerFor(t.backend);
    t.defer(() => checkpointer.close());
    const context = { amount: 50000, approvers: ['cfo'] };
    const chain = new Chain('refund', { checkpointer })
      .addNode('seed', () => ({ amount: 50000 }))
      .addNode('approval', () => {
        try {
          return interrupt('manager_approval', context);
        } finally {
          context.amount = 1; // changes after the pause must not reach the stored pause
          context.approvers.push('intern');
        }
      })
      .addNode('finalize', () => ({ done: true }))
      .connect('seed', 'approval')
      .connect('approval', 'finalize');

    const result = await chain.run('refund order 42', { executionId: 'exec-paused' });
    // A chain's root span records only when a tracer provider is installed, which an earlier agent run in this process
    // may have done: either way the id is null or a real 32-hex trace id.
    assert.ok(result.trace_id === null || /^[0-9a-f]{32}$/.test(result.trace_id), String(result.trace_id));
    assert.equal(result, {
      output: null,
      final_state: { input: 'refund order 42', amount: 50000 },
      node_results: { seed: { amount: 50000 } },
      execution_id: 'exec-paused',
      status: 'paused',
      pending_interrupt: { reason: 'manager_approval', context: { amount: 50000, approvers: ['cfo'] }, node_id: 'approval', agent_path: null },
      trace_id: result.trace_id,
    });
    const rows = await checkpointer.list('exec-paused');
    assert.equal(
      rows.map((r) => [r.node_id, r.step_type, r.status, r.run_status]),
      [
        ['__run_start__', 'run_start', 'completed', null],
        ['seed', 'node', 'completed', null],
        ['approval', 'hitl_pause', 'interrupted', null],
      ],
      'a start row, no terminal row on a pause',
    );
    assert.equal(rows[0]!.state_snapshot, { input: 'refund order 42' }, 'the start row holds the initial state');
    assert.equal(rows[0]!.node_input, { start_node: 'seed' });
    const paused = rows[2]!;
    assert.is(paused.interrupt_reason, 'manager_approval');
    assert.equal(paused.interrupt_context, { amount: 50000, approvers: ['cfo'] });
    assert.equal(paused.state_snapshot, { input: 'refund order 42', amount: 50000 }, 'the state the paused node started from');
    assert.is(paused.node_index, 1);
    const pending = await checkpointer.listPendingInterrupts();
    assert.equal(pending, [
      {
        execution_id: 'exec-paused',
        chain_name: 'refund',
        node_id: 'approval',
        reason: 'manager_approval',
        context: { amount: 50000, approvers: ['cfo'] },
        agent_path: null,
        created_at: paused.created_at,
      },
    ]);

    // Outside an executor the signal itself surfaces: it is the executors that catch it.
    try {
      interrupt('needs_review', { doc: 7 });
      assert.unreachable('interrupt() outside a run raises');
    } catch (error) {
      assert.instance(error, InterruptSignal);
      assert.is((error as InterruptSignal).reason, 'needs_review');
      assert.equal((error as InterruptSignal).context, { doc: 7 });
    }
  },
);

area.scenario('running -> completed: node rows then a terminal row; getLast is the terminal row', { rows: ['transition:running->completed'] }, async (t) => {
  const checkpointer = checkpointerFor(t.backend);
  t.defer(() => checkpointer.close());
  const chain = new Chain('ab', { checkpointer })
    .addNode('a', () => ({ x: 1 }))
    .addNode('b', (state) => ({ y: (state.x as number) + 1 }))
    .connect('a', 'b');
  const result = await chain.run('go', { executionId: 'exec-done' });
  assert.is(result.status, 'completed');
  assert.is(result.pending_interrupt, null);
  assert.equal(result.output, { y: 2 });
  assert.equal(result.final_state, { input: 'go', x: 1, y: 2 });
  const rows = await checkpointer.list('exec-done');
  assert.equal(
    rows.map((r) => [r.node_id, r.step_type, r.status, r.run_status, r.node_index]),
    [
      ['__run_start__', 'run_start', 'completed', null, 0],
      ['a', 'node', 'completed', null, 0],
      ['b', 'node', 'completed', null, 1],
      ['run_end', 'run_end', 'completed', 'completed', 2],
    ],
  );
  assert.equal(rows[3]!.state_snapshot, { input: 'go', x: 1, y: 2 });
  assert.equal(await checkpointer.getLast('exec-done'), rows[3]);
  try {
    await latestResumable(checkpointer, 'exec-done');
    assert.unreachable();
  } catch (error) {
    assert.instance(error, AlreadyResumed);
  }
});

area.scenario('running -> failed: the error propagates and a failed terminal row records it', { rows: ['transition:running->failed'] }, async (t) => {
  const checkpointer = checkpointerFor(t.backend);
  t.defer(() => checkpointer.close());
  const chain = fiveSteps(checkpointer, { failAt: 2 });
  try {
    await chain.run(null, { executionId: 'exec-failed' });
    assert.unreachable('the run rejects');
  } catch (error) {
    assert.instance(error, Error);
    assert.is((error as Error).message, 'step_2 failed: upstream unavailable');
  }
  const rows = await checkpointer.list('exec-failed');
  assert.equal(
    rows.map((r) => [r.node_id, r.step_type, r.status, r.run_status]),
    [
      ['__run_start__', 'run_start', 'completed', null],
      ['step_1', 'node', 'completed', null],
      ['run_end', 'run_end', 'failed', 'failed'],
    ],
  );
  assert.equal(rows[2]!.node_output, { error: 'Error: step_2 failed: upstream unavailable' });
  assert.equal(rows[2]!.state_snapshot, { input: null, total: 1, ran: ['step_1'] }, 'the last committed state');
});

area.scenario(
  'paused -> running: the claim wins, the node re-executes and interrupt() returns the Resume',
  { rows: ['transition:paused->running'] },
  async (t) => {
    const checkpointer = checkpointerFor(t.backend);
    t.defer(() => checkpointer.close());
    const chain = approvalChain(checkpointer);
    const paused = await chain.run('refund order 42', { executionId: 'exec-resume' });
    assert.is(paused.status, 'paused');
    const resumed = await chain.resume('exec-resume', {
      resumeValue: { approved: true, metadata: { approver: 'alice' }, data: 'dropped' } as never,
    });
    assert.is(resumed.status, 'completed');
    assert.is(resumed.execution_id, 'exec-resume');
    assert.equal(resumed.output, { receipt: 'approved 50000' });
    assert.equal(Object.keys(resumed.node_results), ['approval', 'finalize'], 'seed did not run again');
    assert.equal(resumed.final_state.resume_value, { approved: true, metadata: { approver: 'alice' } }, 'unknown keys dropped');
    assert.equal(resumed.final_state.seen_context, { amount: 50000, policy: 'high-value' });
    assert.equal(await checkpointer.listPendingInterrupts(), [], 'the pending row was claimed');
    const rows = await checkpointer.list('exec-resume');
    assert.equal(
      rows.map((r) => [r.node_id, r.step_type, r.status]),
      [
        ['__run_start__', 'run_start', 'completed'],
        ['seed', 'node', 'completed'],
        ['approval', 'hitl_pause', 'interrupted'],
        ['approval', 'resume', 'completed'],
        ['approval', 'node', 'completed'],
        ['finalize', 'node', 'completed'],
        ['run_end', 'run_end', 'completed'],
      ],
    );
    const decision = rows[3]!;
    assert.is(decision.parent_checkpoint_id, rows[2]!.checkpoint_id, 'the decision row links to the pause it claimed');
    assert.equal(
      (decision.node_output as { resume: unknown }).resume,
      { approved: true, metadata: { approver: 'alice' } },
      'the claim recorded the decision it applied',
    );
    assert.match(String((decision.node_output as { claimed_by: unknown }).claimed_by), new RegExp(`:${process.pid}:`), 'and who claimed it');
  },
);

area.scenario(
  'paused, claimed by another resumer: AlreadyResumed and nothing re-executes',
  { rows: ['transition:paused-claimed', 'error:already-resumed'] },
  async (t) => {
    const checkpointer = checkpointerFor(t.backend);
    const counter = await startCounterServer();
    t.defer(() => checkpointer.close());
    t.defer(() => counter.close());
    const chain = approvalChain(checkpointer, { counterUrl: counter.url });
    await chain.run('refund', { executionId: 'exec-claimed' });
    // Another resumer claimed the pause first (it may still be running the node).
    const claimed = await checkpointer.deletePendingInterruptAtomic('exec-claimed');
    assert.is(claimed!.node_id, 'approval');
    const before = await checkpointer.list('exec-claimed');
    try {
      await chain.resume('exec-claimed', { resumeValue: { approved: true } });
      assert.unreachable('the loser raises');
    } catch (error) {
      assert.instance(error, AlreadyResumed);
      assert.is((error as AlreadyResumed).code, 'already_resumed');
      assert.match((error as Error).message, "Execution 'exec-claimed' has no pending interrupt to claim");
    }
    assert.equal(await checkpointer.list('exec-claimed'), before, 'state unchanged');
    assert.is(counter.count('/finalize'), 0);
    try {
      await chain.resume('exec-claimed');
      assert.unreachable('without a value a paused run is refused');
    } catch (error) {
      assert.instance(error, ChainResumeError);
      assert.instance(error, ChainCheckpointError);
      assert.match((error as Error).message, 'pass resumeValue');
    }
  },
);

area.scenario(
  'completed -> resume: AlreadyResumed with or without a value, no re-execution',
  { rows: ['transition:completed-resume', 'error:already-resumed'] },
  async (t) => {
    const checkpointer = checkpointerFor(t.backend);
    const counter = await startCounterServer();
    t.defer(() => checkpointer.close());
    t.defer(() => counter.close());
    const chain = approvalChain(checkpointer, { counterUrl: counter.url });
    await chain.run('refund', { executionId: 'exec-complete' });
    await chain.resume('exec-complete', { resumeValue: { approved: true, metadata: { approver: 'alice' } } });
    assert.is(counter.count('/finalize'), 1);
    const before = await checkpointer.list('exec-complete');
    for (const options of [{ resumeValue: { approved: true } }, {}, { modifiedState: { amount: 1 } }]) {
      try {
        await chain.resume('exec-complete', options);
        assert.unreachable('a completed run is not resumable');
      } catch (error) {
        assert.instance(error, AlreadyResumed);
        assert.match((error as Error).message, "Chain 'exec-complete' already finished (completed)");
      }
    }
    assert.equal(await checkpointer.list('exec-complete'), before);
    assert.is(counter.count('/finalize'), 1);
  },
);

area.scenario(
  'failed -> running: resume from the last real checkpoint, modifiedState patches the state',
  { rows: ['transition:failed->running'] },
  async (t) => {
    const checkpointer = checkpointerFor(t.backend);
    const counter = await startCounterServer();
    t.defer(() => checkpointer.close());
    t.defer(() => counter.close());
    const chain = fiveSteps(checkpointer, { failAt: 3, counterUrl: counter.url });
    await chain.run(null, { executionId: 'exec-fix' }).then(
      () => assert.unreachable('step_3 fails'),
      (error: Error) => assert.is(error.message, 'step_3 failed: upstream unavailable'),
    );
    // Resuming unchanged fails again at the same node (stepping over the failed marker), writing another marker.
    await chain.resume('exec-fix').then(
      () => assert.unreachable('still failing'),
      (error: Error) => assert.is(error.message, 'step_3 failed: upstream unavailable'),
    );
    const result = await chain.resume('exec-fix', { modifiedState: { fixed: true } });
    assert.is(result.status, 'completed');
    assert.equal(Object.keys(result.node_results), ['step_3', 'step_4', 'step_5']);
    assert.equal(result.final_state, { input: null, total: 15, ran: ['step_1', 'step_2', 'step_3', 'step_4', 'step_5'], fixed: true });
    assert.equal(
      [1, 2, 3, 4, 5].map((i) => counter.count(`/step_${i}`)),
      [1, 1, 3, 1, 1],
    );
    const rows = await checkpointer.list('exec-fix');
    assert.equal(
      rows.map((r) => [r.node_id, r.run_status]),
      [
        ['__run_start__', null],
        ['step_1', null],
        ['step_2', null],
        ['run_end', 'failed'],
        ['run_end', 'failed'],
        ['step_3', null],
        ['step_4', null],
        ['step_5', null],
        ['run_end', 'completed'],
      ],
    );
  },
);

area.scenario('a run that failed in its first node resumes from its initial state', { rows: ['transition:failed->running'] }, async (t) => {
  const checkpointer = checkpointerFor(t.backend);
  t.defer(() => checkpointer.close());
  const chain = fiveSteps(checkpointer, { failAt: 1 });
  await chain.run('first', { executionId: 'exec-first', state: { total: 100 } }).catch(() => undefined);
  assert.equal(
    (await checkpointer.list('exec-first')).map((r) => r.node_id),
    ['__run_start__', 'run_end'],
  );
  const result = await chain.resume('exec-first', { modifiedState: { fixed: true } });
  assert.is(result.status, 'completed');
  assert.equal(result.final_state.total, 115);
  assert.equal(result.final_state.input, 'first');
});

area.scenario(
  'a node that fails after its resume: the next resume re-runs it with the decision already given',
  { rows: ['transition:failed->running'] },
  async (t) => {
    const checkpointer = checkpointerFor(t.backend);
    t.defer(() => checkpointer.close());
    let failures = 1;
    const chain = new Chain('flaky', { checkpointer })
      .addNode('approve', () => {
        const decision = interrupt('sign_off', { step: 'approve' });
        if (failures-- > 0) throw new Error('ledger unavailable');
        return { approved: decision.approved };
      })
      .addNode('book', (state) => ({ booked: state.approved }))
      .connect('approve', 'book');
    await chain.run('x', { executionId: 'exec-flaky' });
    await chain.resume('exec-flaky', { resumeValue: { approved: true } }).then(
      () => assert.unreachable(),
      (error: Error) => assert.is(error.message, 'ledger unavailable'),
    );
    // The decision was recorded with the claim: a different value is refused naming it; the failed node re-runs with it.
    await chain.resume('exec-flaky', { resumeValue: { approved: false } }).then(
      () => assert.unreachable('a different decision must be refused'),
      (error: Error) => assert.match(error.message, /execution 'exec-flaky' already has a decision: approved by \S+ \(sdk\)/),
    );
    const done = await chain.resume('exec-flaky');
    assert.is(done.status, 'completed', 'the human is not asked again');
    assert.equal(done.final_state, { input: 'x', approved: true, booked: true });
    assert.equal(
      (await checkpointer.list('exec-flaky')).map((r) => [r.node_id, r.step_type, r.status]),
      [
        ['__run_start__', 'run_start', 'completed'],
        ['approve', 'hitl_pause', 'interrupted'],
        ['approve', 'resume', 'completed'],
        ['run_end', 'run_end', 'failed'],
        ['approve', 'node', 'completed'],
        ['book', 'node', 'completed'],
        ['run_end', 'run_end', 'completed'],
      ],
    );
    await chain.resume('exec-flaky').then(
      () => assert.unreachable('completed'),
      (error: Error) => assert.instance(error, AlreadyResumed),
    );
  },
);

area.scenario('resume of an unknown execution: ChainCheckpointError', {}, async (t) => {
  const checkpointer = checkpointerFor(t.backend);
  t.defer(() => checkpointer.close());
  try {
    await approvalChain(checkpointer).resume('no-such-execution', { resumeValue: { approved: true } });
    assert.unreachable();
  } catch (error) {
    assert.instance(error, ChainCheckpointError);
    assert.is((error as Error).message, "No checkpoint found for execution 'no-such-execution'");
  }
});

area.run();
