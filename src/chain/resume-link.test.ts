/**
 * A chain's resume root links to its paused run's root (docs/adr/0059), as an agent's does: an OpenTelemetry link at
 * span start, which exported spans carry, and the same pointer as `agentkit.resumed_from.*` attributes in the store.
 * Real SQLite store and checkpointer in a temp dir, a real OTLP/HTTP receiver on 127.0.0.1.
 */
import * as assert from 'uvu/assert';
import path from 'node:path';
import { type OtlpReceiver, withOtlpReceiver } from '../../test-support/otlp-receiver.js';
import { suite } from '../../test-support/uvu.js';
import { SQLiteCheckpointer } from '../durability/sqlite-checkpointer.js';
import { interrupt } from '../durability/interrupt.js';
import { flushTraces } from '../tracing/setup.js';
import { withTraceDestination } from '../tracing/spans.js';
import { TraceStore } from '../tracing/trace-store.js';
import { Chain } from './chain.js';

const test = suite<{ dir: string; receiver: OtlpReceiver }>('chain: a resume links to its pause', { state: {} as { dir: string; receiver: OtlpReceiver } });

withOtlpReceiver(test, 'agentkit-chain-resume-link-');

test('the resume root starts with a link to the pause root and keeps it as resumed_from attributes', async (s) => {
  const db = path.join(s.dir, 'local.db');
  const checkpointer = new SQLiteCheckpointer(db);
  const chain = new Chain('refund', { checkpointer })
    .addNode('approval', () => ({ approved: interrupt('manager_approval', { amount: 5 }).approved }))
    .addNode('finalize', (state) => ({ receipt: state.approved ? 'refunded' : 'declined' }))
    .connect('approval', 'finalize');
  const paused = await withTraceDestination(db, () => chain.run({}));
  assert.is(paused.status, 'paused');
  const resumed = await withTraceDestination(db, () => chain.resume(paused.execution_id, { resumeValue: { approved: true, metadata: {} } }));
  assert.is(resumed.status, 'completed');
  assert.ok(resumed.trace_id && paused.trace_id && resumed.trace_id !== paused.trace_id, 'two traces');
  await flushTraces();

  const exported = s.receiver.spans();
  const pauseRoot = exported.find((x) => x.traceId === paused.trace_id && x.parentSpanId === '')!;
  const resumeRoot = exported.find((x) => x.traceId === resumed.trace_id && x.parentSpanId === '')!;
  assert.ok(pauseRoot && resumeRoot, 'both roots exported');
  assert.is(resumeRoot.name, 'chain.refund');
  assert.equal(resumeRoot.links, [{ traceId: paused.trace_id, spanId: pauseRoot.spanId, attributes: { 'agentkit.link.kind': 'resumed_from' } }]);

  const store = new TraceStore({ dbPath: db });
  const root = (await store.spans(resumed.trace_id!)).find((x) => x.parent_span_id === null)!;
  assert.equal([root.attributes['agentkit.resumed_from.trace_id'], root.attributes['agentkit.resumed_from.span_id']], [paused.trace_id, pauseRoot.spanId]);
  await store.close();
  await checkpointer.close();
});

test.run();
