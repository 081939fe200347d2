/**
 * `agentkit replay show | inspect | fork` on the trace of the quickstart agent, served by the real binary and then
 * stopped: shown, inspected, forked with `--agent examples/quickstart-agent.ts:support`, compared, saved as a test.
 * Traces live in local.db, so SQLite only.
 */
import * as assert from 'uvu/assert';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { conformance, startCli, type ScenarioContext } from '../harness/index.js';
import { Replay, TraceStore } from '../../src/index.js';
import { parseStoreValue, storeLabel } from '../../src/config/store-value.js';
import { validator } from '../../generated/schemas/resources.js';
import { trace } from '@opentelemetry/api';
import { ensureTracing, flushTraces, storedTraceId } from '../../src/tracing/setup.js';
import { withTraceDestination } from '../../src/tracing/spans.js';

const area = conformance('replay: CLI');
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const QUICKSTART = `${path.join(root, 'examples/quickstart-agent.ts')}:support`;

/** The variant's store as one value: the SQLite file, or the Postgres URL (issue 38: both engines). */
function dbOf(t: ScenarioContext): string {
  if (t.store === undefined) throw new Error('replay scenarios run on a store');
  return t.store;
}

/** How messages name the variant's store (a URL without a password is shown as given). */
function labelOf(t: ScenarioContext): string {
  return storeLabel(parseStoreValue(dbOf(t)));
}

/** Serve the quickstart agent, post each input to /run, stop the server; returns the trace ids. */
async function servedTraces(t: ScenarioContext, inputs: string[]): Promise<string[]> {
  const env = { ...t.env, OPENAI_API_KEY: undefined, ANTHROPIC_API_KEY: undefined } as Record<string, string | undefined>;
  const server = startCli(['agent', 'serve', QUICKSTART, '--host', '127.0.0.1', '--port', '0'], { cwd: t.cwd, env });
  t.defer(() => server.kill());
  const [, url] = await server.waitForStderr(/serving agent '[^']+' on (http:\/\/[^ ]+)/);
  const ids: string[] = [];
  for (const input of inputs) {
    const response = await fetch(`${url}/run`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ input }) });
    const body = (await response.json()) as { trace_id: string | null };
    assert.is(response.status, 200);
    ids.push(body.trace_id!);
  }
  server.child.kill('SIGTERM');
  assert.is((await server.exited).code, 0, server.stderr());
  return ids;
}

const STEPS = ['agent.support', 'guardrail.no_card_numbers', 'llm.chat_completion', 'tool.lookup_order', 'llm.chat_completion'];

