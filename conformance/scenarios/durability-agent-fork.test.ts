/**
 * Agent fork and the hosting of agents: a fork of a completed, failed or paused agent run is a new execution linked
 * by `parent_checkpoint_id` (with `input` a fresh conversation, without it the restored and balanced history goes
 * on), the spec's fork errors; a Chain node hosting an Agent pauses the chain and resumes with it.
 */
import * as assert from 'uvu/assert';
import {
  AlreadyResumed,
  Chain,
  ChainCheckpointError,
  NOT_RUN_NOTE,
  bindResumeValue,
  guardrail,
  runInScope,
  runnerOfCheckpoint,
  runnerOfExecution,
} from '../../src/index.js';
import { FunctionModel } from '../../src/testing/index.js';
import { approverAgent, payAgent, shape } from '../fixtures/durability/agents.js';
import { checkpointerFor, conformance } from '../harness/index.js';

const area = conformance('durability: agent fork and hosting');

area.scenario(
  'fork of a completed agent run: without input the saved history goes on; with input a fresh conversation; original untouched',
  { rows: ['transition:fork', 'transition:fork-completed-resume', 'error:already-resumed'] },
  async (t) => {
    const checkpointer = checkpointerFor(t.backend);
    t.defer(() => checkpointer.close());
    await payAgent(checkpointer).agent.run('pay 100', { executionId: 'pay-orig' });
    const original = await checkpointer.list('pay-orig');
    assert.equal(
      original.map((r) => r.node_id),
      ['turn:0', 'turn:0/tool:slow_paid', 'turn:1', 'run_end'],
    );

    const { agent, model } = payAgent(checkpointer);
    const branch = await agent.fork('pay-orig');
    assert.equal([branch.status, branch.output], ['completed', 'Done — paid $100.']);
    assert.is.not(branch.execution_id, 'pay-orig');
    assert.match(branch.execution_id, /^[0-9a-f-]{36}$/);
    assert.is(model.calls, 1, 'the last turn (turn:1) is asked again');
    assert.equal(shape(model.received[0]!), ['system', 'user', 'assistant:call_pay', 'tool:call_pay']);
    const rows = await checkpointer.list(branch.execution_id);
    assert.equal(
      rows.map((r) => [r.node_id, r.step_type, r.run_status, r.agent_path]),
      [
        ['__fork_origin__', 'fork_origin', null, 'agent:payer'],
        ['turn:1', 'llm_call', null, 'agent:payer'],
        ['run_end', 'run_end', 'completed', 'agent:payer'],
      ],
    );
    assert.is(rows[0]!.parent_checkpoint_id, original[2]!.checkpoint_id);
    assert.equal(rows[0]!.node_input, { source_execution_id: 'pay-orig', source_checkpoint_id: original[2]!.checkpoint_id, input: null });
    assert.equal(await checkpointer.list('pay-orig'), original, 'the original is untouched');

    const fresh = payAgent(checkpointer);
    const asked = await fresh.agent.fork('pay-orig', { checkpointId: original[0]!.checkpoint_id, input: 'pay 7' });
    assert.equal([asked.status, asked.output], ['completed', 'Done — paid $100.']);
    assert.equal(fresh.model.received[0], [
      { role: 'system', content: 'You pay.' },
      { role: 'user', content: 'pay 7' },
    ]);
    assert.equal(
      (await checkpointer.list(asked.execution_id)).map((r) => r.node_id),
      ['__fork_origin__', 'turn:0', 'turn:0/tool:slow_paid', 'turn:1', 'run_end'],
    );

    try {
      await payAgent(checkpointer).agent.resume(branch.execution_id);
      assert.unreachable();
    } catch (error) {
      assert.instance(error, AlreadyResumed);
    }
  },
);

