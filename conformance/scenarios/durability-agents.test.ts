/**
 * The durable Agent on SQLite and Postgres: the three resume shapes (tool-boundary and turn-boundary crashes with a
 * real SIGKILL, a pause in a tool resumed from another process), concurrent resumers, sibling tool calls of a paused
 * turn, a failed run resumed from its last real checkpoint, and the row shapes an agent writes. The model is a
 * deterministic FunctionModel that counts and records every request.
 */
import * as assert from 'uvu/assert';
import { AlreadyResumed, ChainResumeError, NOT_RUN_NOTE, toolMessageImbalance, type AgentResult } from '../../src/index.js';
import { ScriptedModel, type Turn } from '../../src/testing/index.js';
import Type from 'typebox';
import { Agent, idempotent, interrupt, tool } from '../../src/index.js';
import { approverAgent, payAgent } from '../fixtures/durability/agents.js';
import { backendConfig, checkpointerFor, conformance, spawnNode, startCounterServer } from '../harness/index.js';

const area = conformance('durability: agents');
const child = 'conformance/fixtures/durability/agent-child.ts';

const paySystem = { role: 'system', content: 'You pay.' };
const payUser = { role: 'user', content: 'pay 100' };
const payCall = { role: 'assistant', content: null, tool_calls: [{ id: 'call_pay', name: 'slow_paid', arguments: { amount: 100 } }] };
const payResult = { role: 'tool', tool_call_id: 'call_pay', name: 'slow_paid', content: 'paid 100' };

area.scenario(
  'SIGKILL inside a tool: resume re-runs the tool with its saved arguments and does not call the model for that turn',
  { rows: ['transition:agent-resume-tool-crash'], timeoutMs: 60_000 },
  async (t) => {
    const proc = spawnNode(child, ['crash-tool', JSON.stringify({ config: backendConfig(t.backend), executionId: 'agent-crash-tool' })]);
    t.defer(() => proc.process.kill('SIGKILL'));
    await proc.waitForLine((line) => line === 'started slow_paid', 30_000);
    proc.process.kill('SIGKILL');
    assert.is((await proc.exit()).signal, 'SIGKILL');

    const counter = await startCounterServer();
    const checkpointer = checkpointerFor(t.backend);
    t.defer(() => counter.close());
    t.defer(() => checkpointer.close());
    const before = await checkpointer.list('agent-crash-tool');
    assert.equal(
      before.map((r) => [r.chain_name, r.node_id, r.step_type, r.status, r.agent_path]),
      [
        ['payer', 'turn:0', 'llm_call', 'completed', 'agent:payer'],
        ['payer', 'turn:0/tool:slow_paid', 'tool_call', 'completed', 'agent:payer/tool:slow_paid'],
      ],
    );
    assert.equal(before[0]!.state_snapshot, { messages: [paySystem, payUser], turn: 0 });
    assert.equal(before[1]!.state_snapshot, { messages: [paySystem, payUser, payCall], turn: 0, tool_name: 'slow_paid', tool_call_id: 'call_pay' });
    assert.equal(before[1]!.node_input, { amount: 100 });

    const { agent, model } = payAgent(checkpointer, { counterUrl: counter.url });
    const result = await agent.resume('agent-crash-tool');
    assert.is(result.status, 'completed');
    assert.is(result.output, 'Done — paid $100.');
    assert.is(result.execution_id, 'agent-crash-tool');
    assert.equal(result.tool_calls, [{ iteration: 0, tool_name: 'slow_paid', arguments: { amount: 100 }, tool_call_id: 'call_pay', output: 'paid 100' }]);
    assert.is(counter.count('/paid/100'), 1, 'the tool ran once, with the saved arguments');
    assert.is(model.calls, 1, 'only turn 1: turn 0 was not asked again');
    assert.equal(model.received[0], [paySystem, payUser, payCall, payResult]);
    const after = await checkpointer.list('agent-crash-tool');
    assert.equal(
      after.map((r) => [r.node_id, r.step_type, r.run_status]),
      [
        ['turn:0', 'llm_call', null],
        ['turn:0/tool:slow_paid', 'tool_call', null],
        ['turn:0/tool:slow_paid', 'tool_call', null],
        ['turn:1', 'llm_call', null],
        ['run_end', 'run_end', 'completed'],
      ],
    );
    assert.is(after[4]!.agent_path, 'agent:payer');
    try {
      await agent.resume('agent-crash-tool');
      assert.unreachable();
    } catch (error) {
      assert.instance(error, AlreadyResumed);
      assert.is(
        (error as Error).message,
        "Agent execution 'agent-crash-tool' already finished (completed); there is nothing to resume. Use fork() to run it again from one of its checkpoints.",
      );
    }
  },
);

