/**
 * Guardrails at the input, output and tool-call positions, blocking or warning, written as code or judged by a
 * model; every outcome (passed, blocked, warned, errored) lands as a guardrail_events row in the run's local store
 * with the trace id and the agent's name, whether tracing is on or off.
 */
import * as assert from 'uvu/assert';
import Type from 'typebox';
import { conformance, type ScenarioContext } from '../harness/index.js';
import { Agent, ConfigError, flushTracesSync, guardrail, GuardrailBlockedError, LLMJudgeGuardrail, parseJudgement, tool, TraceStore } from '../../src/index.js';
import { openLocalStore } from '../../src/store/index.js';
import { ScriptedModel } from '../../src/testing/index.js';

const area = conformance('runtime: guardrails');

function dbOf(t: ScenarioContext): string {
  if (t.backend.kind !== 'sqlite') throw new Error('guardrail events live in the local store');
  return t.backend.dbPath;
}

interface EventRow {
  trace_id: string | null;
  span_id: string | null;
  agent_name: string;
  guardrail_name: string;
  position: string;
  outcome: string;
  blocking: number;
  message: string | null;
}

/** The guardrail_events rows, read after a close and reopen of the store. */
function events(file: string): EventRow[] {
  flushTracesSync();
  const db = openLocalStore(file, { readonly: true });
  try {
    return db
      .prepare('SELECT trace_id, span_id, agent_name, guardrail_name, position, outcome, blocking, message FROM guardrail_events ORDER BY created_at')
      .all() as EventRow[];
  } finally {
    db.close();
  }
}

const noEmail = guardrail({
  name: 'no_email',
  position: 'input',
  registry: false,
  check: (text) => (/\S+@\S+\.\w+/.test(text) ? { passed: false, message: 'the input contains an email address' } : true),
});
const polite = guardrail({
  name: 'polite',
  position: 'output',
  blocking: false,
  registry: false,
  check: (text) => ({ passed: !/stupid/i.test(text), message: 'impolite wording' }),
});
const refundLimit = guardrail({
  name: 'refund_limit',
  position: 'tool_call',
  registry: false,
  check: (text) => {
    const { tool: name, arguments: args } = JSON.parse(text) as { tool: string; arguments: { amount?: number } };
    return name !== 'refund' || (args.amount ?? 0) <= 100 ? true : { passed: false, message: `refund of ${args.amount} is over the 100 limit` };
  },
});

function refundTool(log: number[]) {
  return tool({
    name: 'refund',
    registry: false,
    parameters: Type.Object({ amount: Type.Number() }),
    execute: ({ amount }) => {
      log.push(amount);
      return 'refunded';
    },
  });
}

