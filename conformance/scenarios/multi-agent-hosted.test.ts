/**
 * A Chain node hosting a Swarm or a Supervisor: a member's (worker's) pause pauses the chain; the chain's resume
 * re-runs the node with the value bound, and the coordinator continues the paused member instead of starting over.
 */
import * as assert from 'uvu/assert';
import { Chain, type Checkpointer } from '../../src/index.js';
import { contentTeam, newProbe, planner, type Probe } from '../fixtures/multi-agent/team.js';
import { checkpointerFor, conformance } from '../harness/index.js';

const area = conformance('multi-agent: hosted in a chain');

function desk(checkpointer: Checkpointer, runner: ReturnType<typeof contentTeam> | ReturnType<typeof planner>): Chain {
  return new Chain('desk', { checkpointer })
    .addNode('team', runner, { outputKey: 'report' })
    .addNode('reply', (state) => ({ reply: `Done: ${String(state.report)}` }))
    .connect('team', 'reply');
}

area.scenario('a swarm paused inside a chain resumes with the chain', { rows: ['transition:swarm-resume', 'transition:paused->running'] }, async (t) => {
  const checkpointer = checkpointerFor(t.backend);
  t.defer(() => checkpointer.close());
  const first: Probe = newProbe();
  const paused = await desk(checkpointer, contentTeam(first, { analystTool: 'interrupt_analyze' })).run('Write the Q3 report', { executionId: 'hosted-swarm' });
  assert.is(paused.status, 'paused');
  assert.equal(paused.pending_interrupt!.agent_path, 'swarm:content_team/agent:analyst/tool:interrupt_analyze');

  const second: Probe = newProbe();
  const resumed = await desk(checkpointer, contentTeam(second, { analystTool: 'interrupt_analyze' })).resume('hosted-swarm', {
    resumeValue: { approved: true, metadata: { approver: 'erin' } },
  });
  assert.is(resumed.status, 'completed');
  assert.equal(resumed.final_state.reply, 'Done: Report complete.');
  assert.equal(second.approvals, [{ approved: true, metadata: { approver: 'erin' } }]);
  assert.equal(
    [second.models.researcher!.calls, second.models.analyst!.calls, second.models.reporter!.calls],
    [0, 1, 1],
    'the swarm continued; it did not start over',
  );
  const rows = await checkpointer.list('hosted-swarm');
  assert.equal(
    rows.filter((r) => r.agent_path === 'swarm:content_team').map((r) => r.node_id),
    ['handoff:0', 'handoff:1', 'handoff:2', 'run_end'],
  );
  assert.equal(
    rows.filter((r) => r.chain_name === 'desk').map((r) => [r.node_id, r.status]),
    [
      ['__run_start__', 'completed'],
      ['team', 'interrupted'],
      ['team', 'completed'],
      ['reply', 'completed'],
      ['run_end', 'completed'],
    ],
  );
});

area.scenario(
  'a supervisor paused inside a chain resumes with the chain; the finished worker runs once',
  { rows: ['transition:supervisor-resume', 'transition:paused->running'] },
  async (t) => {
    const checkpointer = checkpointerFor(t.backend);
    t.defer(() => checkpointer.close());
    const order = ['worker_a', 'worker_b'] as const;
    const first: Probe = newProbe();
    const paused = await desk(checkpointer, planner(first, { workerBTool: 'interrupt_step', order })).run('Prepare the Q3 report', {
      executionId: 'hosted-sup',
    });
    assert.is(paused.status, 'paused');
    assert.equal(paused.pending_interrupt!.agent_path, 'supervisor:planner/worker:worker_b/tool:interrupt_step');

    const second: Probe = newProbe();
    const resumed = await desk(checkpointer, planner(second, { workerBTool: 'interrupt_step', order })).resume('hosted-sup', {
      resumeValue: { approved: true, metadata: { approver: 'erin' } },
    });
    assert.is(resumed.status, 'completed');
    assert.equal(resumed.final_state.reply, 'Done: Final report ready.');
    assert.equal(second.approvals, [{ approved: true, metadata: { approver: 'erin' } }]);
    assert.equal([first.models.worker_a!.calls, second.models.worker_a!.calls, second.models.worker_b!.calls], [1, 0, 1]);
    assert.equal(second.tools, { interrupt_step: 1 });
    assert.equal(await checkpointer.listPendingInterrupts(), []);
  },
);

area.run();
