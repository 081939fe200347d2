/**
 * Replay of the quickstart's refund that paused for approval and was resumed (issue 48, docs/adr/0059), on both
 * engines: the pause's and the resume's traces read as one sequence with the decision where it was applied; a fork
 * with a new prompt in recorded mode reaches the same decision without running the refund; a fork with a new input
 * in live mode with side effects allowed pauses again and says so.
 */
import * as assert from 'uvu/assert';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { conformance, startCli, type ScenarioContext } from '../harness/index.js';
import Type from 'typebox';
import { Agent, checkpointerFor, flushTraces, interrupt, Replay, ReplayError, tool } from '../../src/index.js';
import { FunctionModel } from '../../src/testing/index.js';

const area = conformance('replay: paused runs');
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const QUICKSTART = `${path.join(root, 'examples/quickstart-agent.ts')}:support`;

/** Serve the quickstart, ask for a refund (it pauses), stop the server; then approve it as alice from the CLI. */
async function approvedRefund(t: ScenarioContext): Promise<{ pause: string; resume: string; execution: string }> {
  const env = { ...t.env, OPENAI_API_KEY: undefined, ANTHROPIC_API_KEY: undefined } as Record<string, string | undefined>;
  const server = startCli(['agent', 'serve', QUICKSTART, '--host', '127.0.0.1', '--port', '0'], { cwd: t.cwd, env });
  t.defer(() => server.kill());
  const [, url] = await server.waitForStderr(/serving agent '[^']+' on (http:\/\/[^ ]+)/);
  const response = await fetch(`${url}/run`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ input: 'Please refund order 42 in full.' }),
  });
  const paused = (await response.json()) as { status: string; execution_id: string; trace_id: string };
  assert.is(paused.status, 'paused');
  server.child.kill('SIGTERM');
  assert.is((await server.exited).code, 0, server.stderr());
  const resumed = await t.bin([
    'resume',
    paused.execution_id,
    '--runner',
    QUICKSTART,
    '--value',
    '{"approved": true, "metadata": {"approver": "alice"}}',
    '--approver',
    'alice',
  ]);
  assert.is(resumed.code, 0, resumed.stderr);
  const replay = await Replay.load(paused.trace_id, { dbPath: t.store! });
  assert.is(replay.traceIds.length, 2, 'the pause and the resume');
  return { pause: paused.trace_id, resume: replay.traceIds[1]!, execution: paused.execution_id };
}

const SEQUENCE = [
  /^ {2}\[0\] agent\.support \(paused\)$/,
  /^ {2}\[1\] guardrail\.no_card_numbers$/,
  /^ {2}\[2\] llm\.chat_completion$/,
  /^ {2}\[3\] tool\.lookup_order$/,
  /^ {2}\[4\] llm\.chat_completion$/,
  /^ {2}\[5\] tool\.refund \(paused: refund_approval\)$/,
  /^ {2}\[6\] agent\.support \(resumed from trace [0-9a-f]{32}\)$/,
  /^ {2}\[7\] tool\.refund \(decision: approved by alice \(cli\) at \S+Z\)$/,
  /^ {2}\[8\] llm\.chat_completion$/,
];