area.scenario('a blocking input guardrail stops the run before the model is called, and is recorded', { backends: ['sqlite'] }, async (t) => {
  const llm = new ScriptedModel(['never']);
  const agent = new Agent({ name: 'desk', llm, guardrails: [noEmail], traceDb: dbOf(t) });
  const error = await agent.run('mail me at ada@example.com').then(
    () => null,
    (e: unknown) => e,
  );
  assert.instance(error, GuardrailBlockedError);
  const blocked = error as GuardrailBlockedError;
  assert.equal(
    [blocked.code, blocked.status, blocked.guardrailName, blocked.position, blocked.message],
    ['guardrail_blocked', 422, 'no_email', 'input', "guardrail 'no_email' blocked the input: the input contains an email address"],
  );
  assert.is(llm.calls, 0);
  const [summary] = await new TraceStore({ dbPath: dbOf(t) }).listTraces();
  const rows = events(dbOf(t));
  assert.equal(
    rows.map((r) => ({ ...r, span_id: r.span_id !== null })),
    [
      {
        trace_id: summary!.trace_id,
        span_id: true,
        agent_name: 'desk',
        guardrail_name: 'no_email',
        position: 'input',
        outcome: 'blocked',
        blocking: 1,
        message: 'the input contains an email address',
      },
    ],
  );
  const spans = await new TraceStore({ dbPath: dbOf(t) }).spans(summary!.trace_id);
  assert.equal(
    spans.map((s) => `${s.name}:${s.status}`),
    ['agent.desk:ERROR', 'guardrail.no_email:ERROR'],
  );
  assert.is(spans[1]!.span_id, rows[0]!.span_id);
  assert.is(spans[1]!.attributes['agentkit.guardrail.outcome'], 'blocked');
  // The event's id is time-ordered (UUID v7): new events go to the end of the table's key, not a random page.
  const db = openLocalStore(dbOf(t), { readonly: true });
  try {
    assert.match(
      db.prepare('SELECT event_id FROM guardrail_events').pluck().get() as string,
      /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
  } finally {
    db.close();
  }
});

area.scenario('passing, warning and tool-call guardrails: the run goes on or stops, every outcome recorded', { backends: ['sqlite'] }, async (t) => {
  const log: number[] = [];
  const agent = new Agent({
    name: 'refunds',
    llm: new ScriptedModel([{ toolCalls: [{ name: 'refund', arguments: { amount: 40 } }] }, 'Done, that was a stupid bug.']),
    tools: [refundTool(log)],
    guardrails: [noEmail, polite, refundLimit],
    traceDb: dbOf(t),
  });
  const result = await agent.run('refund 40');
  assert.is(result.output, 'Done, that was a stupid bug.', 'a non-blocking failure only warns');
  assert.equal(log, [40]);
  assert.equal(
    events(dbOf(t)).map((r) => [r.guardrail_name, r.position, r.outcome, r.blocking, r.message, r.trace_id]),
    [
      ['no_email', 'input', 'passed', 1, null, result.trace_id],
      ['refund_limit', 'tool_call', 'passed', 1, null, result.trace_id],
      ['polite', 'output', 'warned', 0, 'impolite wording', result.trace_id],
    ],
  );

  const big = new Agent({
    name: 'refunds',
    llm: new ScriptedModel([{ toolCalls: [{ name: 'refund', arguments: { amount: 500 } }] }, 'never']),
    tools: [refundTool(log)],
    guardrails: [refundLimit],
    traceDb: dbOf(t),
  });
  const error = await big.run('refund 500').then(
    () => null,
    (e: unknown) => e,
  );
  assert.instance(error, GuardrailBlockedError);
  assert.is((error as Error).message, "guardrail 'refund_limit' blocked the tool call: refund of 500 is over the 100 limit");
  assert.equal(log, [40], 'the blocked tool never ran');
  assert.equal(events(dbOf(t)).at(-1)!.outcome, 'blocked');
});

area.scenario('model-judged guardrails: a verdict, a blocked output, an answer the judge botched (errored)', { backends: ['sqlite'] }, async (t) => {
  const judge = new ScriptedModel([
    '{"passed": true, "reason": "no medical advice"}',
    'FAIL: gives a dosage',
    'I am not sure, maybe?',
    'I am not sure, maybe?',
  ]);
  const noAdvice = new LLMJudgeGuardrail({
    name: 'no_medical_advice',
    position: 'output',
    llm: judge,
    criteria: 'The answer gives no medical dosage advice.',
    registry: false,
  });
  const make = (answer: string, guardrails = [noAdvice]) => new Agent({ name: 'nurse', llm: new ScriptedModel([answer]), guardrails, traceDb: dbOf(t) });

  assert.is((await make('Please see a doctor.').run('headache?')).output, 'Please see a doctor.');
  assert.match(
    judge.received[0]![1]!.content!,
    /^Criteria: The answer gives no medical dosage advice\.\n\nContent \(output\):\n<<<\nPlease see a doctor\.\n>>>$/,
  );
  assert.equal(judge.requests[0]!.settings, { temperature: 0 });

  const blocked = await make('Take 4 pills.')
    .run('headache?')
    .then(
      () => null,
      (e: unknown) => e,
    );
  assert.instance(blocked, GuardrailBlockedError);
  assert.is((blocked as Error).message, "guardrail 'no_medical_advice' blocked the output: gives a dosage");

  const botched = await make('Rest.')
    .run('headache?')
    .then(
      () => null,
      (e: unknown) => e,
    );
  assert.instance(botched, GuardrailBlockedError, 'a blocking check that errors blocks by default');
  assert.match(
    (botched as Error).message,
    /blocked the output: the check failed: the judge's answer is neither \{"passed": \.\.\.\} nor PASS\/FAIL: I am not sure, maybe\?/,
  );

  const lenient = new LLMJudgeGuardrail({ name: 'lenient_judge', position: 'output', llm: judge, criteria: 'anything', onError: 'allow', registry: false });
  assert.is((await make('Rest.', [lenient]).run('headache?')).output, 'Rest.');
  assert.equal(
    events(dbOf(t)).map((r) => [r.guardrail_name, r.outcome]),
    [
      ['no_medical_advice', 'passed'],
      ['no_medical_advice', 'blocked'],
      ['no_medical_advice', 'blocked'],
      ['lenient_judge', 'errored'],
    ],
  );
  assert.equal(lenient.toDict(), {
    name: 'lenient_judge',
    guardrail_type: 'llm_judge',
    position: 'output',
    blocking: true,
    on_error: 'allow',
    description: '',
    config: { criteria: 'anything', llm: { provider: 'scripted', model: 'scripted-model' } },
  });
});

area.scenario('with tracing off, guardrail events are still recorded (without a trace id)', { backends: ['sqlite'] }, async (t) => {
  const throwing = guardrail({ name: 'flaky', position: 'input', blocking: false, registry: false, check: () => Promise.reject(new Error('classifier down')) });
  const result = await new Agent({ name: 'quiet', llm: new ScriptedModel(['ok']), guardrails: [throwing, noEmail], traceDb: dbOf(t), trace: false }).run(
    'hello',
  );
  assert.is(result.output, 'ok');
  assert.equal(
    events(dbOf(t)).map((r) => [r.guardrail_name, r.outcome, r.message, r.trace_id, r.span_id, r.agent_name]),
    [
      ['no_email', 'passed', null, null, null, 'quiet'],
      ['flaky', 'errored', 'classifier down', null, null, 'quiet'],
    ],
  );
});

area.scenario('guardrail definitions are checked; judge answers are read strictly', { backends: 'none' }, async () => {
  assert.throws(
    () => guardrail({ name: 'x', position: 'middle' as never, registry: false, check: () => true }),
    (e: unknown) => e instanceof ConfigError && e.message === `guardrail 'x': position must be one of input, output, tool_call, got "middle"`,
  );
  assert.throws(() => guardrail({ name: ' ', position: 'input', registry: false, check: () => true }), /non-empty name/);
  assert.throws(
    () => guardrail({ name: 'y', position: 'input', onError: 'ignore' as never, registry: false, check: () => true }),
    /onError must be 'block' or 'allow'/,
  );
  assert.equal(parseJudgement('Sure! {"passed": false, "reason": "mentions a dose"}'), { passed: false, message: 'mentions a dose' });
  assert.equal(parseJudgement('PASS'), { passed: true });
  assert.equal(parseJudgement('fail - rude'), { passed: false, message: 'rude' });
  assert.throws(() => parseJudgement('{"ok": true}'), /neither/);
  assert.throws(() => parseJudgement('passable'), /neither/);
});

area.run();