area.scenario(
  'the served quickstart trace: show, inspect, fork with a changed prompt and input, compare, save as test',
  { rows: ['cli:replay show', 'cli:replay inspect', 'cli:replay fork'], surfaces: ['cli'], timeoutMs: 90_000, storeEnv: true },
  async (t) => {
    const [traceId] = await servedTraces(t, ['Where is order 42?']);

    const show = await t.cli(['replay', 'show', traceId!]);
    assert.is(show.code, 0, show.stderr);
    const lines = show.stdout.split('\n');
    assert.equal(lines.slice(0, 4), [`Trace: ${traceId}`, 'Name: agent.support', 'Status: OK', 'Spans: 5']);
    assert.match(lines[4]!, /^Duration: \S+ → \S+$/);
    assert.equal(lines.slice(5), ['', 'Steps:', ...STEPS.map((s, i) => `  [${i}] ${s}`), '']);
    const shown = JSON.parse((await t.cli(['replay', 'show', traceId!, '--json', '--db', dbOf(t)])).stdout) as {
      span_count: number;
      steps: Array<{ step: number; span_name: string }>;
    };
    assert.equal([shown.span_count, shown.steps.map((s) => s.span_name)], [5, STEPS]);

    const inspect = await t.cli(['replay', 'inspect', traceId!, '3']);
    assert.is(inspect.code, 0, inspect.stderr);
    const [first, second, third, ...rest] = inspect.stdout.split('\n');
    assert.is(first, 'Step 3: tool.lookup_order');
    assert.match(second!, /^Timestamp: \d{4}-\d\d-\d\dT[\d:.]+Z$/);
    assert.is(third, 'Attributes:');
    const attributes = JSON.parse(rest.join('\n')) as Record<string, unknown>;
    assert.equal(
      [attributes['agentkit.tool.name'], attributes['agentkit.tool.replay_class'], attributes['tool.args']],
      ['lookup_order', 'read_only', '{"order_id":"42"}'],
    );
    const step = JSON.parse((await t.cli(['replay', 'inspect', traceId!, '3', '--json'])).stdout) as { output: Record<string, unknown> };
    assert.equal(step.output['tool.result'], { order_id: '42', total: 50, status: 'delivered' });
    assert.equal(await t.cli(['replay', 'inspect', traceId!, '5']), { code: 2, stdout: '', stderr: 'error: Step 5 out of range (0-4)\n' });
    assert.equal(await t.cli(['replay', 'inspect', traceId!, '--', '-1']), { code: 2, stdout: '', stderr: 'error: Step -1 out of range (0-4)\n' });
    const notNumber = await t.cli(['replay', 'inspect', traceId!, 'two']);
    assert.equal(
      [notNumber.code, notNumber.stderr],
      [2, "error: step must be an integer step index, got 'two'; usage: agentkit replay inspect <trace_id> <step> [options]\n"],
    );

    // A changed prompt and input: a new trace, live from the first model call, diverging at the first model step.
    const fork = await t.bin([
      'replay',
      'fork',
      traceId!,
      '--step',
      '2',
      '--prompt',
      'Answer in one line.',
      '--input',
      'Where is order 1001?',
      '--agent',
      QUICKSTART,
      '--output',
      'fork.json',
    ]);
    assert.is(fork.code, 0, fork.stderr);
    const out = fork.stdout.split('\n');
    const newTrace = /^trace_id: ([0-9a-f]{32})$/.exec(out[0]!)?.[1];
    assert.ok(newTrace && newTrace !== traceId, fork.stdout);
    assert.equal(out.slice(1, 7), [
      `source_trace_id: ${traceId}`,
      'original_output: Order 42: 50 USD, delivered.',
      'new_output: Order 1001: 1200 USD, shipped.',
      'steps_executed: 5',
      'diverged_at: 2',
      'model calls: 0 recorded, 2 live; tool calls: 1 run, 0 answered from the trace, 0 overridden',
    ]);
    assert.match(fork.stdout, /Diverged at step 2 \(llm\.chat_completion\): the output changed\.[\s\S]*-\s+"order_id": "42"\n\+\s+"order_id": "1001"/);
    const written = JSON.parse(await readFile(path.join(t.cwd, 'fork.json'), 'utf8'));
    assert.equal(written, {
      trace_id: newTrace,
      source_trace_id: traceId,
      original_output: 'Order 42: 50 USD, delivered.',
      new_output: 'Order 1001: 1200 USD, shipped.',
      steps_executed: 5,
      diverged_at: 2,
      status: 'completed',
    });
    assert.is((await stat(path.join(t.cwd, 'fork.json'))).mode & 0o777, 0o600);
    const rerun = await Replay.load(newTrace!, { dbPath: dbOf(t) });
    assert.is(
      Array.isArray(rerun.inspect(2).input['gen_ai.request.messages']) &&
        (rerun.inspect(2).input['gen_ai.request.messages'] as Array<{ content: string }>)[0]!.content,
      'Answer in one line.',
    );

    // Unchanged in recorded mode: identical, no model call; --json.
    const same = await t.bin(['replay', 'fork', traceId!, '--agent', QUICKSTART, '--json']);
    assert.is(same.code, 0, same.stderr);
    const body = JSON.parse(same.stdout) as { diverged_at: number | null; new_output: string; trace_id: string };
    assert.equal([body.diverged_at, body.new_output], [null, 'Order 42: 50 USD, delivered.']);
    const reader = new TraceStore({ dbPath: dbOf(t) });
    t.defer(() => reader.close());
    assert.is((await reader.listTraces()).length, 3, 'each fork is a new trace');

    // The fix saved as a regression test: exactly the four fields of the record eval run reads, appended.
    for (const input of ['Where is order 1001?', 'Where is order 42?']) {
      const saved = await t.bin(['replay', 'fork', traceId!, '--input', input, '--agent', QUICKSTART, '--save-test', 'tests/regression.jsonl', '--json']);
      assert.is(saved.code, 0, saved.stderr);
    }
    const records = (await readFile(path.join(t.cwd, 'tests/regression.jsonl'), 'utf8')).split('\n');
    assert.is(records.length, 3);
    assert.is(records[2], '');
    const check = validator('RegressionTestRecord');
    for (const [i, expected] of [
      [0, ['Where is order 1001?', 'Order 1001: 1200 USD, shipped.']],
      [1, ['Where is order 42?', 'Order 42: 50 USD, delivered.']],
    ] as const) {
      const record = JSON.parse(records[i]!) as Record<string, string>;
      assert.equal(Object.keys(record), ['input', 'expected_output', 'trace_id', 'created_at']);
      assert.equal([record.input, record.expected_output, record.trace_id], [...expected, traceId]);
      assert.ok(check.Check(record), 'a RegressionTestRecord');
    }
  },
);