area.scenario(
  'a paused-then-approved refund: one sequence with the decision; a recorded fork reaches the decision without the refund; a live fork pauses again',
  { rows: ['cli:replay show', 'cli:replay fork'], surfaces: ['cli'], timeoutMs: 120_000, storeEnv: true },
  async (t) => {
    const { pause, resume, execution } = await approvedRefund(t);

    // Either trace id (or the execution id) shows the execution's one numbered sequence, with the decision.
    for (const args of [[pause], [resume], ['--execution', execution]]) {
      const show = await t.cli(['replay', 'show', ...args]);
      assert.is(show.code, 0, show.stderr);
      const lines = show.stdout.split('\n');
      assert.ok(lines.includes(`Execution: ${execution}`), show.stdout);
      assert.ok(lines.includes(`Traces: ${pause}, ${resume}`), show.stdout);
      const steps = lines.slice(lines.indexOf('Steps:') + 1, -1);
      assert.is(steps.length, SEQUENCE.length, show.stdout);
      for (const [i, pattern] of SEQUENCE.entries()) assert.match(steps[i]!, pattern);
    }

    // Fork at the model step with a new prompt, recorded mode: the refund is answered from the trace (never run).
    const fork = await t.bin(['replay', 'fork', resume, '--step', '2', '--prompt', 'You are a polite support desk.', '--agent', QUICKSTART, '--json']);
    assert.is(fork.code, 0, fork.stderr);
    const report = JSON.parse(fork.stdout) as Record<string, unknown>;
    assert.equal(
      [report.status, report.original_output, report.new_output, report.diverged_at],
      ['completed', 'Done: refunded 50 USD on order 42, approved by alice.', 'Done: refunded 50 USD on order 42, approved by alice.', 2],
    );
    const text = await t.bin(['replay', 'fork', pause, '--step', '2', '--prompt', 'You are a polite support desk.', '--agent', QUICKSTART]);
    assert.match(text.stdout, /tool calls: 1 run, 1 answered from the trace, 0 overridden/);
    const none = await t.bin(['list-pending', '--json']);
    assert.is((JSON.parse(none.stdout) as unknown[]).length, 0, 'no refund ran, so none waits for approval');

    // A new input, live, side effects allowed: the refund runs, asks for approval, and the rerun pauses and says so.
    const live = await t.bin([
      'replay',
      'fork',
      pause,
      '--input',
      'Please refund order 1001 in full.',
      '--mode',
      'live',
      '--allow-side-effects',
      '--agent',
      QUICKSTART,
    ]);
    assert.is(live.code, 0, live.stderr);
    assert.match(live.stdout, /^status: paused \(refund_approval \{"order_id":"1001","amount":1200\}\); execution_id: \S+$/m);
    const waiting = await t.bin(['list-pending', '--json']);
    assert.is((JSON.parse(waiting.stdout) as unknown[]).length, 1, "the rerun's pause waits for a person");
  },
);

area.scenario(
  'replay fork exit codes follow docs/replay.md: unknown trace 1, step out of range 2, no recorded call 2, a tool not rebound 2, unknown execution 1',
  { rows: ['cli:replay fork'], surfaces: ['cli'], timeoutMs: 120_000, storeEnv: true },
  async (t) => {
    const { pause } = await approvedRefund(t);
    const unknown = await t.cli(['replay', 'fork', 'feedfeedfeedfeedfeedfeedfeedfeed']);
    assert.equal([unknown.code, unknown.stdout], [1, '']);
    assert.match(unknown.stderr, /^error: trace id 'feedfeedfeedfeedfeedfeedfeedfeed' not found in .*\n$/);
    assert.equal(await t.cli(['replay', 'fork', pause, '--step', '9']), { code: 2, stdout: '', stderr: 'error: Step 9 out of range (0-8)\n' });
    const refused = await t.bin(['replay', 'fork', pause, '--input', 'Please refund order 1001 in full.', '--agent', QUICKSTART]);
    assert.is(refused.code, 2, refused.stdout);
    assert.match(refused.stderr, /^error: rerun stopped: tool 'refund' is side_effecting and the trace has no recorded call with these arguments/);
    const noAgent = await t.bin(['replay', 'fork', pause, '--input', 'Please refund order 1001 in full.', '--mode', 'live', '--allow-side-effects']);
    assert.is(noAgent.code, 2, noAgent.stdout);
    assert.match(
      noAgent.stderr,
      /^error: cannot rerun agent 'support': tool 'lookup_order' cannot be rebound \(no tool of that name is registered\) and would have to run/,
    );
    const noExecution = await t.cli(['replay', 'show', '--execution', 'no-such-execution']);
    assert.equal([noExecution.code, noExecution.stdout], [1, '']);
    assert.match(noExecution.stderr, /^error: Execution 'no-such-execution' has no trace in .*\n$/);
  },
);