area.scenario(
  'fork of a failed agent run branches from its last real checkpoint; fork of a paused run leaves the pause pending',
  { rows: ['transition:fork', 'transition:fork-failed-resume'] },
  async (t) => {
    const checkpointer = checkpointerFor(t.backend);
    t.defer(() => checkpointer.close());
    const { agent: working } = payAgent(checkpointer);
    let failNext = true;
    const flaky = new FunctionModel((messages) => {
      const last = messages.at(-1)!;
      if (last.role !== 'tool') return { toolCalls: [{ id: 'call_pay', name: 'slow_paid', arguments: { amount: 100 } }] };
      if (failNext) throw new Error('provider down');
      return `Done — ${last.content.replace('paid ', 'paid $')}.`;
    });
    const failing = working.clone({ llm: flaky });
    try {
      await failing.run('pay 100', { executionId: 'pay-failed' });
      assert.unreachable();
    } catch (error) {
      assert.is((error as Error).message, 'provider down');
    }
    const failedRows = await checkpointer.list('pay-failed');
    assert.equal(
      failedRows.map((r) => [r.node_id, r.run_status]),
      [
        ['turn:0', null],
        ['turn:0/tool:slow_paid', null],
        ['turn:1', null],
        ['run_end', 'failed'],
      ],
    );

    const branchId = 'pay-failed-branch';
    try {
      await failing.fork('pay-failed', { branchExecutionId: branchId });
      assert.unreachable();
    } catch (error) {
      assert.is((error as Error).message, 'provider down');
    }
    const branchRows = await checkpointer.list(branchId);
    assert.equal(
      branchRows.map((r) => [r.node_id, r.run_status]),
      [
        ['__fork_origin__', null],
        ['turn:1', null],
        ['run_end', 'failed'],
      ],
    );
    assert.is(branchRows[0]!.parent_checkpoint_id, failedRows[2]!.checkpoint_id, 'the failed marker is stepped over');
    failNext = false;
    const resumed = await failing.resume(branchId);
    assert.equal([resumed.status, resumed.output, resumed.execution_id], ['completed', 'Done — paid $100.', branchId]);

    const paused = await approverAgent(checkpointer).agent.run('refund 30', { executionId: 'refund-paused' });
    assert.is(paused.status, 'paused');
    const { agent, model } = approverAgent(checkpointer);
    const forked = await agent.fork('refund-paused');
    assert.equal([forked.status, forked.output], ['completed', `Result: [no result: ${NOT_RUN_NOTE}]`]);
    assert.equal(shape(model.received[0]!), ['system', 'user', 'assistant:call_refund', 'tool:call_refund']);
    assert.equal(
      (await checkpointer.listPendingInterrupts()).map((p) => p.execution_id),
      ['refund-paused'],
      'the original pause is still pending',
    );
    const origin = (await checkpointer.list(forked.execution_id))[0]!;
    assert.is(origin.parent_checkpoint_id, (await checkpointer.getLast('refund-paused'))!.checkpoint_id);
  },
);

area.scenario(
  'agent fork errors: the terminal row, a run with nothing but its terminal row, an unknown or foreign checkpoint',
  { rows: ['error:fork-terminal-row', 'error:fork-nothing'] },
  async (t) => {
    const checkpointer = checkpointerFor(t.backend);
    t.defer(() => checkpointer.close());
    const { agent } = payAgent(checkpointer);
    await agent.run('pay 100', { executionId: 'fork-errors' });
    const end = (await checkpointer.getLast('fork-errors'))!;
    const expectError = async (fn: () => Promise<unknown>, message: string) => {
      try {
        await fn();
        assert.unreachable();
      } catch (error) {
        assert.instance(error, ChainCheckpointError);
        assert.is((error as Error).message, message);
      }
    };
    await expectError(
      () => agent.fork('fork-errors', { checkpointId: end.checkpoint_id }),
      `checkpoint '${end.checkpoint_id}' is the terminal row of execution 'fork-errors', which records how the run ended, not a step to branch from; fork from a step checkpoint, or omit checkpointId to fork from the last executed step`,
    );
    const blocked = agent.clone({ guardrails: [guardrail({ name: 'never', position: 'input', check: () => false })] });
    await blocked.run('pay 1', { executionId: 'only-end' }).catch(() => undefined);
    assert.equal(
      (await checkpointer.list('only-end')).map((r) => [r.node_id, r.run_status]),
      [['run_end', 'failed']],
    );
    await expectError(() => agent.fork('only-end'), "No checkpoint found to fork for execution 'only-end': the run holds no executed step to branch from");
    await expectError(
      () => agent.fork('fork-errors', { checkpointId: 'no-such-checkpoint' }),
      "No checkpoint found to fork for execution 'fork-errors' / checkpoint 'no-such-checkpoint': the run holds no executed step to branch from",
    );
    await expectError(
      () => agent.fork('nothing-here'),
      "No checkpoint found to fork for execution 'nothing-here': the run holds no executed step to branch from",
    );
    const foreign = (await checkpointer.list('only-end'))[0]!;
    await expectError(
      () => agent.fork('fork-errors', { checkpointId: foreign.checkpoint_id }),
      `checkpoint '${foreign.checkpoint_id}' belongs to execution 'only-end', not 'fork-errors'`,
    );
    await expectError(() => agent.resume('nothing-here'), "No checkpoint found for execution 'nothing-here'");
  },
);