area.scenario(
  'SIGKILL in a model call: resume re-issues that call once and does not re-run the turn before',
  { rows: ['transition:agent-resume-turn-crash'], timeoutMs: 60_000 },
  async (t) => {
    const counter = await startCounterServer();
    t.defer(() => counter.close());
    const proc = spawnNode(child, [
      'crash-model',
      JSON.stringify({ config: backendConfig(t.backend), executionId: 'agent-crash-turn', counterUrl: counter.url }),
    ]);
    t.defer(() => proc.process.kill('SIGKILL'));
    await proc.waitForLine((line) => line === 'model turn 1', 30_000);
    proc.process.kill('SIGKILL');
    assert.is((await proc.exit()).signal, 'SIGKILL');
    assert.is(counter.count('/paid/100'), 1);

    const checkpointer = checkpointerFor(t.backend);
    t.defer(() => checkpointer.close());
    const before = await checkpointer.list('agent-crash-turn');
    assert.equal(
      before.map((r) => r.node_id),
      ['turn:0', 'turn:0/tool:slow_paid', 'turn:1'],
    );
    assert.equal(before[2]!.state_snapshot, { messages: [paySystem, payUser, payCall, payResult], turn: 1 });

    const { agent, model } = payAgent(checkpointer, { counterUrl: counter.url });
    const result = await agent.resume('agent-crash-turn');
    assert.equal([result.status, result.output], ['completed', 'Done — paid $100.']);
    // The whole execution's calls, rebuilt from the saved history: the call made before the crash is listed (it did not run again).
    assert.equal(result.tool_calls, [{ iteration: 0, tool_name: 'slow_paid', arguments: { amount: 100 }, tool_call_id: 'call_pay', output: 'paid 100' }]);
    assert.is(model.calls, 1, 'the interrupted model call, re-issued once');
    assert.equal(model.received[0], [paySystem, payUser, payCall, payResult]);
    assert.is(counter.count('/paid/100'), 1, 'the tool of turn 0 did not run again');
    assert.equal(
      (await checkpointer.list('agent-crash-turn')).map((r) => r.node_id),
      ['turn:0', 'turn:0/tool:slow_paid', 'turn:1', 'turn:1', 'run_end'],
    );
  },
);

