/**
 * The served agent over HTTP, raw and through the generated client: every route, status and error of the contract,
 * SSE framing and order, auth on and off, the body cap with and without Content-Length, pauses resumed via the SDK
 * and the CLI, and 200 concurrent runs each leaving its own trace.
 */
import * as assert from 'uvu/assert';
import path from 'node:path';
import { writeFile } from 'node:fs/promises';
import { pathToFileURL, fileURLToPath } from 'node:url';
import { postChunked, conformance, type ScenarioContext } from '../harness/index.js';
import { backendConfig, checkpointerFor } from '../harness/checkpointers.js';
import { approvalChain } from '../fixtures/durability/chains.js';
import { weatherAgent } from '../fixtures/serving/runners.js';
import { buildRefundAgent } from '../../examples/durability/refund-agent.js';
import { AgentClient } from '../../src/client/index.js';
import { createServeApp } from '../../src/serve/app.js';
import { toServeTarget } from '../../src/serve/adapters.js';
import { AlreadyResumed } from '../../src/durability/errors.js';
import { TraceStore, flushTraces } from '../../src/tracing/index.js';
import type { Chain } from '../../src/chain/index.js';

const area = conformance('served agent over HTTP');
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The variant's local store (traces always live there). */
function traceDb(t: ScenarioContext): string {
  return t.backend.kind === 'sqlite' ? t.backend.dbPath : path.join(t.cwd, '.agentkit', 'local.db');
}

async function serve(t: ScenarioContext, runner: unknown, options: { token?: string; maxBodyBytes?: number } = {}) {
  const server = await t.serve(createServeApp(toServeTarget(runner, { traceDb: traceDb(t) }), options));
  return server.url;
}

async function post(url: string, body: string, headers: Record<string, string> = {}) {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, json: () => JSON.parse(text) as Record<string, unknown> };
}

/** The frames of an SSE body: each must be exactly an `event: <type>` line and one `data: <json>` line of that type. */
function frames(text: string): Array<Record<string, unknown>> {
  assert.ok(text.endsWith('\n\n'), 'the stream ends with a complete frame');
  return text
    .slice(0, -2)
    .split('\n\n')
    .map((frame) => {
      const match = /^event: ([a-z_]+)\ndata: ([^\n]+)$/.exec(frame);
      assert.ok(match, `one event line and one data line per frame: ${JSON.stringify(frame)}`);
      const event = JSON.parse(match[2]!) as Record<string, unknown>;
      assert.is(event.type, match[1], 'the event line names the event');
      return event;
    });
}

/** Consecutive `delta` events joined into one, so assertions read the text the client assembles. */
function coalesce(events: Array<Record<string, unknown>>): Array<Record<string, unknown>> {
  const out: Array<Record<string, unknown>> = [];
  for (const event of events) {
    const last = out.at(-1);
    if (event.type === 'delta' && last?.type === 'delta') out[out.length - 1] = { type: 'delta', text: `${String(last.text)}${String(event.text)}` };
    else out.push(event);
  }
  return out;
}

area.scenario('GET /health is open, with and without a token', { rows: ['route:GET /health'], backends: 'none', surfaces: ['http'] }, async (t) => {
  for (const token of [undefined, 's3cret']) {
    const url = await serve(t, weatherAgent({ traceDb: path.join(t.cwd, 'traces.db') }), token ? { token } : {});
    const raw = await fetch(`${url}/health`);
    assert.is(raw.status, 200);
    assert.equal(await raw.json(), { status: 'ok' });
    assert.equal((await new AgentClient({ baseUrl: url }).health()).data, { status: 'ok' });
  }
});

