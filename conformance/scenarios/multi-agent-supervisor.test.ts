/**
 * Supervisor durability on SQLite and Postgres (reference e2e gate 8): a SIGKILL inside a worker and an interrupt
 * inside a worker, each resumed: the supervisor's model is asked again, the stopped worker resumes where it stopped,
 * and the other worker runs exactly once (counted on its model and tools).
 */
import * as assert from 'uvu/assert';
import path from 'node:path';
import { AlreadyResumed, ExecutionBusy, ChainResumeError, NotImplementedError, TraceStore, flushTraces } from '../../src/index.js';
import { newProbe, planner } from '../fixtures/multi-agent/team.js';
import { backendConfig, checkpointerFor, conformance, spawnNode } from '../harness/index.js';

const area = conformance('multi-agent: supervisor');

area.scenario(
  'SIGKILL inside worker_b; resume re-asks the supervisor, resumes worker_b at its tool, runs worker_a once',
  { rows: ['transition:supervisor-resume', 'transition:agent-resume-tool-crash'], timeoutMs: 60_000 },
  async (t) => {
    const args = JSON.stringify({ config: backendConfig(t.backend), executionId: 'sup-crash' });
    const child = spawnNode('conformance/fixtures/multi-agent/child.ts', ['supervisor-crash', args], {
      env: { AGENTKIT_LOCAL_DB: path.join(t.cwd, 'child-traces.db') },
    });
    t.defer(() => child.process.kill('SIGKILL'));
    await child.waitForLine((line) => line === 'started slow_step', 30_000);
    child.process.kill('SIGKILL');
    assert.is((await child.exit()).signal, 'SIGKILL');

    const checkpointer = checkpointerFor(t.backend);
    t.defer(() => checkpointer.close());
    const latest = await checkpointer.getLast('sup-crash');
    assert.is(latest!.agent_path, 'supervisor:planner/worker:worker_b/tool:slow_step');
    const before = await checkpointer.list('sup-crash');
    assert.not.ok(
      before.some((r) => r.agent_path?.startsWith('supervisor:planner/worker:worker_a')),
      'worker_a had not run',
    );

    const probe = newProbe();
    const traceDb = path.join(t.cwd, 'traces.db');
    const result = await planner(probe, { checkpointer }).resume('sup-crash', { traceDb });
    assert.is(result.status, 'completed');
    assert.is(result.output, 'Final report ready.');
    assert.equal(
      result.tool_calls.map((c) => [c.tool_name, c.output]),
      [
        ['delegate_to_worker_b', 'figures collected ({"total":42})'],
        ['delegate_to_worker_a', 'summary: 42 in total'],
      ],
    );
    // The supervisor's model is asked again from the start (3 turns); worker_b resumes at slow_step with no new model
    // call for that turn (1 call: its answer); step_one is not re-run; worker_a runs once.
    assert.equal([probe.models.planner!.calls, probe.models.worker_b!.calls, probe.models.worker_a!.calls], [3, 1, 1]);
    assert.equal(probe.tools, { slow_step: 1 });
    assert.equal(probe.models.planner!.requests[0]!.messages.find((m) => m.role === 'user')!.content, 'Prepare the Q3 report', 'the original input recovered');

    const rows = await checkpointer.list('sup-crash');
    assert.ok(
      rows.some((r) => r.agent_path === 'supervisor:planner/worker:worker_a'),
      'worker_a rows now exist',
    );
    assert.equal(
      rows.filter((r) => r.step_type === 'run_end').map((r) => [r.agent_path, r.run_status]),
      [
        ['supervisor:planner/worker:worker_b', 'completed'],
        ['supervisor:planner/worker:worker_a', 'completed'],
        ['supervisor:planner', 'completed'],
      ],
    );

    await flushTraces();
    const [span] = await new TraceStore({ dbPath: traceDb }).spans(result.trace_id!);
    assert.equal([span!.name, span!.attributes['supervisor.resumed_execution_id']], ['supervisor.planner', 'sup-crash']);

    try {
      await planner(newProbe(), { checkpointer }).resume('sup-crash', { trace: false });
      assert.unreachable('a finished supervisor resumed');
    } catch (error) {
      assert.instance(error, AlreadyResumed);
      assert.is((error as Error).message, "Supervisor 'planner' execution 'sup-crash' already finished (completed); there is nothing to resume");
    }
  },
);

