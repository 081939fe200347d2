/**
 * A chain node hosting a runner that pauses on its own, the way an Agent's tool loop does: the runner runs in the
 * chain's scope, records its pause (checkpoint + pending row) under the chain's execution with its own node id and
 * agent path, and returns a paused result. The chain pauses with that pending interrupt and, on resume, re-runs the
 * hosting node with the Resume value bound.
 */
import * as assert from 'uvu/assert';
import { Chain, childScope, currentScope, interrupt, isInterruptSignal, joinAgentPath, recordInterrupt } from '../../src/index.js';
import { checkpointerFor, conformance, startCounterServer } from '../harness/index.js';
import { hit } from '../fixtures/durability/chains.js';

const area = conformance('durability: chain hosting a runner');

/** An agent-like runner: its "refund" tool asks for approval and the runner records the pause itself. */
function approverAgent(counterUrl: string) {
  return {
    async run(input: unknown) {
      const parent = currentScope()!;
      const agentPath = joinAgentPath(parent.agentPath, 'agent:approver');
      return childScope({ runnerName: 'approver', agentPath }, async () => {
        await hit(`${counterUrl}/agent-run`);
        try {
          const decision = interrupt('tool_approval', { tool: 'refund', arguments: { request: input } });
          return {
            status: 'completed',
            output: decision.approved ? `refund issued for ${String(input)}` : 'refund denied',
            execution_id: parent.executionId,
            pending_interrupt: null,
          };
        } catch (error) {
          if (!isInterruptSignal(error)) throw error;
          const pending = await recordInterrupt(error, {
            nodeId: 'turn:0/tool:refund',
            stateSnapshot: { messages: [String(input)] },
            agentPath: `${agentPath}/tool:refund`,
          });
          return { status: 'paused', output: '', execution_id: parent.executionId, pending_interrupt: pending };
        }
      });
    },
  };
}

area.scenario('a hosted runner pauses the chain and resumes with it', { rows: ['transition:running->paused', 'transition:paused->running'] }, async (t) => {
  const counter = await startCounterServer();
  const checkpointer = checkpointerFor(t.backend);
  t.defer(() => counter.close());
  t.defer(() => checkpointer.close());
  const chain = new Chain('support', { checkpointer })
    .addNode('triage', (state) => ({ request: `refund ${String(state.input)}` }))
    .addNode('agent', approverAgent(counter.url), { inputKey: 'request', outputKey: 'answer' })
    .addNode('reply', (state) => `Dear customer: ${String(state.answer)}`)
    .connect('triage', 'agent')
    .connect('agent', 'reply');

  const paused = await chain.run('order 7', { executionId: 'hosted' });
  assert.is(paused.status, 'paused');
  assert.equal(paused.pending_interrupt, {
    reason: 'tool_approval',
    context: { tool: 'refund', arguments: { request: 'refund order 7' } },
    node_id: 'turn:0/tool:refund',
    agent_path: 'agent:approver/tool:refund',
  });
  assert.equal(
    (await checkpointer.list('hosted')).map((r) => [r.chain_name, r.node_id, r.status, r.step_type, r.agent_path]),
    [
      ['support', '__run_start__', 'completed', 'run_start', null],
      ['support', 'triage', 'completed', 'node', null],
      ['approver', 'turn:0/tool:refund', 'interrupted', 'hitl_pause', 'agent:approver/tool:refund'],
      ['support', 'agent', 'interrupted', 'hitl_pause', 'agent:approver/tool:refund'],
    ],
  );
  assert.equal(
    (await checkpointer.listPendingInterrupts()).map((p) => [p.chain_name, p.node_id]),
    [['approver', 'turn:0/tool:refund']],
  );

  const done = await chain.resume('hosted', { resumeValue: { approved: true } });
  assert.is(done.status, 'completed');
  assert.is(done.output, 'Dear customer: refund issued for refund order 7');
  assert.equal(Object.keys(done.node_results), ['agent', 'reply']);
  assert.is(counter.count('/agent-run'), 2, 'the hosting node re-ran once, on resume');
  assert.equal(
    (await checkpointer.list('hosted')).slice(4).map((r) => [r.chain_name, r.node_id, r.step_type]),
    [
      ['approver', 'turn:0/tool:refund', 'resume'],
      ['support', 'agent', 'node'],
      ['support', 'reply', 'node'],
      ['support', 'run_end', 'run_end'],
    ],
  );
});

area.run();
