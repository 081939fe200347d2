import * as assert from 'uvu/assert';
import { suite } from '../../test-support/uvu.js';
import { readSse, type SseEvent } from './sse.js';

const test = suite('llm: SSE reader');

function body(pieces: Array<string | Uint8Array>): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const piece of pieces) controller.enqueue(typeof piece === 'string' ? encoder.encode(piece) : piece);
      controller.close();
    },
  });
}

async function all(stream: ReadableStream<Uint8Array>): Promise<SseEvent[]> {
  const out: SseEvent[] = [];
  for await (const event of readSse(stream)) out.push(event);
  return out;
}

test('events, multi-line data, comments, event names and every line ending', async () => {
  const events = await all(
    body([': comment\n', 'event: message_start\ndata: {"a":1}\n\n', 'data: line one\r\ndata: line two\r\n\r\n', 'data:no-space\r\rdata: last']),
  );
  assert.equal(events, [
    { event: 'message_start', data: '{"a":1}' },
    { event: 'message', data: 'line one\nline two' },
    { event: 'message', data: 'no-space' },
    { event: 'message', data: 'last' },
  ]);
});

test('chunks split anywhere, even inside a multi-byte character or between CR and LF', async () => {
  const text = 'data: {"text":"héllo ✓"}\r\n\r\ndata: [DONE]\r\n\r\n';
  const bytes = new TextEncoder().encode(text);
  for (const size of [1, 2, 3, 5, 7]) {
    const pieces: Uint8Array[] = [];
    for (let i = 0; i < bytes.length; i += size) pieces.push(bytes.slice(i, i + size));
    assert.equal(
      await all(body(pieces)),
      [
        { event: 'message', data: '{"text":"héllo ✓"}' },
        { event: 'message', data: '[DONE]' },
      ],
      `pieces of ${size}`,
    );
  }
});

test('a blank line without data dispatches nothing; onChunk runs per chunk', async () => {
  let chunks = 0;
  const events: SseEvent[] = [];
  for await (const event of readSse(body(['\n\nevent: ping\n\n', 'data: x\n\n']), () => chunks++)) events.push(event);
  assert.equal(events, [{ event: 'message', data: 'x' }]);
  assert.is(chunks, 2);
});

test('stopping early cancels the body', async () => {
  let cancelled = false;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      controller.enqueue(new TextEncoder().encode('data: more\n\n'));
    },
    cancel() {
      cancelled = true;
    },
  });
  for await (const _ of readSse(stream)) break;
  assert.ok(cancelled);
});

test.run();
