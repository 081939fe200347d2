/** The generated `/run/stream` reader yields typed events validated against the contract, and rejects bad frames. */
import * as assert from 'uvu/assert';
import { conformance } from '../harness/index.js';
import { readRunStreamEvents, StreamEventError } from '../../generated/clients/served-agent.js';
import type { RunStreamEvent } from '../../generated/types/served-agent.js';

const area = conformance('contract: /run/stream event reader');
const any = { backends: 'none', surfaces: ['sdk'] } as const;

function body(...chunks: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
}

async function collect(stream: ReadableStream<Uint8Array>): Promise<RunStreamEvent[]> {
  const events: RunStreamEvent[] = [];
  for await (const event of readRunStreamEvents(stream)) events.push(event);
  return events;
}

area.scenario('valid events arrive in order, typed, across chunk boundaries', any, async () => {
  const events = await collect(
    body(
      'data: {"type":"delta","text":"Hel',
      'lo"}\n\n: a comment\n\ndata: {"type":"tool_call","name":"refund","arguments":{"amount":5}}\r\n\r\n',
      'data: {"type":"paused","reason":"approval","execution_id":"e1","context":{"amount":5}}\n\n',
      'data: {"type":"done","execution_id":"e1","trace_id":null,"status":"paused"}\n\n',
    ),
  );
  assert.equal(
    events.map((e) => e.type),
    ['delta', 'tool_call', 'paused', 'done'],
  );
  const paused = events[2];
  assert.ok(paused?.type === 'paused');
  if (paused?.type === 'paused') assert.is(paused.execution_id, 'e1');
  const delta = events[0];
  if (delta?.type === 'delta') assert.is(delta.text, 'Hello');
});

area.scenario('a final frame without a trailing blank line is still delivered', any, async () => {
  const events = await collect(body('data: {"type":"done","execution_id":"e2","trace_id":"t2","status":"completed"}'));
  assert.equal(events, [{ type: 'done', execution_id: 'e2', trace_id: 't2', status: 'completed' }]);
});

area.scenario('a frame that is not JSON is rejected with StreamEventError', any, async () => {
  try {
    await collect(body('data: {"type":"delta","text":"ok"}\n\n', 'data: {not json\n\n'));
    assert.unreachable('a malformed frame must throw');
  } catch (error) {
    assert.instance(error, StreamEventError);
    assert.match((error as Error).message, /not JSON/);
    assert.is((error as StreamEventError).frame, '{not json');
  }
});

area.scenario('a JSON frame that is not a contract event is rejected', any, async () => {
  for (const frame of ['{"type":"paused","reason":"r"}', '{"type":"teleport"}', '{"type":"delta","text":3}']) {
    try {
      await collect(body(`data: ${frame}\n\n`));
      assert.unreachable(`frame ${frame} must throw`);
    } catch (error) {
      assert.instance(error, StreamEventError);
      assert.match((error as Error).message, /not a valid RunStreamEvent/);
    }
  }
});

area.run();
