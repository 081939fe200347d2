/**
 * `jobScope` and `Replay.fromPlatform` against the local Platform: 50 concurrent jobs in one process, each with its
 * own key, project and tools: every request a job causes carries the job's key (proved on the Platform's request log
 * and stored rows), each job sees its own tool under a shared name, tools created inside a job stay in it, spans
 * carry the job's project id, and nothing leaks between jobs or into the global state. A job's `normalize` flag adds
 * agentkit's canonical attribute keys to the spans written inside it (agentkit's own and other instrumentations'),
 * and its `framework` is recorded as `agentkit.framework` on the root span of its traces.
 */
import * as assert from 'uvu/assert';
import path from 'node:path';
import { trace } from '@opentelemetry/api';
import {
  connect,
  currentToolRegistry,
  defaultToolRegistry,
  disconnect,
  drainReplication,
  jobScope,
  NotFoundError,
  PlatformAuthError,
  Replay,
  ReplayError,
  resolveConnection,
  SQLiteCheckpointer,
  tool,
} from '../../src/index.js';
import { ensureTracing, flushTraces, TraceStore } from '../../src/tracing/index.js';
import { withSpan, withTraceDestination } from '../../src/tracing/spans.js';
import { fiveSteps } from '../fixtures/durability/chains.js';
import { conformance, startPlatform } from '../harness/index.js';

const area = conformance('connected: jobScope and Replay.fromPlatform');
const JOBS = 50;
const keyOf = (i: number) => `ak_job_${String(i).padStart(2, '0')}_0123456789abcdef`;
const pause = () => new Promise((resolve) => setTimeout(resolve, Math.random() * 20));

area.scenario(
  '50 concurrent jobs with different keys and tools: each request carries its own key, no tool leaks',
  // 50 stores opened at once: a loaded 2-core machine needs well over a minute.
  { backends: ['sqlite'], timeoutMs: 150_000 },
  async (t) => {
    const keys = Array.from({ length: JOBS }, (_, i) => keyOf(i));
    const platform = await startPlatform({
      dir: t.cwd,
      apiKeys: [...keys.map((key, i) => ({ key, project: `project-${i}` })), { key: 'ak_global_key_0000000', project: 'global' }],
    });
    t.defer(() => platform.stop());
    t.defer(() => disconnect());
    await connect({ apiKey: 'ak_global_key_0000000', target: platform.url, project: 'global' });
    const globalLookup = tool({ name: 'lookup', execute: () => 'global' });
    t.defer(() => defaultToolRegistry.unregister('lookup'));

    const results = await Promise.all(
      keys.map((apiKey, i) =>
        jobScope({ apiKey, project: `project-${i}`, tools: [tool({ name: 'lookup', registry: false, execute: () => `job-${i}` })] }, async () => {
          await pause();
          const connection = resolveConnection()!;
          assert.equal(
            [connection.apiKey, connection.project, connection.target],
            [apiKey, `project-${i}`, platform.url],
            'target inherited from the global connection',
          );
          const lookup = currentToolRegistry().get('lookup')!;
          const own = await lookup.execute({}, {} as never);
          tool({ name: `made_in_${i}`, execute: () => i });
          await pause();
          const seenOthers = keys.map((_, j) => currentToolRegistry().get(`made_in_${j}`) !== undefined).filter(Boolean).length;
          const project = await withSpan(
            'job.probe',
            {},
            async (span) => (span as unknown as { attributes: Record<string, unknown> }).attributes['agentkit.project_id'],
          );
          const checkpointer = new SQLiteCheckpointer(path.join(t.cwd, `job-${i}`, 'local.db'));
          try {
            await fiveSteps(checkpointer).run({ total: 0 }, { executionId: `job-exec-${i}` });
            const drained = await drainReplication(checkpointer);
            return { own, seenOthers, project, drained: drained?.outcome, rows: (await checkpointer.list(`job-exec-${i}`)).length };
          } finally {
            await checkpointer.close();
          }
        }),
      ),
    );
    results.forEach((r, i) => {
      assert.equal([r.own, r.seenOthers, r.project, r.drained], [`job-${i}`, 1, `project-${i}`, 'drained'], `job ${i}`);
    });
    assert.is(currentToolRegistry().get('lookup'), globalLookup, 'outside every job the global tool is back');
    assert.ok(
      defaultToolRegistry.names().every((name) => !name.startsWith('made_in_')),
      'tools made inside jobs stayed in them',
    );
    assert.is(resolveConnection()!.project, 'global');

    const rows = await platform.read((s) => s.checkpoints());
    assert.is(
      rows.length,
      results.reduce((n, r) => n + r.rows, 0),
    );
    for (const row of rows) {
      const i = Number(/^job-exec-(\d+)$/.exec(row.body.execution_id as string)![1]);
      assert.equal([row.key_id, row.project], [platform.keyId(keyOf(i)), `project-${i}`], `rows of job ${i} went with its key`);
    }
    const ingests = (await platform.read((s) => s.requests())).filter((r) => r.route === 'POST /public/v1/checkpoints/ingest');
    assert.ok(ingests.length >= JOBS);
    assert.ok(
      ingests.every((r) => keys.some((k) => platform.keyId(k) === r.key_id)),
      'no ingest used the global key',
    );
  },
);

