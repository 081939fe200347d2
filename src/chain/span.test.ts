import * as assert from 'uvu/assert';
import { SpanStatusCode, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { suite } from '../../test-support/uvu.js';
import { Chain } from './chain.js';

const test = suite<{ exporter: InMemorySpanExporter }>('chain root span', { state: { exporter: new InMemorySpanExporter() } });

test.before((ctx) => {
  // The tracing module installs the real provider; here a throwaway one records spans in memory.
  trace.setGlobalTracerProvider(new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter: ctx.exporter })] }));
});
test.after(() => {
  trace.disable();
});
test.beforeEach(({ exporter }) => exporter.reset());

test('a run is one root span chain.<name>; the result carries its trace id', async ({ exporter }) => {
  const chain = new Chain('greeter').addNode('hello', (state) => `hello ${String(state.input)}`);
  const result = await chain.run('ada', { executionId: 'e-span' });
  const spans = exporter.getFinishedSpans();
  assert.equal(
    spans.map((s) => s.name),
    ['chain.node.hello', 'chain.greeter'],
  );
  const span = spans[1]!;
  assert.equal(span.status, { code: SpanStatusCode.OK });
  const node = spans[0]!;
  assert.equal(node.attributes, {
    'chain.name': 'greeter',
    'chain.node.id': 'hello',
    'chain.node.index': 0,
    'chain.node.iteration': 0,
    'agentkit.execution_id': 'e-span',
    'chain.node.input': '{"input":"ada"}',
    'chain.node.output': 'hello ada',
  });
  assert.is(span.name, 'chain.greeter');
  assert.is(result.trace_id, span.spanContext().traceId);
  assert.match(result.trace_id!, /^[0-9a-f]{32}$/);
  assert.equal(span.attributes, {
    'chain.name': 'greeter',
    'chain.node_count': 1,
    'chain.node_ids': ['hello'],
    'chain.execution_id': 'e-span',
    'agentkit.runner.type': 'chain',
    'chain.input': 'ada',
    'chain.status': 'completed',
    'chain.output': 'hello ada',
  });
});

test('a failing run ends its span with ERROR; AGENTKIT_TRACE_PAYLOADS=0 keeps payloads out', async ({ exporter }) => {
  const chain = new Chain('broken').addNode('boom', () => {
    throw new Error('no luck');
  });
  process.env.AGENTKIT_TRACE_PAYLOADS = '0';
  try {
    await chain.run('secret input').catch(() => undefined);
  } finally {
    delete process.env.AGENTKIT_TRACE_PAYLOADS;
  }
  const [node, span] = exporter.getFinishedSpans();
  assert.equal(node!.status, { code: SpanStatusCode.ERROR, message: 'no luck' });
  assert.is(node!.attributes['chain.node.input'], undefined);
  assert.equal(span!.status, { code: SpanStatusCode.ERROR, message: 'no luck' });
  assert.is(span!.attributes['chain.input'], undefined);
  assert.is(span!.events[0]!.name, 'exception');
});

test.run();