area.scenario(
  'fork: an unknown trace id is one line and exit 1; a refund is never repeated; bad flags are usage errors',
  { rows: ['cli:replay fork'], surfaces: ['cli'], timeoutMs: 90_000, storeEnv: true },
  async (t) => {
    assert.equal(await t.cli(['replay', 'show', 'feedfeedfeedfeedfeedfeedfeedfeed']), {
      code: 1,
      stdout: '',
      stderr: `error: trace id 'feedfeedfeedfeedfeedfeedfeedfeed' not found in ${labelOf(t)}\n`,
    });
    assert.equal(await t.cli(['replay', 'fork', 'feedfeedfeedfeedfeedfeedfeedfeed']), {
      code: 1,
      stdout: '',
      stderr: `error: trace id 'feedfeedfeedfeedfeedfeedfeedfeed' not found in ${labelOf(t)}\n`,
    });
    const [refundTrace] = await servedTraces(t, ['Please refund order 42 in full.']);
    const steps = (await Replay.load(refundTrace!, { dbPath: dbOf(t) })).steps().map((s) => s.span_name);
    assert.equal(steps, [...STEPS, 'tool.refund'], 'the run paused in the refund');
    // The trace is still paused (no decision): the recorded paused call matches, the rerun pauses there too and says so.
    const paused = await t.bin(['replay', 'fork', refundTrace!, '--agent', QUICKSTART, '--json']);
    assert.is(paused.code, 0, paused.stderr);
    const report = JSON.parse(paused.stdout) as { status: string; pending_interrupt: unknown; diverged_at: number | null };
    assert.equal(
      [report.status, report.pending_interrupt, report.diverged_at],
      ['paused', { reason: 'refund_approval', context: { order_id: '42', amount: 50 } }, null],
    );
    const pending = await t.bin(['list-pending', '--json']);
    assert.is((JSON.parse(pending.stdout) as unknown[]).length, 2, "the rerun's own pause waits beside the original's");
    // Another amount was never recorded: the refund is refused, never run (exit 2: cannot be rerun safely).
    const refused = await t.bin(['replay', 'fork', refundTrace!, '--agent', QUICKSTART, '--input', 'Please refund order 1001 in full.']);
    assert.is(refused.code, 2, refused.stdout);
    assert.match(
      refused.stderr,
      /^error: rerun stopped: tool 'refund' is side_effecting and the trace has no recorded call with these arguments .* so it was not executed; answer it with withToolOverride\('refund', response\) or allow it to run with allowSideEffects: true\n$/,
    );
    const badMode = await t.cli(['replay', 'fork', refundTrace!, '--mode', 'cached']);
    assert.equal(
      [badMode.code, badMode.stderr],
      [2, "error: --mode must be one of live, recorded, got 'cached'; usage: agentkit replay fork <trace_id> [options]\n"],
    );
    const badStep = await t.cli(['replay', 'fork', refundTrace!, '--step', '6']);
    assert.equal([badStep.code, badStep.stderr], [2, 'error: Step 6 out of range (0-5)\n']);
    const noModule = await t.cli(['replay', 'fork', refundTrace!, '--agent', 'missing.ts:support']);
    assert.is(noModule.code, 2);
    assert.match(noModule.stderr, /^error: .*missing\.ts/);
  },
);

area.scenario(
  'replay fork of a trace recorded without reconstruction attributes (an older SDK) exits 2 naming them',
  { rows: ['cli:replay fork'], surfaces: ['cli'], timeoutMs: 60_000, storeEnv: true },
  async (t) => {
    // An agent span as agentkit before 0.1.7 recorded it: a name and an input, nothing to rebuild the agent from.
    ensureTracing();
    const traceId = withTraceDestination(dbOf(t), () =>
      trace.getTracer('agentkit').startActiveSpan('agent.support', { attributes: { 'agent.name': 'support', 'agent.input': 'Where is order 42?' } }, (span) => {
        span.end();
        return storedTraceId(span);
      }),
    );
    await flushTraces();
    const forked = await t.cli(['replay', 'fork', traceId, '--step', '0']);
    assert.is(forked.code, 2, forked.stdout + forked.stderr);
    assert.is(forked.stdout, '');
    assert.match(
      forked.stderr,
      new RegExp(
        `^error: cannot rerun trace '${traceId}': span 'agent\\.support' has no reconstruction attributes \\(agent\\.config, agent\\.tools, agent\\.guardrails, agent\\.llm\\.config\\)`,
      ),
    );
    assert.is(forked.stderr.split('\n').length, 2, 'one line');
  },
);

area.run();