area.scenario(
  'a Chain node hosting an Agent: the agent pauses the chain, resumes with it, and its rows sit under the chain execution',
  { rows: ['transition:running->paused', 'transition:paused->running', 'transition:agent-resume-interrupted'] },
  async (t) => {
    const checkpointer = checkpointerFor(t.backend);
    t.defer(() => checkpointer.close());
    const { agent, model } = approverAgent(null);
    const chain = new Chain('support', { checkpointer })
      .addNode('triage', (state) => ({ request: `refund ${String(state.input)}` }))
      .addNode('agent', agent, { inputKey: 'request', outputKey: 'answer' })
      .addNode('reply', (state) => `Dear customer: ${String(state.answer)}`)
      .connect('triage', 'agent')
      .connect('agent', 'reply');

    const paused = await chain.run('120', { executionId: 'hosted-agent' });
    assert.is(paused.status, 'paused');
    assert.equal(paused.pending_interrupt, {
      reason: 'refund_approval',
      context: { amount: 120 },
      node_id: 'turn:0/tool:refund',
      agent_path: 'agent:approver/tool:refund',
    });
    const rows = await checkpointer.list('hosted-agent');
    assert.equal(
      rows.map((r) => [r.chain_name, r.node_id, r.status, r.agent_path]),
      [
        ['support', '__run_start__', 'completed', null],
        ['support', 'triage', 'completed', null],
        ['approver', 'turn:0', 'completed', 'agent:approver'],
        ['approver', 'turn:0/tool:refund', 'completed', 'agent:approver/tool:refund'],
        ['approver', 'turn:0/tool:refund', 'interrupted', 'agent:approver/tool:refund'],
        ['support', 'agent', 'interrupted', 'agent:approver/tool:refund'],
      ],
    );
    assert.equal(runnerOfExecution(rows), { kind: 'chain', name: 'support' });
    assert.equal(runnerOfCheckpoint(rows[4]!), { kind: 'agent', name: 'approver' });

    const done = await chain.resume('hosted-agent', { resumeValue: { approved: true, metadata: { approver: 'dana' } } });
    assert.equal([done.status, done.output], ['completed', 'Dear customer: Result: refunded 120 (approved by dana)']);
    assert.is(model.calls, 2, 'turn 0 before the pause, turn 1 after it: no model call was repeated');
    assert.equal(
      (await checkpointer.list('hosted-agent')).slice(6).map((r) => [r.chain_name, r.node_id, r.step_type]),
      [
        ['approver', 'turn:0/tool:refund', 'resume'],
        ['approver', 'turn:1', 'llm_call'],
        ['support', 'agent', 'node'],
        ['support', 'reply', 'node'],
        ['support', 'run_end', 'run_end'],
      ],
    );
    assert.equal(await checkpointer.listPendingInterrupts(), []);
  },
);

area.scenario(
  'a node function that runs an Agent and returns its paused result pauses the chain; the resume reaches the agent',
  { rows: ['transition:paused->running'] },
  async (t) => {
    const checkpointer = checkpointerFor(t.backend);
    t.defer(() => checkpointer.close());
    const { agent, model } = approverAgent(null);
    const chain = new Chain('desk', { checkpointer })
      .addNode('ask', async (state) => {
        const result = await agent.run(`refund ${String(state.input)}`);
        return result.status === 'paused' ? result : { answer: result.output };
      })
      .addNode('reply', (state) => `Dear customer: ${String(state.answer)}`)
      .connect('ask', 'reply');
    const paused = await chain.run('75', { executionId: 'fn-hosted' });
    assert.equal([paused.status, paused.pending_interrupt?.agent_path, paused.final_state], ['paused', 'agent:approver/tool:refund', { input: '75' }]);
    assert.equal(
      (await checkpointer.list('fn-hosted')).map((r) => [r.chain_name, r.node_id, r.status]),
      [
        ['desk', '__run_start__', 'completed'],
        ['approver', 'turn:0', 'completed'],
        ['approver', 'turn:0/tool:refund', 'completed'],
        ['approver', 'turn:0/tool:refund', 'interrupted'],
        ['desk', 'ask', 'interrupted'],
      ],
    );
    const done = await chain.resume('fn-hosted', { resumeValue: { approved: true, metadata: { approver: 'finn' } } });
    assert.equal([done.status, done.output], ['completed', 'Dear customer: Result: refunded 75 (approved by finn)']);
    assert.is(model.calls, 2);
  },
);