area.scenario(
  'a tool pauses in process A; a fresh Agent in process B resumes it; a second resume is AlreadyResumed',
  {
    rows: [
      'transition:running->paused',
      'transition:agent-resume-interrupted',
      'transition:paused->running',
      'transition:completed-resume',
      'error:already-resumed',
      'error:interrupt-signal',
    ],
    timeoutMs: 60_000,
  },
  async (t) => {
    const counter = await startCounterServer();
    t.defer(() => counter.close());
    const config = backendConfig(t.backend);
    const a = spawnNode(child, ['pause', JSON.stringify({ config, counterUrl: counter.url })]);
    t.defer(() => a.process.kill('SIGKILL'));
    const paused = JSON.parse(await a.waitForLine((line) => line.startsWith('{'))) as AgentResult;
    assert.is((await a.exit()).code, 0, a.stderr());
    assert.equal([paused.status, paused.output], ['paused', '']);
    assert.equal(paused.pending_interrupt, {
      reason: 'refund_approval',
      context: { amount: 250 },
      node_id: 'turn:0/tool:refund',
      agent_path: 'agent:approver/tool:refund',
    });

    const checkpointer = checkpointerFor(t.backend);
    t.defer(() => checkpointer.close());
    const pending = await checkpointer.listPendingInterrupts();
    assert.equal(
      pending.map((p) => [p.execution_id, p.chain_name, p.node_id, p.reason, p.context, p.agent_path]),
      [[paused.execution_id, 'approver', 'turn:0/tool:refund', 'refund_approval', { amount: 250 }, 'agent:approver/tool:refund']],
    );
    const interrupted = (await checkpointer.getLast(paused.execution_id))!;
    assert.equal(
      [interrupted.node_id, interrupted.status, interrupted.step_type, interrupted.interrupt_reason, interrupted.node_input],
      ['turn:0/tool:refund', 'interrupted', 'hitl_pause', 'refund_approval', { amount: 250 }],
    );
    try {
      await approverAgent(checkpointer).agent.resume(paused.execution_id);
      assert.unreachable();
    } catch (error) {
      assert.instance(error, ChainResumeError);
      assert.is(
        (error as Error).message,
        `Agent execution '${paused.execution_id}' is paused at 'turn:0/tool:refund' (refund_approval); pass resumeValue ({ approved, metadata }) to resume it`,
      );
    }

    const b = spawnNode(child, ['resume', JSON.stringify({ config, executionId: paused.execution_id, counterUrl: counter.url })]);
    t.defer(() => b.process.kill('SIGKILL'));
    const resumed = JSON.parse(await b.waitForLine((line) => line.startsWith('{'))) as AgentResult;
    assert.is((await b.exit()).code, 0, b.stderr());
    assert.equal(
      [resumed.status, resumed.output, resumed.execution_id, resumed.pending_interrupt],
      ['completed', 'Result: refunded 250 (approved by bob)', paused.execution_id, null],
    );
    assert.equal(await checkpointer.listPendingInterrupts(), []);
    assert.equal([counter.count('/refund-attempt'), counter.count('/refund')], [2, 1], 'the tool ran again on resume; the refund happened once');
    assert.equal(
      (await checkpointer.list(paused.execution_id)).map((r) => [r.node_id, r.status]),
      [
        ['turn:0', 'completed'],
        ['turn:0/tool:refund', 'completed'],
        ['turn:0/tool:refund', 'interrupted'],
        ['turn:0/tool:refund', 'completed'],
        ['turn:1', 'completed'],
        ['run_end', 'completed'],
      ],
    );
    for (const options of [{ resumeValue: { approved: true } }, {}]) {
      try {
        await approverAgent(checkpointer).agent.resume(paused.execution_id, options);
        assert.unreachable();
      } catch (error) {
        assert.instance(error, AlreadyResumed);
      }
    }
  },
);

area.scenario(
  '5 processes resume one paused agent at once: one completes, four get ExecutionBusy or AlreadyResumed, one refund',
  { rows: ['transition:paused-claimed', 'error:already-resumed'], timeoutMs: 180_000 },
  async (t) => {
    const counter = await startCounterServer();
    const checkpointer = checkpointerFor(t.backend);
    t.defer(() => counter.close());
    t.defer(() => checkpointer.close());
    const paused = await approverAgent(checkpointer, { counterUrl: counter.url }).agent.run('refund 40', { executionId: 'agent-race' });
    assert.is(paused.status, 'paused');
    const args = JSON.stringify({ config: backendConfig(t.backend), executionId: 'agent-race', counterUrl: counter.url });
    const racers = Array.from({ length: 5 }, () => spawnNode(child, ['race', args]));
    for (const racer of racers) t.defer(() => racer.process.kill('SIGKILL'));
    await Promise.all(racers.map((r) => r.waitForLine((line) => line === 'ready', 120_000)));
    for (const racer of racers) racer.process.stdin.write('go\n');
    const outcomes = await Promise.all(
      racers.map(async (r) => (JSON.parse(await r.waitForLine((line) => line.startsWith('{'), 30_000)) as { outcome: string }).outcome),
    );
    assert.is(outcomes.filter((o) => o === 'completed').length, 1, outcomes.join());
    assert.ok(
      outcomes.every((o) => ['completed', 'AlreadyResumed', 'ExecutionBusy'].includes(o)),
      outcomes.join(),
    );
    assert.is(counter.count('/refund'), 1);
    const rows = await checkpointer.list('agent-race');
    assert.equal(rows.filter((r) => r.node_id === 'run_end').length, 1);
  },
);