area.scenario('POST /run on an Agent: the run response, and its trace in the local store', { rows: ['route:POST /run'], surfaces: ['http'] }, async (t) => {
  const url = await serve(t, weatherAgent());
  const raw = await post(`${url}/run`, JSON.stringify({ input: 'What is the weather in Oslo?' }));
  assert.is(raw.status, 200, raw.text);
  const body = raw.json();
  assert.is(body.output, 'It is 14 degrees in Oslo.');
  assert.is(body.status, 'completed');
  assert.is(body.pending_interrupt, null);
  assert.match(String(body.trace_id), /^[0-9a-f]{32}$/);
  assert.match(String(body.execution_id), /^[0-9a-f-]{36}$/);
  assert.ok((body.tokens_used as number) > 0);
  assert.ok((body.latency_ms as number) >= 0);

  const typed = await new AgentClient({ baseUrl: url }).run('weather in Rome');
  assert.is(typed.data?.output, 'It is 14 degrees in Rome.');
  await flushTraces();
  const trace = await new TraceStore({ dbPath: traceDb(t) }).getTrace(typed.data!.trace_id!);
  assert.is(trace.name, 'agent.weather');
  assert.ok(trace.spans.some((s) => s.name === 'tool.get_weather'));
});

area.scenario(
  'POST /run on a Chain that pauses, resumed via the SDK and via the CLI',
  { rows: ['route:POST /run', 'cli:resume'], surfaces: ['http'] },
  async (t) => {
    const checkpointer = checkpointerFor(t.backend);
    t.defer(() => checkpointer.close());
    const chain: Chain = approvalChain(checkpointer);
    const client = new AgentClient({ baseUrl: await serve(t, chain) });

    const paused = await client.run('refund order 42');
    assert.ok(paused.data, JSON.stringify(paused.error));
    assert.is(paused.data.status, 'paused');
    assert.is(paused.data.output, '');
    assert.equal(paused.data.pending_interrupt, {
      reason: 'manager_approval',
      context: { amount: 50000, policy: 'high-value' },
      node_id: 'approval',
      agent_path: null,
    });
    const resumed = await chain.resume(paused.data.execution_id, { resumeValue: { approved: true, metadata: { approver: 'alice' } } });
    assert.is(resumed.status, 'completed');
    assert.is(resumed.execution_id, paused.data.execution_id);
    await chain.resume(paused.data.execution_id, { resumeValue: { approved: true, metadata: {} } }).then(
      () => assert.unreachable('a second resume must be refused'),
      (error: unknown) => assert.instance(error, AlreadyResumed),
    );

    const second = await client.run('refund order 43');
    assert.is(second.data?.status, 'paused');
    const chainsModule = pathToFileURL(path.join(root, 'conformance/fixtures/durability/chains.ts')).href;
    await writeFile(
      path.join(t.cwd, 'runner.mts'),
      `import { approvalRunner } from ${JSON.stringify(chainsModule)};\nexport const refund = () => approvalRunner(${JSON.stringify(backendConfig(t.backend))});\n`,
    );
    const cli = await t.cli([
      'resume',
      second.data!.execution_id,
      '--runner',
      'runner.mts:refund',
      '--value',
      '{"approved": true, "metadata": {"approver": "bob"}}',
    ]);
    assert.is(cli.code, 0, cli.stderr);
    assert.match(cli.stdout, /status: completed/);
    const again = await t.cli(['resume', second.data!.execution_id, '--runner', 'runner.mts:refund']);
    assert.is(again.code, 2);
  },
);