area.scenario(
  'replay fork: a live call whose model cannot be rebuilt is exit 2; a rerun that must pause with no checkpointer is a ReplayError',
  { rows: ['cli:replay fork'], surfaces: ['cli'], timeoutMs: 90_000, storeEnv: true },
  async (t) => {
    // An agent defined in code (its function model cannot be rebuilt from the trace), recorded in the variant's store.
    const greeter = new Agent({ name: 'greeter', systemPrompt: 'Greet.', llm: new FunctionModel(() => 'Hello.'), traceDb: t.store! });
    const greeted = await greeter.run('Hi');
    // The CLI is another process: the trace must be in the store before it reads it.
    await flushTraces();
    const live = await t.bin(['replay', 'fork', greeted.trace_id!, '--prompt', 'Greet warmly.']);
    assert.equal([live.code, live.stdout], [2, '']);
    assert.match(live.stderr, /^error: agent 'greeter' needs a live model call but its 'function' model cannot be rebuilt from the trace/);

    // A run still paused, rerun with no registered agent (so no checkpointer): the rerun must pause and cannot.
    const checkpointer = checkpointerFor(t.store!);
    t.defer(() => checkpointer.close());
    const approve = tool({
      name: 'approve_payout',
      replayClass: 'side_effecting',
      parameters: Type.Object({ amount: Type.Number() }),
      execute: ({ amount }) => (interrupt('payout_approval', { amount }).approved ? 'paid' : 'declined'),
    });
    const model = new FunctionModel((messages) =>
      messages.at(-1)!.role === 'user' ? { toolCalls: [{ name: 'approve_payout', arguments: { amount: 7 } }] } : 'Done.',
    );
    const payouts = new Agent({ name: 'payouts', systemPrompt: 'Pay.', llm: model, tools: [approve], checkpointer, traceDb: t.store! });
    const paused = await payouts.run('Pay 7');
    assert.is(paused.status, 'paused');
    const replay = await Replay.load(paused.trace_id!, { dbPath: t.store! });
    t.defer(() => replay.store.close());
    const refused = await replay
      .forkAt(0)
      .rerun({ llm: model })
      .then(
        () => null,
        (error: unknown) => error,
      );
    assert.ok(refused instanceof ReplayError, String(refused));
    assert.match((refused as Error).message, /^cannot rerun agent 'payouts' as asked: the rerun pauses for a decision/);
    // With the agent (and so its checkpointer) the same rerun pauses and says so.
    const again = await replay.forkAt(0).rerun({ agent: payouts });
    assert.equal([again.status, again.pending_interrupt?.reason, again.pending_interrupt?.context], ['paused', 'payout_approval', { amount: 7 }]);
  },
);

area.scenario(
  'replay: two interrupts of one execution are answered in order with the recorded decisions (recorded mode, side effects allowed)',
  { rows: ['cli:replay fork'], surfaces: ['cli'], timeoutMs: 90_000, storeEnv: true },
  async (t) => {
    const checkpointer = checkpointerFor(t.store!);
    t.defer(() => checkpointer.close());
    const paid: number[] = [];
    const payout = tool({
      name: 'pay_out',
      replayClass: 'side_effecting',
      parameters: Type.Object({ amount: Type.Number() }),
      execute: ({ amount }) => {
        if (!interrupt('payout_approval', { amount }).approved) return `declined ${amount}`;
        paid.push(amount);
        return `paid ${amount}`;
      },
    });
    // Two payouts, one per turn: each pauses for its own decision.
    const model = new FunctionModel((messages) => {
      const done = messages.filter((m) => m.role === 'tool').map((m) => m.content);
      if (done.length === 0) return { toolCalls: [{ name: 'pay_out', arguments: { amount: 7 } }] };
      if (done.length === 1) return { toolCalls: [{ name: 'pay_out', arguments: { amount: 9 } }] };
      return done.join(', ');
    });
    const desk = new Agent({ name: 'payout_desk', systemPrompt: 'Pay.', llm: model, tools: [payout], checkpointer, traceDb: t.store! });
    const first = await desk.run('Pay 7 then 9');
    assert.is(first.status, 'paused');
    const second = await desk.resume(first.execution_id, { resumeValue: { approved: true }, approver: 'ann' });
    assert.is(second.status, 'paused');
    const done = await desk.resume(first.execution_id, { resumeValue: { approved: false }, approver: 'bo' });
    assert.equal([done.status, done.output], ['completed', 'paid 7, declined 9']);
    assert.equal(paid, [7]);

    const replay = await Replay.load(done.trace_id!, { dbPath: t.store! });
    t.defer(() => replay.store.close());
    assert.is(replay.traceIds.length, 3, 'the run and its two resumes');
    assert.match(replay.summary(), /tool\.pay_out \(decision: approved by ann \(sdk\)[^\n]*\n[\s\S]*tool\.pay_out \(decision: declined by bo \(sdk\)/);
    const rerun = await replay.forkAt(0).withDeterminism('recorded', { allowSideEffects: true }).rerun({ agent: desk });
    assert.equal([rerun.status, rerun.new_output], ['completed', 'paid 7, declined 9']);
    assert.equal(paid, [7, 7], 'the tool ran for real, answered by the recorded decisions in order');
    const live = await replay.forkAt(0).withDeterminism('live', { allowSideEffects: true }).rerun({ agent: desk });
    assert.equal([live.status, live.pending_interrupt?.context], ['paused', { amount: 7 }]);
  },
);

area.run();
