/**
 * A resume's root span links to its paused run's root (docs/adr/0059): an OpenTelemetry link at span start, which
 * exported spans carry, and the same pointer as `agentkit.resumed_from.*` attributes in the store; the resumed call
 * records the decision. Real SQLite store and checkpointer in a temp dir, a real OTLP/HTTP receiver on 127.0.0.1.
 */
import * as assert from 'uvu/assert';
import path from 'node:path';
import { Type } from 'typebox';
import { type OtlpReceiver, withOtlpReceiver } from '../../test-support/otlp-receiver.js';
import { suite } from '../../test-support/uvu.js';
import { SQLiteCheckpointer } from '../durability/sqlite-checkpointer.js';
import { interrupt } from '../durability/interrupt.js';
import { FunctionModel } from '../testing/index.js';
import { tool } from '../tools/index.js';
import { flushTraces } from '../tracing/setup.js';
import { TraceStore } from '../tracing/trace-store.js';
import { Agent } from './agent.js';

const test = suite<{ dir: string; receiver: OtlpReceiver }>('agent: a resume links to its pause', { state: {} as { dir: string; receiver: OtlpReceiver } });

withOtlpReceiver(test, 'agentkit-resume-link-');

test('the resume root starts with a link to the pause root; the resumed call records the decision', async (s) => {
  const db = path.join(s.dir, 'local.db');
  const checkpointer = new SQLiteCheckpointer(db);
  const approve = tool({
    name: 'approve_refund',
    replayClass: 'side_effecting',
    registry: false,
    parameters: Type.Object({ amount: Type.Number() }),
    execute: ({ amount }) => (interrupt('refund_approval', { amount }).approved ? 'approved' : 'declined'),
  });
  const model = new FunctionModel((messages) =>
    messages.at(-1)!.role === 'user' ? { toolCalls: [{ name: 'approve_refund', arguments: { amount: 5 } }] } : 'Done.',
  );
  const agent = new Agent({ name: 'desk', systemPrompt: 'Refund.', llm: model, tools: [approve], checkpointer, traceDb: db });
  const paused = await agent.run('Refund 5');
  assert.is(paused.status, 'paused');
  const resumed = await agent.resume(paused.execution_id, { resumeValue: { approved: true, metadata: { ticket: 'T-1' } }, approver: 'carol' });
  assert.is(resumed.status, 'completed');
  await flushTraces();

  const exported = s.receiver.spans();
  const pauseRoot = exported.find((x) => x.traceId === paused.trace_id && x.parentSpanId === '')!;
  const resumeRoot = exported.find((x) => x.traceId === resumed.trace_id && x.parentSpanId === '')!;
  assert.ok(pauseRoot && resumeRoot, 'both roots exported');
  assert.equal(resumeRoot.links, [{ traceId: paused.trace_id, spanId: pauseRoot.spanId, attributes: { 'agentkit.link.kind': 'resumed_from' } }]);
  assert.is(pauseRoot.attributes['agentkit.status'], 'paused');

  const store = new TraceStore({ dbPath: db });
  const spans = await store.spans(resumed.trace_id!);
  const root = spans.find((x) => x.parent_span_id === null)!;
  assert.equal(
    [root.attributes['agentkit.resumed_from.trace_id'], root.attributes['agentkit.resumed_from.span_id'], root.attributes['agent.execution_id']],
    [paused.trace_id, pauseRoot.spanId, paused.execution_id],
  );
  const call = spans.find((x) => x.name === 'tool.approve_refund')!;
  const decision = call.events.find((e) => e.name === 'agentkit.decision')!;
  assert.equal(decision.attributes, {
    'agentkit.decision.approved': true,
    'agentkit.decision.metadata': '{"ticket":"T-1"}',
    'agentkit.decision.decided_by': 'carol',
    'agentkit.decision.surface': 'sdk',
    'agentkit.decision.decided_at': decision.attributes!['agentkit.decision.decided_at'],
    'agentkit.interrupt.reason': 'refund_approval',
  });
  assert.match(String(decision.attributes!['agentkit.decision.decided_at']), /^\d{4}-\d\d-\d\dT/);
  await checkpointer.close();
});

test.run();