area.scenario(
  'an interrupt inside worker_b pauses the supervisor; resume with the value completes; worker_a, done before, runs once',
  { rows: ['transition:supervisor-resume', 'transition:running->paused', 'transition:paused->running'] },
  async (t) => {
    const checkpointer = checkpointerFor(t.backend);
    t.defer(() => checkpointer.close());
    const order = ['worker_a', 'worker_b'] as const;
    const first = newProbe();
    const paused = await planner(first, { checkpointer, workerBTool: 'interrupt_step', order }).run('Prepare the Q3 report', {
      executionId: 'sup-pause',
      trace: false,
    });
    assert.is(paused.status, 'paused');
    assert.equal(paused.pending_interrupt, {
      reason: 'interrupt_step_approval',
      context: { item: 'figures' },
      node_id: 'turn:1/tool:interrupt_step',
      agent_path: 'supervisor:planner/worker:worker_b/tool:interrupt_step',
    });
    assert.equal([first.models.worker_a!.calls, first.tools.step_one, first.tools.interrupt_step], [1, 1, 1]);
    assert.equal(
      (await checkpointer.listPendingInterrupts()).map((p) => p.agent_path),
      ['supervisor:planner/worker:worker_b/tool:interrupt_step'],
    );
    assert.not.ok(
      (await checkpointer.list('sup-pause')).some((r) => r.agent_path === 'supervisor:planner' && r.step_type === 'run_end'),
      'no terminal row on a pause',
    );

    try {
      await planner(newProbe(), { checkpointer, workerBTool: 'interrupt_step', order }).resume('sup-pause', { trace: false });
      assert.unreachable('resumed a pause without a value');
    } catch (error) {
      assert.instance(error, ChainResumeError);
    }

    const second = newProbe();
    const resumed = await planner(second, { checkpointer, workerBTool: 'interrupt_step', order }).resume('sup-pause', {
      resumeValue: { approved: true, metadata: { approver: 'alice' } },
      trace: false,
    });
    assert.is(resumed.status, 'completed');
    assert.is(resumed.output, 'Final report ready.');
    assert.equal(
      resumed.tool_calls.map((c) => c.tool_name),
      ['delegate_to_worker_a', 'delegate_to_worker_b'],
    );
    assert.equal(second.approvals, [{ approved: true, metadata: { approver: 'alice' } }]);
    // worker_a answered from its record (its model is not called again); worker_b resumed at its paused tool.
    assert.equal([second.models.planner!.calls, second.models.worker_a!.calls, second.models.worker_b!.calls], [3, 0, 1]);
    assert.equal(second.tools, { interrupt_step: 1 });
    assert.equal(await checkpointer.listPendingInterrupts(), []);

    try {
      await planner(newProbe(), { checkpointer, workerBTool: 'interrupt_step', order }).resume('sup-pause', { resumeValue: { approved: true }, trace: false });
      assert.unreachable('resumed twice');
    } catch (error) {
      assert.instance(error, AlreadyResumed);
    }
  },
);

area.scenario(
  'concurrent resumers of a paused supervisor: one completes, the rest get ExecutionBusy or AlreadyResumed before asking the model',
  { rows: ['transition:paused-claimed', 'error:already-resumed'] },
  async (t) => {
    const checkpointer = checkpointerFor(t.backend);
    t.defer(() => checkpointer.close());
    await planner(newProbe(), { checkpointer, workerBTool: 'interrupt_step' }).run('Prepare the Q3 report', { executionId: 'sup-race', trace: false });
    const probes = Array.from({ length: 5 }, () => newProbe());
    const outcomes = await Promise.allSettled(
      probes.map((probe) =>
        planner(probe, { checkpointer, workerBTool: 'interrupt_step' }).resume('sup-race', { resumeValue: { approved: true }, trace: false }),
      ),
    );
    assert.equal(outcomes.filter((o) => o.status === 'fulfilled').length, 1);
    assert.ok(
      outcomes
        .filter((o) => o.status === 'rejected')
        .every((o) => [AlreadyResumed, ExecutionBusy].some((kind) => (o as PromiseRejectedResult).reason instanceof kind)),
    );
    assert.is(
      probes.reduce((n, p) => n + (p.tools.interrupt_step ?? 0), 0),
      1,
    );
    assert.is(
      probes.reduce((n, p) => n + p.models.planner!.calls, 0),
      3,
      'losers never asked the supervisor model',
    );
  },
);

area.scenario('Swarm and Supervisor fork are refused with NotImplementedError', { rows: [] }, async (t) => {
  const checkpointer = checkpointerFor(t.backend);
  t.defer(() => checkpointer.close());
  const supervisor = planner(newProbe(), { checkpointer });
  const done = await supervisor.run('Prepare the Q3 report', { trace: false });
  try {
    await supervisor.fork(done.execution_id);
    assert.unreachable();
  } catch (error) {
    assert.instance(error, NotImplementedError);
    assert.is((error as NotImplementedError).code, 'not_implemented');
    assert.match((error as Error).message, "supervisor 'planner' cannot be forked");
  }
});

area.run();