area.scenario(
  'an Agent that pauses over POST /run and POST /run/stream (paused before done), resumed via the SDK and via the CLI',
  { rows: ['route:POST /run', 'route:POST /run/stream', 'cli:resume', 'transition:agent-resume-interrupted'], surfaces: ['http'], timeoutMs: 40_000 },
  async (t) => {
    const checkpointer = checkpointerFor(t.backend);
    t.defer(() => checkpointer.close());
    const url = await serve(t, buildRefundAgent(checkpointer));
    const client = new AgentClient({ baseUrl: url });

    const paused = await client.run('Please refund order A-1 for $5,000');
    assert.ok(paused.data, JSON.stringify(paused.error));
    assert.is(paused.data.status, 'paused');
    assert.is(paused.data.output, '');
    assert.equal(paused.data.pending_interrupt, {
      reason: 'refund_approval',
      context: { order_id: 'A-1', amount: 5000 },
      node_id: 'turn:0/tool:issue_refund',
      agent_path: 'agent:refund-agent/tool:issue_refund',
    });
    const fresh = checkpointerFor(t.backend);
    t.defer(() => fresh.close());
    const resumed = await buildRefundAgent(fresh).resume(paused.data.execution_id, { resumeValue: { approved: true, metadata: { approver: 'alice' } } });
    assert.is(resumed.status, 'completed');
    assert.is(resumed.execution_id, paused.data.execution_id);
    assert.is(resumed.output, 'Refunded $5000 on order A-1, approved by alice. Anything else?');

    const raw = await post(`${url}/run/stream`, JSON.stringify({ input: 'Please refund order A-2 for $2,000' }));
    assert.is(raw.status, 200);
    const events = frames(raw.text);
    const executionId = String(events.find((e) => e.type === 'paused')?.execution_id);
    assert.equal(events, [
      { type: 'tool_call', name: 'issue_refund', arguments: { order_id: 'A-2', amount: 2000 } },
      { type: 'paused', reason: 'refund_approval', execution_id: executionId, context: { order_id: 'A-2', amount: 2000 } },
      { type: 'done', execution_id: executionId, trace_id: events.at(-1)?.trace_id, status: 'paused' },
    ]);
    assert.type(events.at(-1)?.trace_id, 'string', 'the done event names the trace');
    const pending = await checkpointer.listPendingInterrupts();
    assert.equal(
      pending.map((p) => [p.execution_id, p.reason]),
      [[executionId, 'refund_approval']],
    );

    const exampleModule = pathToFileURL(path.join(root, 'examples/durability/refund-agent.ts')).href;
    const chainsModule = pathToFileURL(path.join(root, 'conformance/fixtures/durability/chains.ts')).href;
    await writeFile(
      path.join(t.cwd, 'agent-runner.mts'),
      `import { buildRefundAgent } from ${JSON.stringify(exampleModule)};\nimport { openCheckpointer } from ${JSON.stringify(chainsModule)};\nexport const refund = () => buildRefundAgent(openCheckpointer(${JSON.stringify(backendConfig(t.backend))}));\n`,
    );
    const cli = await t.cli(['resume', executionId, '--runner', 'agent-runner.mts:refund', '--value', '{"approved": false, "metadata": {"approver": "bob"}}']);
    assert.is(cli.code, 0, cli.stderr);
    assert.match(cli.stdout, /^status: completed\noutput: Refund of \$2000 on order A-2 was rejected by bob\. Anything else\?\n/m);
    const again = await t.cli(['resume', executionId, '--runner', 'agent-runner.mts:refund']);
    assert.is(again.code, 2, again.stdout);
    assert.equal(await checkpointer.listPendingInterrupts(), []);
  },
);

area.scenario(
  'POST /run/stream: SSE framing, events in order, read raw and through the client',
  { rows: ['route:POST /run/stream'], surfaces: ['http'] },
  async (t) => {
    const url = await serve(t, weatherAgent());
    const raw = await post(`${url}/run/stream`, JSON.stringify({ input: 'weather in Lima' }));
    assert.is(raw.status, 200);
    assert.match(raw.headers.get('content-type') ?? '', /^text\/event-stream/);
    assert.is(raw.headers.get('cache-control'), 'no-cache, no-transform');
    const events = frames(raw.text);
    assert.ok(events.filter((e) => e.type === 'delta').length > 2, 'text arrives in several delta frames as it is produced');
    assert.equal(coalesce(events), [
      { type: 'delta', text: 'Let me check. ' },
      { type: 'tool_call', name: 'get_weather', arguments: { city: 'Lima' } },
      { type: 'delta', text: 'It is 14 degrees in Lima.' },
      { type: 'done', execution_id: events.at(-1)?.execution_id, trace_id: events.at(-1)?.trace_id, status: 'completed' },
    ]);
    assert.type(events.at(-1)?.execution_id, 'string', 'the done event names the execution');
    const streamed = await new AgentClient({ baseUrl: url }).stream('weather in Lima');
    const typed: Array<Record<string, unknown>> = [];
    for await (const event of streamed.data!) typed.push(event);
    assert.equal(
      coalesce(typed).map((e) => e.type),
      ['delta', 'tool_call', 'delta', 'done'],
    );
  },
);