area.scenario(
  'a turn with two tool calls whose first pauses: the second never runs and the resumed history is balanced',
  { rows: ['transition:agent-resume-interrupted'] },
  async (t) => {
    const checkpointer = checkpointerFor(t.backend);
    t.defer(() => checkpointer.close());
    let notified = 0;
    const build = (llm: ScriptedModel) => {
      const approve = tool({
        name: 'approve',
        description: 'Ask a manager',
        parameters: Type.Object({ amount: Type.Number() }),
        registry: false,
        execute: ({ amount }) => `${interrupt('approval', { amount }).approved ? 'approved' : 'rejected'} ${amount}`,
      });
      const notify = tool({
        name: 'notify',
        description: 'Tell the customer',
        parameters: Type.Object({ text: Type.String() }),
        registry: false,
        execute: ({ text }) => {
          notified += 1;
          return `sent ${text}`;
        },
      });
      return new Agent({ name: 'two-calls', llm, tools: [approve, notify], checkpointer, trace: false });
    };
    const turn0: Turn = {
      toolCalls: [
        { id: 'call_a', name: 'approve', arguments: { amount: 5 } },
        { id: 'call_b', name: 'notify', arguments: { text: 'hi' } },
      ],
    };
    const first = await build(new ScriptedModel([turn0])).run('refund 5', { executionId: 'two-calls' });
    assert.equal([first.status, first.pending_interrupt?.node_id], ['paused', 'turn:0/tool:approve']);
    assert.is(notified, 0);

    const model = new ScriptedModel(['All done.']);
    const result = await build(model).resume('two-calls', { resumeValue: { approved: true } });
    assert.equal([result.status, result.output], ['completed', 'All done.']);
    assert.is(notified, 0, 'the sibling call was not dispatched');
    assert.is(model.calls, 1);
    assert.equal(model.received[0], [
      { role: 'user', content: 'refund 5' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_a', name: 'approve', arguments: { amount: 5 } },
          { id: 'call_b', name: 'notify', arguments: { text: 'hi' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_a', name: 'approve', content: 'approved 5' },
      { role: 'tool', tool_call_id: 'call_b', name: 'notify', content: `[no result: ${NOT_RUN_NOTE}]`, is_error: true },
    ]);
    assert.equal(toolMessageImbalance(model.received[0]!), []);
    assert.equal(
      result.tool_calls.map((c) => c.tool_call_id),
      ['call_a'],
    );
  },
);

area.scenario(
  'a paused endsRun tool ends the run when the resume re-invokes it; the model is not asked again',
  { rows: ['transition:agent-resume-interrupted'] },
  async (t) => {
    const checkpointer = checkpointerFor(t.backend);
    t.defer(() => checkpointer.close());
    const build = (llm: ScriptedModel) => {
      const escalate = tool({
        name: 'escalate',
        description: 'Hand the case to a person, with their consent',
        parameters: Type.Object({ team: Type.String() }),
        registry: false,
        endsRun: true,
        execute: ({ team }) => (interrupt('escalation', { team }).approved ? `escalated to ${team}` : `${team} declined`),
      });
      return new Agent({ name: 'ender', llm, tools: [escalate], checkpointer, trace: false });
    };
    const first = await build(new ScriptedModel([{ toolCalls: [{ id: 'call_e', name: 'escalate', arguments: { team: 'billing' } }] }])).run('help', {
      executionId: 'ends-run',
    });
    assert.equal([first.status, first.pending_interrupt?.node_id], ['paused', 'turn:0/tool:escalate']);

    const model = new ScriptedModel([]);
    const result = await build(model).resume('ends-run', { resumeValue: { approved: true } });
    assert.equal([result.status, result.output], ['completed', 'escalated to billing']);
    assert.is(model.calls, 0, 'the run ended with the tool, as it would have without the pause');
    const rows = await checkpointer.list('ends-run');
    assert.equal(rows.map((r) => [r.node_id, r.status]).slice(-1), [['run_end', 'completed']]);
  },
);

area.scenario(
  'a run that failed in a tool resumes from its last real checkpoint; the re-invoked tool may pause, and that pause resumes',
  { rows: ['transition:running->failed', 'transition:failed->running', 'transition:agent-resume-tool-crash'] },
  async (t) => {
    const checkpointer = checkpointerFor(t.backend);
    t.defer(() => checkpointer.close());
    const controller = new AbortController();
    const lost = tool({
      name: 'refund',
      description: 'Refund (the worker is lost on the first try)',
      parameters: Type.Object({ amount: Type.Number() }),
      registry: false,
      execute: () => {
        controller.abort(new Error('worker lost'));
        throw new Error('aborted');
      },
    });
    const failing = new Agent({
      name: 'approver',
      systemPrompt: 'You refund.',
      llm: new ScriptedModel([{ toolCalls: [{ id: 'call_refund', name: 'refund', arguments: { amount: 250 } }] }]),
      tools: [lost],
      checkpointer,
      trace: false,
    });
    try {
      await failing.run('refund 250', { executionId: 'agent-failed', signal: controller.signal });
      assert.unreachable();
    } catch (error) {
      assert.is((error as Error).message, 'worker lost');
    }
    const failedRows = await checkpointer.list('agent-failed');
    assert.equal(
      failedRows.map((r) => [r.node_id, r.status, r.run_status]),
      [
        ['turn:0', 'completed', null],
        ['turn:0/tool:refund', 'completed', null],
        ['run_end', 'failed', 'failed'],
      ],
    );
    assert.equal(failedRows[2]!.node_output, { error: 'Error: worker lost' });

    const { agent, model } = approverAgent(checkpointer);
    const paused = await agent.resume('agent-failed');
    assert.equal(
      [paused.status, paused.pending_interrupt],
      ['paused', { reason: 'refund_approval', context: { amount: 250 }, node_id: 'turn:0/tool:refund', agent_path: 'agent:approver/tool:refund' }],
    );
    assert.is(model.calls, 0, 'the tool was re-invoked without asking the model');
    const done = await agent.resume('agent-failed', { resumeValue: { approved: true, metadata: { approver: 'carol' } } });
    assert.equal([done.status, done.output], ['completed', 'Result: refunded 250 (approved by carol)']);
    assert.equal(
      (await checkpointer.list('agent-failed')).map((r) => [r.node_id, r.status]),
      [
        ['turn:0', 'completed'],
        ['turn:0/tool:refund', 'completed'],
        ['run_end', 'failed'],
        ['turn:0/tool:refund', 'completed'],
        ['turn:0/tool:refund', 'interrupted'],
        ['turn:0/tool:refund', 'completed'],
        ['turn:1', 'completed'],
        ['run_end', 'completed'],
      ],
    );
  },
);

area.scenario('stream() of a pausing agent yields one paused event before done', { rows: ['transition:running->paused'] }, async (t) => {
  const checkpointer = checkpointerFor(t.backend);
  t.defer(() => checkpointer.close());
  const events: string[] = [];
  let done: AgentResult | undefined;
  for await (const event of approverAgent(checkpointer).agent.stream('refund 9', { executionId: 'agent-stream' })) {
    events.push(event.type === 'paused' ? `paused:${event.reason}:${event.executionId}:${JSON.stringify(event.context)}` : event.type);
    if (event.type === 'done') done = event.result;
  }
  assert.equal(
    events.filter((e) => e !== 'usage'),
    ['tool_call_start', 'tool_call_end', 'paused:refund_approval:agent-stream:{"amount":9}', 'done'],
  );
  assert.is(done?.status, 'paused');
});

area.scenario(
  'idempotent inside an agent tool: the side effect before the pause is not repeated when the tool re-runs',
  { rows: ['transition:agent-resume-interrupted'] },
  async (t) => {
    const counter = await startCounterServer();
    const checkpointer = checkpointerFor(t.backend);
    t.defer(() => counter.close());
    t.defer(() => checkpointer.close());
    const hold = idempotent(async function placeHold(amount: number) {
      const response = await fetch(`${counter.url}/hold`, { method: 'POST' });
      return { hold_id: `hold_${((await response.json()) as { count: number }).count}`, amount };
    });
    const build = (llm: ScriptedModel) => {
      const refund = tool({
        name: 'refund',
        description: 'Hold, then refund once approved',
        parameters: Type.Object({ amount: Type.Number() }),
        registry: false,
        execute: async ({ amount }) => {
          const { hold_id } = await hold(amount);
          const decision = interrupt('refund_approval', { amount, hold_id });
          return `${decision.approved ? 'refunded' : 'released'} ${hold_id}`;
        },
      });
      return new Agent({ name: 'holder', llm, tools: [refund], checkpointer, trace: false });
    };
    const paused = await build(new ScriptedModel([{ toolCalls: [{ id: 'call_r', name: 'refund', arguments: { amount: 80 } }] }])).run('refund 80', {
      executionId: 'agent-idem',
    });
    assert.equal(paused.pending_interrupt?.context, { amount: 80, hold_id: 'hold_1' });
    const model = new ScriptedModel(['ok']);
    const done = await build(model).resume('agent-idem', { resumeValue: { approved: true } });
    assert.equal([done.status, done.output], ['completed', 'ok']);
    assert.is(counter.count('/hold'), 1, 'the hold was served from the idempotency record of this execution');
    assert.equal(model.received[0]!.at(-1), { role: 'tool', tool_call_id: 'call_r', name: 'refund', content: 'refunded hold_1' });
  },
);

area.run();
