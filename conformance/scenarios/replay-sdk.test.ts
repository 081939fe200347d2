/**
 * Agent Replay through the SDK on a real local store: load, steps, inspect, fork, safe rerun (recorded and live),
 * compare, save as test, and every replay error of the spec's table, on a local.db file and on a Postgres schema.
 */
import * as assert from 'uvu/assert';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import Type from 'typebox';
import { conformance, type ScenarioContext } from '../harness/index.js';
import {
  Agent,
  Chain,
  exportTrace,
  NotImplementedError,
  Replay,
  ReplayError,
  Swarm,
  tool,
  ToolRegistry,
  TraceStore,
  withTraceDestination,
} from '../../src/index.js';
import { FunctionModel, ScriptedModel } from '../../src/testing/index.js';
import { makeDesk, deskModel } from '../fixtures/replay/desk.js';

const area = conformance('replay: SDK');

/** The variant's store as one value: the local.db file or the Postgres URL with its schema. */
function dbOf(t: ScenarioContext): string {
  if (t.store === undefined) throw new Error('replay scenarios need a store');
  return t.store;
}

async function rejects(work: () => Promise<unknown>): Promise<Error> {
  try {
    await work();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a rejection');
}

function throws(work: () => unknown): Error {
  try {
    work();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected an error');
}

async function withEnv<T>(vars: Record<string, string>, fn: () => Promise<T>): Promise<T> {
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  Object.assign(process.env, vars);
  try {
    return await fn();
  } finally {
    for (const [k, v] of Object.entries(saved))
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
  }
}

const DESK_STEPS = ['agent.desk', 'llm.chat_completion', 'tool.lookup_order', 'llm.chat_completion', 'tool.refund', 'llm.chat_completion'];

area.scenario('load: steps in start order, input/output split and decoded, summary, stepThrough, inspect', {}, async (t) => {
  const desk = makeDesk(dbOf(t));
  const original = await desk.agent.run('Please refund order 42.');
  const replay = await Replay.load(original.trace_id!, { dbPath: dbOf(t) });
  const steps = replay.steps();
  assert.equal(
    steps.map((s) => [s.step, s.span_name]),
    DESK_STEPS.map((name, i) => [i, name]),
  );
  assert.is(steps[0]!.input['agent.input'], 'Please refund order 42.');
  assert.is(steps[0]!.output['agent.output'], 'Done: refunded 50 USD on order 42.');
  assert.equal(steps[2]!.input['tool.args'], { order_id: '42' }, 'JSON strings are decoded');
  assert.equal(steps[2]!.output['tool.result'], { order_id: '42', total: 50 });
  assert.ok(Array.isArray(steps[1]!.input['gen_ai.request.messages']));
  assert.is(typeof steps[0]!.attributes['agent.config'], 'string', 'attributes are kept as recorded');
  assert.is(steps[4]!.attributes['agentkit.tool.replay_class'], 'side_effecting');
  assert.is(steps[3]!.timestamp, (await new TraceStore({ dbPath: dbOf(t) }).spans(original.trace_id!))[3]!.start_time);

  const summary = replay.summary().split('\n');
  assert.equal(summary.slice(0, 4), [`Trace: ${original.trace_id}`, 'Name: agent.desk', 'Status: OK', 'Spans: 6']);
  assert.match(summary[4]!, /^Duration: \S+Z → \S+Z$/);
  assert.equal(summary.slice(5), ['', 'Steps:', ...DESK_STEPS.map((name, i) => `  [${i}] ${name}`)]);

  const walked: string[] = [];
  for await (const step of replay.stepThrough()) walked.push(step.span_name);
  assert.equal(walked, DESK_STEPS);
  assert.equal(replay.inspect(4), steps[4]);

  // The same trace from a trace object: the `traces export` shape and the export-trace document.
  const store = new TraceStore({ dbPath: dbOf(t) });
  assert.equal(new Replay(await store.getTrace(original.trace_id!)).steps(), steps);
  const fromDocument = new Replay(await exportTrace(store, original.trace_id!)).steps();
  assert.equal(
    fromDocument.map((s) => [s.span_name, s.input, s.output]),
    steps.map((s) => [s.span_name, s.input, s.output]),
  );
});

area.scenario(
  'step out of range (inspect, forkAt, negative); modifyState; fromPlatform; unknown trace',
  { rows: ['error:replay-step-range', 'error:modify-state'] },
  async (t) => {
    const desk = makeDesk(dbOf(t));
    const original = await desk.agent.run('Where is order 42?');
    const replay = await Replay.load(original.trace_id!, { dbPath: dbOf(t) });
    assert.is(replay.length, 4);
    for (const [work, n] of [
      [() => replay.inspect(4), 4],
      [() => replay.inspect(-1), -1],
      [() => replay.forkAt(99), 99],
      [() => replay.forkAt(-3), -3],
    ] as const) {
      const error = throws(work);
      assert.instance(error, ReplayError);
      assert.is(error.message, `Step ${n} out of range (0-3)`);
      assert.is((error as ReplayError).code, 'replay_error');
    }
    const state = throws(() => replay.forkAt(0).modifyState({ x: 1 }));
    assert.instance(state, NotImplementedError);
    assert.match(state.message, /chain\.fork/);
    const platform = await rejects(() => Replay.fromPlatform(original.trace_id!));
    assert.instance(platform, ReplayError);
    assert.match(platform.message, /needs connected mode/);
    const missing = await rejects(() => Replay.load('0123456789abcdef0123456789abcdef', { dbPath: dbOf(t) }));
    assert.is((missing as ReplayError).code, 'trace_not_found');
    assert.match(missing.message, /trace '0123456789abcdef0123456789abcdef' not found/);
  },
);

area.scenario('recorded mode: an unchanged rerun calls no model, repeats no side effect, makes a new identical trace', {}, async (t) => {
  const desk = makeDesk(dbOf(t));
  const original = await desk.agent.run('Please refund order 42.');
  assert.equal(desk.executed, { lookup_order: ['42'], refund: ['42'] });
  const replay = await Replay.load(original.trace_id!, { dbPath: dbOf(t) });
  const live = deskModel();
  const fork = replay.forkAt(2);
  const result = await fork.rerun({ llm: live, toolRegistry: desk.registry });
  assert.is(live.calls, 0, 'no model was called');
  assert.equal(desk.executed, { lookup_order: ['42', '42'], refund: ['42'] }, 'read_only ran again; the refund did not');
  assert.ok(result.trace_id && result.trace_id !== original.trace_id, 'a new trace');
  assert.equal(result.toJSON(), {
    original_output: 'Done: refunded 50 USD on order 42.',
    new_output: 'Done: refunded 50 USD on order 42.',
    steps_executed: 6,
    trace_id: result.trace_id,
  });
  assert.equal(result.counts, { recordedModelCalls: 3, liveModelCalls: 0, liveToolCalls: 1, recordedToolCalls: 1, overriddenToolCalls: 0 });
  const comparison = await fork.compare(result);
  assert.is(comparison.diverged_at, null);
  assert.is(comparison.original_steps.length, 6);
  assert.equal(
    comparison.new_steps!.map((s) => s.span_name),
    DESK_STEPS,
  );
  assert.match(await fork.diff(result), /^No divergence/);
  const rerun = await Replay.load(result.trace_id!, { dbPath: dbOf(t) });
  assert.is(rerun.inspect(0).attributes['agentkit.replay.source_trace_id'], original.trace_id);
  assert.is(rerun.inspect(0).attributes['agentkit.replay.fork_step'], 2);
  assert.equal(
    rerun
      .steps()
      .filter((s) => s.span_name.startsWith('llm.'))
      .map((s) => s.attributes['agentkit.replay.llm_source']),
    ['recorded', 'recorded', 'recorded'],
  );
  assert.equal(
    rerun
      .steps()
      .filter((s) => s.span_name.startsWith('tool.'))
      .map((s) => s.attributes['agentkit.replay.tool_source']),
    ['live', 'recorded'],
  );
});

area.scenario('recorded mode with a changed prompt: diverges at the first model step and goes live from there', {}, async (t) => {
  const desk = makeDesk(dbOf(t));
  const original = await desk.agent.run('Please refund order 42.');
  const replay = await Replay.load(original.trace_id!, { dbPath: dbOf(t) });
  const live = deskModel();
  const fork = replay.forkAt(0).modifyPrompt('You are a polite support desk.');
  const result = await fork.rerun({ llm: live, toolRegistry: desk.registry });
  assert.is(live.calls, 3, 'live from the first call');
  assert.is(live.received[0]![0]!.content, 'You are a polite support desk.');
  assert.is(result.new_output, 'Certainly. Done: refunded 50 USD on order 42.');
  assert.equal(desk.executed.refund, ['42'], 'the same refund is answered from the trace, not repeated');
  const comparison = await fork.compare(result);
  assert.is(comparison.diverged_at, 1, 'the first model step');
  const text = await fork.diff(result);
  assert.match(text, /^Diverged at step 1 \(llm\.chat_completion\): the output changed\./);
  assert.match(text, /\n- Checking order 42\.\n\+ Certainly\. Checking order 42\./);

  const strict = await rejects(() =>
    replay.forkAt(0).modifyPrompt('Be polite.').withDeterminism('recorded', { onMiss: 'error' }).rerun({ llm: deskModel(), toolRegistry: desk.registry }),
  );
  assert.instance(strict, ReplayError);
  assert.is(strict.message, "model call 1 of agent 'desk' does not match the recorded request, and onMiss is 'error'");

  const temperature = await replay.forkAt(0).modifyConfig({ temperature: 0.5 }).rerun({ llm: deskModel(), toolRegistry: desk.registry });
  assert.is(temperature.counts.liveModelCalls, 3, 'a changed temperature is a changed request');
});

area.scenario('side-effecting tools never run unless allowed; read_only tools do; overrides answer instead', {}, async (t) => {
  const desk = makeDesk(dbOf(t));
  const original = await desk.agent.run('Please refund order 42.');
  const replay = await Replay.load(original.trace_id!, { dbPath: dbOf(t) });

  const other = await rejects(() => replay.forkAt(0).modifyInput('Please refund order 1001.').rerun({ llm: deskModel(), toolRegistry: desk.registry }));
  assert.instance(other, ReplayError);
  assert.match(other.message, /^rerun stopped: tool 'refund' is side_effecting and the trace has no recorded call with these arguments/);
  assert.match(other.message, /allowSideEffects: true/);
  assert.equal(desk.executed, { lookup_order: ['42', '1001'], refund: ['42'] }, 'the lookup ran, the refund did not');

  const allowed = await replay
    .forkAt(0)
    .modifyInput({ input: 'Please refund order 1001.' })
    .withDeterminism('live', { allowSideEffects: true })
    .rerun({ llm: deskModel(), toolRegistry: desk.registry });
  assert.is(allowed.new_output, 'Done: refunded 1200 USD on order 1001.');
  assert.equal(desk.executed.refund, ['42', '1001'], 'allowed explicitly, it ran');

  const overridden = await replay
    .forkAt(0)
    .withToolOverride('refund', { refunded: false, reason: 'sandbox' })
    .withDeterminism('live')
    .rerun({ llm: deskModel(), toolRegistry: desk.registry });
  assert.is(overridden.new_output, 'Done: {"refunded":false,"reason":"sandbox"}.');
  assert.is(overridden.counts.overriddenToolCalls, 1);
  assert.equal(desk.executed.refund, ['42', '1001']);
});

area.scenario(
  'reconstruction: a trace without reconstruction attributes, an unregistered tool, a model that cannot be rebuilt',
  { rows: ['error:rerun-old-trace'] },
  async (t) => {
    const desk = makeDesk(dbOf(t));
    const original = await desk.agent.run('Please refund order 42.');
    const trace = await new TraceStore({ dbPath: dbOf(t) }).getTrace(original.trace_id!);
    for (const key of ['agent.config', 'agent.tools', 'agent.guardrails', 'agent.llm.config']) delete trace.spans[0]!.attributes[key];
    const old = await rejects(() => new Replay(trace).forkAt(0).rerun({ llm: deskModel(), toolRegistry: desk.registry }));
    assert.instance(old, ReplayError);
    assert.is(
      old.message,
      `cannot rerun trace '${original.trace_id}': span 'agent.desk' has no reconstruction attributes (agent.config, agent.tools, agent.guardrails, agent.llm.config), so the agent cannot be rebuilt from it; record the run again with agentkit 0.1.7 or later (every agent.<name> span carries them)`,
    );

    const replay = await Replay.load(original.trace_id!, { dbPath: dbOf(t) });
    const unbound = await rejects(() => replay.forkAt(0).rerun({ llm: deskModel(), toolRegistry: new ToolRegistry() }));
    assert.instance(unbound, ReplayError);
    assert.match(
      unbound.message,
      /^cannot rerun agent 'desk': tool 'lookup_order' cannot be rebound \(no tool of that name is registered\) and would have to run; import the module that defines it/,
    );

    // withTools supplies what the registry lacks.
    const supplied = await replay
      .forkAt(0)
      .withTools([desk.agent.tools[0]!, desk.agent.tools[1]!])
      .rerun({ llm: deskModel(), toolRegistry: new ToolRegistry() });
    assert.is(supplied.new_output, 'Done: refunded 50 USD on order 42.');

    // A function model cannot be rebuilt: fine while the trace answers, a clear error when a live call is needed.
    const offline = await replay.forkAt(0).rerun({ toolRegistry: desk.registry });
    assert.is(offline.counts.recordedModelCalls, 3);
    const needsModel = await rejects(() => replay.forkAt(0).modifyPrompt('Be polite.').rerun({ toolRegistry: desk.registry }));
    assert.instance(needsModel, ReplayError);
    assert.match(needsModel.message, /^agent 'desk' needs a live model call but its 'function' model cannot be rebuilt from the trace/);
    // The registered agent of the same name fills in the model and tools.
    const registered = await replay.forkAt(0).modifyPrompt('Be polite.').rerun({ agent: desk.agent, toolRegistry: new ToolRegistry() });
    assert.is(registered.new_output, 'Certainly. Done: refunded 50 USD on order 42.');
  },
);

area.scenario('payload capture off: the prompt does not round-trip, modifications still apply, the model goes live', {}, async (t) => {
  const desk = makeDesk(dbOf(t), { prompt: 'You are a polite desk.' });
  const original = await withEnv({ AGENTKIT_TRACE_PAYLOADS: '0' }, () => desk.agent.run('Where is order 42?'));
  const replay = await Replay.load(original.trace_id!, { dbPath: dbOf(t) });
  assert.is(replay.inspect(0).attributes['agent.system_prompt'], undefined);
  const live = deskModel();
  const plain = await replay.forkAt(0).rerun({ llm: live, toolRegistry: desk.registry });
  assert.is(plain.new_output, 'Order 42: 50 USD.', 'no prompt recorded: the rerun has none');
  assert.is(live.calls, 2, 'nothing recorded to answer from');
  const changed = await replay.forkAt(0).modifyPrompt('Be polite.').rerun({ llm: deskModel(), toolRegistry: desk.registry });
  assert.is(changed.new_output, 'Certainly. Order 42: 50 USD.');
});

area.scenario('an agent nested in a Chain is rerun from its own span and compared with its own steps', {}, async (t) => {
  const desk = makeDesk(dbOf(t));
  const chain = new Chain('support_flow')
    .addNode('prepare', (state) => ({ input: `${String(state.input)} Thanks.` }))
    .addNode('answer', desk.agent)
    .connect('prepare', 'answer');
  const run = await withTraceDestination(dbOf(t), () => chain.run('Where is order 42?'));
  assert.is(run.status, 'completed');
  const traceId = (await new TraceStore({ dbPath: dbOf(t) }).listTraces())[0]!.trace_id;
  const replay = await Replay.load(traceId, { dbPath: dbOf(t) });
  const names = replay.steps().map((s) => s.span_name);
  assert.is(names[0], 'chain.support_flow');
  const llmStep = names.indexOf('llm.chat_completion');
  const fork = replay.forkAt(llmStep);
  assert.is(fork.agentName, 'desk');
  const result = await fork.modifyPrompt('Be polite.').rerun({ llm: deskModel(), toolRegistry: desk.registry });
  assert.is(result.original_output, 'Order 42: 50 USD.');
  assert.is(result.new_output, 'Certainly. Order 42: 50 USD.');
  const comparison = await fork.compare(result);
  assert.equal(
    comparison.original_steps.map((s) => [s.step, s.span_name]),
    [
      [0, 'agent.desk'],
      [1, 'llm.chat_completion'],
      [2, 'tool.lookup_order'],
      [3, 'llm.chat_completion'],
    ],
  );
  assert.is(comparison.diverged_at, 1);
});

area.scenario('a Swarm member is rerun from its own span: its handoff tool (made at run time) is answered from the trace', {}, async (t) => {
  const triage = new Agent({
    name: 'triage',
    systemPrompt: 'Route the customer.',
    llm: new ScriptedModel([{ toolCalls: [{ name: 'handoff_to_billing', arguments: { reason: 'refund question' } }] }]),
  });
  const billing = new Agent({ name: 'billing', systemPrompt: 'Answer billing questions.', llm: new ScriptedModel(['Billing here: refunds take 5 days.']) });
  const swarm = new Swarm({ name: 'desk', agents: [triage, billing], entrypoint: 'triage', handoffs: { triage: ['billing'] }, traceDb: dbOf(t) });
  const run = await swarm.run('How long do refunds take?');
  const replay = await Replay.load(run.trace_id!, { dbPath: dbOf(t) });
  const names = replay.steps().map((s) => s.span_name);
  assert.is(names[0], 'swarm.desk');
  const triageStep = names.indexOf('agent.triage');
  const tools = JSON.parse(replay.inspect(triageStep).attributes['agent.tools'] as string) as Array<{
    name: string;
    ends_run?: boolean;
    replay_class: string;
  }>;
  assert.equal(
    tools.map((d) => [d.name, d.ends_run, d.replay_class]),
    [['handoff_to_billing', true, 'idempotent']],
  );

  const fork = replay.forkAt(triageStep);
  const same = await fork.rerun();
  assert.equal([same.new_output, same.original_output], ['Handed off to billing.', 'Handed off to billing.']);
  assert.equal([same.counts.recordedModelCalls, same.counts.recordedToolCalls], [1, 1]);
  assert.is((await fork.compare(same)).diverged_at, null);

  const changed = await replay
    .forkAt(triageStep)
    .modifyPrompt('Answer directly.')
    .rerun({ llm: new FunctionModel(() => 'Refunds take 5 days.') });
  assert.is(changed.new_output, 'Refunds take 5 days.');
  assert.is((await replay.forkAt(triageStep).compare(changed)).diverged_at, 1);

  const billingStep = names.indexOf('agent.billing');
  const second = await replay.forkAt(billingStep + 1).rerun();
  assert.is(second.new_output, 'Billing here: refunds take 5 days.');
  assert.is(second.original_output, 'Billing here: refunds take 5 days.');
});

area.scenario('saveAsTest appends the four fields, creating the file and folder, never rewriting earlier lines', {}, async (t) => {
  const desk = makeDesk(dbOf(t));
  const original = await desk.agent.run('Where is order 42?');
  const replay = await Replay.load(original.trace_id!, { dbPath: dbOf(t) });
  const result = await replay.forkAt(0).modifyPrompt('Be polite.').rerun({ llm: deskModel(), toolRegistry: desk.registry });
  const file = path.join(t.cwd, 'tests', 'regression', 'cases.jsonl');
  const first = await result.saveAsTest(file, { input: 'Where is order 42?', expectedOutput: String(result.new_output), sourceTraceId: original.trace_id });
  assert.equal(Object.keys(first), ['input', 'expected_output', 'trace_id', 'created_at']);
  assert.is(first.trace_id, original.trace_id);
  assert.match(first.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+Z$/);
  await writeFile(file, `${await readFile(file, 'utf8')}{"input":"kept","expected_output":"as is"}`);
  const second = await result.saveAsTest(file, { input: 'again', expectedOutput: 'x' });
  assert.is(second.trace_id, result.trace_id, 'without a source id: the rerun trace');
  const lines = (await readFile(file, 'utf8')).split('\n');
  assert.is(lines.length, 4);
  assert.is(lines[3], '');
  assert.equal(JSON.parse(lines[0]!), first);
  assert.is(lines[1], '{"input":"kept","expected_output":"as is"}', 'an earlier line is not rewritten');
  assert.equal(JSON.parse(lines[2]!), second);
});

area.scenario('compare: span names, prefixes, and a trace whose rerun has no trace', {}, async (t) => {
  const registry = new ToolRegistry();
  const clock = tool({ name: 'clock', registry, replayClass: 'read_only', parameters: Type.Object({}), execute: () => 'noon' });
  const agent = new Agent({ name: 'timer', llm: new ScriptedModel([{ toolCalls: [{ name: 'clock' }] }, 'It is noon.']), tools: [clock], traceDb: dbOf(t) });
  const original = await agent.run('What time is it?');
  const replay = await Replay.load(original.trace_id!, { dbPath: dbOf(t) });
  const fork = replay.forkAt(0).withDeterminism('live');
  const shorter = await fork.rerun({ llm: new FunctionModel(() => 'I do not know.'), toolRegistry: registry });
  const comparison = await fork.compare(shorter);
  assert.is(comparison.diverged_at, 1, 'the first model answer differs');
  assert.is(comparison.new_steps!.length, 2);
  const none = await fork.compare({ trace_id: null });
  assert.equal([none.new_steps, none.diverged_at], [null, null]);
});

area.run();