area.scenario(
  'jobScope normalize and framework: canonical keys on the spans of a normalizing job, its framework on its root span, nothing elsewhere',
  { backends: ['sqlite'], timeoutMs: 30_000 },
  async (t) => {
    ensureTracing();
    const db = path.join(t.cwd, 'jobs-traces.db');
    // One trace: an agentkit root span, a span another instrumentation makes (OpenInference keys, through the global
    // provider), and an agentkit span carrying an OpenTelemetry GenAI key.
    const traced = (label: string) =>
      withTraceDestination(db, () =>
        withSpan(`job.${label}`, {}, async (root) => {
          await pause();
          await trace
            .getTracer('foreign-instrumentation')
            .startActiveSpan(
              'ChatModel',
              { attributes: { 'openinference.span.kind': 'LLM', 'llm.model_name': 'gpt-4o-mini', 'llm.token_count.prompt': 12 } },
              async (span) => {
                await pause();
                span.end();
              },
            );
          await withSpan('step.lookup', { attributes: { 'gen_ai.tool.name': 'lookup' } }, async () => pause());
          return root.spanContext().traceId;
        }),
      );
    const [normalized, framed, outside] = await Promise.all([
      jobScope({ normalize: true, framework: 'langgraph' }, () => traced('normalized')),
      jobScope({ framework: 'crewai' }, () => traced('framed')),
      traced('outside'),
    ]);
    await flushTraces();
    const store = new TraceStore({ dbPath: db });
    const attributesOf = async (traceId: string) =>
      Object.fromEntries((await store.spans(traceId)).map((s) => [s.name, s.attributes as Record<string, unknown>]));

    const a = await attributesOf(normalized);
    assert.is(a['job.normalized']!['agentkit.framework'], 'langgraph', 'the job framework on its root span');
    assert.is(a.ChatModel!['agentkit.framework'], undefined, 'only on the root span');
    assert.equal(
      [a.ChatModel!['agentkit.runner.type'], a.ChatModel!['gen_ai.request.model'], a.ChatModel!['gen_ai.usage.input_tokens'], a.ChatModel!['llm.model_name']],
      ['llm', 'gpt-4o-mini', 12, 'gpt-4o-mini'],
      'the foreign span got the canonical keys and kept its own',
    );
    assert.is(a['step.lookup']!['agentkit.tool.name'], 'lookup');

    const b = await attributesOf(framed);
    assert.is(b['job.framed']!['agentkit.framework'], 'crewai');
    assert.equal(
      [b.ChatModel!['agentkit.runner.type'], b.ChatModel!['gen_ai.request.model'], b['step.lookup']!['agentkit.tool.name']],
      [undefined, undefined, undefined],
      'normalize is off unless the job asks',
    );

    const c = await attributesOf(outside);
    assert.equal(
      [c['job.outside']!['agentkit.framework'], c.ChatModel!['agentkit.runner.type'], c['step.lookup']!['agentkit.tool.name']],
      [undefined, undefined, undefined],
      'outside every job: as recorded',
    );
  },
);

area.scenario('Replay.fromPlatform loads a Platform trace as steps; unknown trace; not connected', { backends: ['sqlite'], timeoutMs: 30_000 }, async (t) => {
  const platform = await startPlatform({ dir: t.cwd, apiKeys: ['ak_replay_key_000000'] });
  t.defer(() => platform.stop());
  t.defer(() => disconnect());
  const traceId = '0123456789abcdef0123456789abcdef';
  // Stored as OTLP ingestion stores them: a root span and its child, with their attributes.
  const span = (span_id: string, parent: string | null, name: string, attributes: Record<string, string>, start: string, end: string | null) => ({
    trace_id: traceId,
    span_id,
    parent_span_id: parent,
    name,
    kind: 1,
    start_time: start,
    end_time: end,
    status: 'OK' as const,
    status_message: null,
    attributes,
    events: [],
    resource: { 'service.name': 'desk' },
    scope: 'agentkit',
  });
  await platform.putSpans([
    span(
      'a1a1a1a1a1a1a1a1',
      null,
      'agent.desk',
      { 'agent.input': 'refund 42', 'agent.output': 'done' },
      '2026-01-01T00:00:00.000Z',
      '2026-01-01T00:00:01.000Z',
    ),
    span('b2b2b2b2b2b2b2b2', 'a1a1a1a1a1a1a1a1', 'tool.refund', { 'tool.input': '{"order":42}', 'tool.output': 'ok' }, '2026-01-01T00:00:00.500Z', null),
  ]);
  const offline = await Replay.fromPlatform(traceId).catch((e: unknown) => e);
  assert.instance(offline, ReplayError);
  assert.match((offline as Error).message, /needs connected mode: call connect\(\) first/);

  const refused = await connect({ apiKey: 'ak_wrong_key_0000000', target: platform.url }).catch((e: unknown) => e);
  assert.instance(refused, PlatformAuthError);
  assert.is(resolveConnection(), null, 'a refused key leaves the process unconnected');
  await connect({ apiKey: 'ak_replay_key_000000', target: platform.url });
  const replay = await Replay.fromPlatform(traceId);
  assert.is(replay.traceId, traceId);
  assert.equal(
    replay.steps().map((s) => [s.step, s.span_name, s.span_id]),
    [
      [0, 'agent.desk', 'a1a1a1a1a1a1a1a1'],
      [1, 'tool.refund', 'b2b2b2b2b2b2b2b2'],
    ],
  );
  assert.equal(replay.inspect(1).input, { 'tool.input': { order: 42 } });
  assert.equal(
    replay.trace.spans.map((s) => [s.span_id, s.parent_span_id, s.attributes['tool.output'] ?? null]),
    [
      ['a1a1a1a1a1a1a1a1', null, null],
      ['b2b2b2b2b2b2b2b2', 'a1a1a1a1a1a1a1a1', 'ok'],
    ],
    'parent links and attributes kept from the Platform',
  );
  const missing = await Replay.fromPlatform('f'.repeat(32)).catch((e: unknown) => e);
  assert.instance(missing, NotFoundError);
  assert.is((missing as NotFoundError).code, 'trace_not_found');
});

area.run();