area.scenario(
  'POST /run/stream: a failure mid-stream ends with an error event, then done',
  { rows: ['route:POST /run/stream'], backends: 'none', surfaces: ['http'] },
  async (t) => {
    const url = await serve(t, weatherAgent());
    const raw = await post(`${url}/run/stream`, JSON.stringify({ input: 'weather in Kaboom' }));
    assert.is(raw.status, 200);
    const events = coalesce(frames(raw.text));
    assert.equal(
      events.map((e) => e.type),
      ['delta', 'tool_call', 'error', 'done'],
    );
    assert.equal(events[2], { type: 'error', detail: 'the run failed: Error: the model exploded after the tool', code: 'internal_error' });
  },
);

area.scenario('POST /run/stream on a Chain is a 400 naming why', { rows: ['route:POST /run/stream'], surfaces: ['http'] }, async (t) => {
  const checkpointer = checkpointerFor(t.backend);
  t.defer(() => checkpointer.close());
  const url = await serve(t, approvalChain(checkpointer));
  const raw = await post(`${url}/run/stream`, JSON.stringify({ input: 'x' }));
  assert.is(raw.status, 400);
  assert.equal(raw.json(), { detail: "Streaming is only supported for Agent targets; 'refund' is a chain.", code: 'streaming_unsupported' });
});

area.scenario(
  'bearer auth: missing or wrong token is a 401 with WWW-Authenticate on both run routes',
  { rows: ['route:POST /run', 'route:POST /run/stream'], backends: 'none', surfaces: ['http'] },
  async (t) => {
    const url = await serve(t, weatherAgent(), { token: 's3cret-token' });
    for (const route of ['/run', '/run/stream']) {
      const attempts: Array<Record<string, string>> = [{}, { authorization: 'Bearer wrong' }, { authorization: 's3cret-token' }];
      for (const headers of attempts) {
        const response = await post(`${url}${route}`, JSON.stringify({ input: 'hi' }), headers);
        assert.is(response.status, 401, `${route} ${JSON.stringify(headers)}`);
        assert.is(response.headers.get('www-authenticate'), 'Bearer');
        assert.equal(response.json(), { detail: 'Missing or invalid bearer token.', code: 'unauthorized' });
      }
      const ok = await post(`${url}${route}`, JSON.stringify({ input: 'hi' }), { authorization: 'Bearer s3cret-token' });
      assert.is(ok.status, 200, `${route} with the token`);
    }
    const typed = await new AgentClient({ baseUrl: url }).run('hi');
    assert.is(typed.error?.status, 401);
    assert.is(typed.error?.body.code, 'unauthorized');
    assert.is((await new AgentClient({ baseUrl: url, token: 's3cret-token' }).run('hi')).data?.output, 'You said: hi');
  },
);