area.scenario(
  'an Agent joins an enclosing scope: nested path, the scope checkpointer, no terminal row of its own',
  { rows: ['transition:running->completed'] },
  async (t) => {
    const checkpointer = checkpointerFor(t.backend);
    t.defer(() => checkpointer.close());
    const { agent } = payAgent(null);
    const worker = agent.clone({ agentPathLabel: 'worker:payer' });
    const result = await runInScope({ executionId: 'outer', runnerName: 'team', checkpointer, agentPath: 'supervisor:team' }, () => worker.run('pay 100'));
    assert.equal([result.status, result.execution_id], ['completed', 'outer']);
    assert.equal(
      (await checkpointer.list('outer')).map((r) => [r.chain_name, r.node_id, r.agent_path]),
      [
        ['payer', 'turn:0', 'supervisor:team/worker:payer'],
        ['payer', 'turn:0/tool:slow_paid', 'supervisor:team/worker:payer/tool:slow_paid'],
        ['payer', 'turn:1', 'supervisor:team/worker:payer'],
      ],
    );
  },
);

area.scenario(
  'agentPathPrefix resumes one nested worker of an execution, with the pause claimed by the enclosing runner',
  { rows: ['transition:agent-resume-interrupted'] },
  async (t) => {
    const checkpointer = checkpointerFor(t.backend);
    t.defer(() => checkpointer.close());
    const scope = { executionId: 'team-run', runnerName: 'team', checkpointer, agentPath: 'supervisor:team' };
    const payer = payAgent(null).agent.clone({ agentPathLabel: 'worker:b' });
    const approver = approverAgent(null).agent.clone({ agentPathLabel: 'worker:a' });
    await runInScope(scope, () => payer.run('pay 100'));
    const paused = await runInScope(scope, () => approver.run('refund 60'));
    assert.equal([paused.status, paused.pending_interrupt?.agent_path], ['paused', 'supervisor:team/worker:a/tool:refund']);
    await runInScope(scope, () => payer.run('pay 100')); // a later worker's rows are the execution's latest

    const claimed = (await checkpointer.deletePendingInterruptAtomic('team-run'))!;
    const resumed = approverAgent(null);
    const worker = resumed.agent.clone({ agentPathLabel: 'worker:a' });
    const done = await runInScope(scope, () =>
      bindResumeValue({ approved: true, metadata: { approver: 'gus' } }, claimed, () =>
        worker.resume('team-run', { agentPathPrefix: 'supervisor:team/worker:a' }),
      ),
    );
    assert.equal([done.status, done.output, done.execution_id], ['completed', 'Result: refunded 60 (approved by gus)', 'team-run']);
    const rows = await checkpointer.list('team-run');
    assert.equal(
      rows.slice(-2).map((r) => [r.chain_name, r.node_id, r.agent_path]),
      [
        ['approver', 'turn:0/tool:refund', 'supervisor:team/worker:a/tool:refund'],
        ['approver', 'turn:1', 'supervisor:team/worker:a'],
      ],
    );
    assert.not.ok(
      rows.some((r) => r.step_type === 'run_end'),
      'the workers leave the terminal row to the supervisor',
    );
    try {
      await runInScope(scope, () => worker.resume('team-run', { agentPathPrefix: 'supervisor:team/worker:zz' }));
      assert.unreachable();
    } catch (error) {
      assert.instance(error, ChainCheckpointError);
      assert.is((error as Error).message, "No checkpoint found for execution 'team-run' under agent path 'supervisor:team/worker:zz'");
    }
  },
);

area.run();