area.scenario(
  'bad input never reaches a 500: malformed JSON, unknown field, wrong type, missing or empty input',
  { rows: ['route:POST /run', 'route:POST /run/stream'], backends: 'none', surfaces: ['http'] },
  async (t) => {
    const url = await serve(t, weatherAgent());
    for (const route of ['/run', '/run/stream']) {
      const cases: Array<[string, number, string]> = [
        ['{"input": ', 400, 'invalid_json'],
        ['{"input": "x", "mode": "fast"}', 400, 'validation_failed'],
        ['{"input": 7}', 400, 'validation_failed'],
        ['{}', 400, 'validation_failed'],
        ['[]', 400, 'validation_failed'],
        ['{"input": "   "}', 400, 'empty_input'],
      ];
      for (const [body, status, code] of cases) {
        const response = await post(`${url}${route}`, body);
        assert.is(response.status, status, `${route} ${body}: ${response.text}`);
        assert.is(response.json().code, code, `${route} ${body}`);
        assert.type(response.json().detail, 'string');
      }
    }
    const empty = await new AgentClient({ baseUrl: url }).run('');
    assert.equal(empty.error, { status: 400, body: { detail: 'input must be non-empty', code: 'empty_input' } });
  },
);

area.scenario(
  'the body cap: 413 with Content-Length declared and when streamed without it',
  { rows: ['route:POST /run'], backends: 'none', surfaces: ['http'] },
  async (t) => {
    const url = await serve(t, weatherAgent(), { maxBodyBytes: 256 });
    const declared = await post(`${url}/run`, JSON.stringify({ input: 'x'.repeat(300) }));
    assert.is(declared.status, 413);
    assert.equal(declared.json(), { detail: 'request body exceeds 256 bytes', code: 'payload_too_large' });
    const chunked = await postChunked(`${url}/run`, ['{"input": "', ...Array.from({ length: 20 }, () => 'z'.repeat(32)), '"}']);
    assert.is(chunked.status, 413);
    assert.is(JSON.parse(chunked.body).code, 'payload_too_large');
    const under = await post(`${url}/run`, JSON.stringify({ input: 'small' }));
    assert.is(under.status, 200);
  },
);

area.scenario(
  'a blocking input guardrail is a 422; a run that raises is a 500 naming the error',
  { rows: ['route:POST /run', 'route:POST /run/stream'], backends: 'none', surfaces: ['http'] },
  async (t) => {
    const url = await serve(t, weatherAgent());
    for (const route of ['/run', '/run/stream']) {
      const blocked = await post(`${url}${route}`, JSON.stringify({ input: 'say something forbidden' }));
      assert.is(blocked.status, 422, route);
      assert.is(blocked.json().code, 'guardrail_blocked');
      assert.match(String(blocked.json().detail), /no_forbidden/);
    }
    const failed = await post(`${url}/run`, JSON.stringify({ input: 'explode' }));
    assert.is(failed.status, 500);
    assert.equal(failed.json(), { detail: 'the run failed: Error: the model exploded', code: 'internal_error' });
  },
);

area.scenario(
  '200 concurrent POST /run all answer 200, each with its own trace',
  { rows: ['route:POST /run'], backends: ['sqlite'], surfaces: ['http'], timeoutMs: 60_000 },
  async (t) => {
    const client = new AgentClient({ baseUrl: await serve(t, weatherAgent()) });
    const cities = Array.from({ length: 200 }, (_, i) => `City${i}`);
    const results = await Promise.all(cities.map((city) => client.run(`weather in ${city}`)));
    for (const [i, result] of results.entries()) {
      assert.ok(result.data, `request ${i}: ${JSON.stringify(result.error)}`);
      assert.is(result.data.output, `It is ${10 + (cities[i]!.length % 20)} degrees in ${cities[i]}.`);
    }
    const traceIds = new Set(results.map((r) => r.data!.trace_id));
    const executionIds = new Set(results.map((r) => r.data!.execution_id));
    assert.is(traceIds.size, 200);
    assert.is(executionIds.size, 200);
    await flushTraces();
    const listed = await new TraceStore({ dbPath: traceDb(t) }).listTraces({ lastHours: 1 });
    const stored = new Set(listed.filter((s) => s.name === 'agent.weather').map((s) => s.trace_id));
    for (const id of traceIds) assert.ok(stored.has(id!), `trace ${id} stored`);
  },
);

area.run();
