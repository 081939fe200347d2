/**
 * The run's abort signal over an AI SDK model (docs/adr/0001): an abort mid-stream or mid-call rejects with the
 * signal's reason even when the model ignores the signal, the provider's stream is cancelled, and nothing is left
 * registered on the signal afterwards: no listener (Node's `getEventListeners`), and nothing reachable from it (held
 * weakly by the test, collected after a full GC).
 */
import * as assert from 'uvu/assert';
import type { LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { MockLanguageModelV4 } from 'ai/test';
import { getEventListeners } from 'node:events';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Type } from 'typebox';
import { generated, streamed, turnParts } from '../../../test-support/ai-sdk-v4.js';
import { suite } from '../../../test-support/uvu.js';
import { Agent } from '../../agent/agent.js';
import { tool } from '../../tools/index.js';
import { shutdownTracing } from '../../tracing/setup.js';
import { aiSdkModel } from './model.js';

const test = suite('llm: AI SDK models and the abort signal');

// Runs set tracing up for the process (even untraced ones); later test files install providers of their own.
test.after(() => shutdownTracing());

/** A full collection, available without starting the process with --expose-gc. */
function collector(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

async function settle(gc: () => void): Promise<void> {
  for (let i = 0; i < 3; i++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
    gc();
  }
}

/** A provider stream that sends `first` and then nothing, ever; it records why it was cancelled. */
function stalledStream(first: LanguageModelV4StreamPart[], cancelled: unknown[]): ReadableStream<LanguageModelV4StreamPart> {
  return new ReadableStream<LanguageModelV4StreamPart>({
    start(controller) {
      for (const part of first) controller.enqueue(part);
    },
    cancel(reason) {
      cancelled.push(reason ?? 'cancelled');
    },
  });
}

async function rejection(work: () => Promise<unknown>): Promise<unknown> {
  try {
    await work();
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

test('an abort mid-stream rejects with its reason, cancels the provider stream and leaves no listener', async () => {
  const cancelled: unknown[] = [];
  const mock = new MockLanguageModelV4({ doStream: async () => ({ stream: stalledStream([{ type: 'text-delta', id: 't', delta: 'Hel' }], cancelled) }) });
  const model = aiSdkModel(mock);
  const controller = new AbortController();
  const reason = new Error('the user went away');
  const seen: string[] = [];
  const error = await rejection(async () => {
    for await (const event of model.stream({ messages: [{ role: 'user', content: 'hi' }] }, { signal: controller.signal })) {
      seen.push(event.type);
      // The model ignores its signal and sends nothing more: only agentkit's own watch can end the wait.
      setTimeout(() => controller.abort(reason), 5);
    }
  });
  assert.is(error, reason, "the call rejects with the signal's reason");
  assert.equal(seen, ['text_delta']);
  assert.equal(cancelled, [reason], 'the provider stream was cancelled with the reason');
  assert.is(mock.doStreamCalls[0]!.abortSignal, controller.signal, 'the model was given the signal itself');
  assert.is(getEventListeners(controller.signal, 'abort').length, 0, 'no listener left on the signal');
});

test('an abort while the call is pending rejects at once even when the model ignores it; a stream that arrives late is cancelled', async () => {
  let answer: (() => void) | undefined;
  const cancelled: unknown[] = [];
  const mock = new MockLanguageModelV4({
    doGenerate: () => new Promise(() => {}),
    doStream: () => new Promise((resolve) => (answer = () => resolve({ stream: stalledStream([], cancelled) }))),
  });
  const model = aiSdkModel(mock);

  const first = new AbortController();
  setTimeout(() => first.abort(new Error('stop generating')), 5);
  const generating = await rejection(() => model.complete({ messages: [{ role: 'user', content: 'hi' }] }, { signal: first.signal }));
  assert.equal((generating as Error).message, 'stop generating');
  assert.is(getEventListeners(first.signal, 'abort').length, 0);

  const second = new AbortController();
  setTimeout(() => second.abort(new Error('stop streaming')), 5);
  const streaming = await rejection(async () => {
    for await (const _ of model.stream({ messages: [{ role: 'user', content: 'hi' }] }, { signal: second.signal })) assert.unreachable();
  });
  assert.equal((streaming as Error).message, 'stop streaming');
  assert.is(getEventListeners(second.signal, 'abort').length, 0);
  answer!();
  await new Promise((resolve) => setTimeout(resolve, 5));
  assert.is(cancelled.length, 1, 'the stream that came after the abort was cancelled');

  const already = AbortSignal.abort(new Error('too late'));
  assert.equal(((await rejection(() => model.complete({ messages: [{ role: 'user', content: 'hi' }] }, { signal: already }))) as Error).message, 'too late');
  assert.is(mock.doGenerateCalls.length, 1, 'an aborted signal starts no call');
});

test('calls under one long-lived signal leave nothing on it: no listener, and every stream they read is collected', async () => {
  const gc = collector();
  const streams: Array<WeakRef<object>> = [];
  const mock = new MockLanguageModelV4({
    doGenerate: async () => generated({ text: 'whole' }),
    doStream: async () => {
      const result = streamed(turnParts({ text: 'one two three', toolCalls: [{ id: 'c1', name: 'lookup', input: {} }] }));
      streams.push(new WeakRef(result.stream));
      return result;
    },
  });
  const model = aiSdkModel(mock);
  const caller = new AbortController();
  const signal = caller.signal;
  for (let i = 0; i < 20; i++) {
    await model.complete({ messages: [{ role: 'user', content: `complete ${i}` }] }, { signal });
    for await (const _ of model.stream({ messages: [{ role: 'user', content: `stream ${i}` }] }, { signal }));
    // A consumer that stops after the first event.
    for await (const _ of model.stream({ messages: [{ role: 'user', content: `stop ${i}` }] }, { signal })) break;
    assert.is(getEventListeners(signal, 'abort').length, 0, `no listener after round ${i}`);
  }
  // The mock keeps every call's options (they hold the signal, not the streams); only our code could keep a stream.
  mock.doGenerateCalls.length = 0;
  mock.doStreamCalls.length = 0;
  await settle(gc);
  assert.is(streams.length, 40);
  assert.is(streams.filter((ref) => ref.deref() !== undefined).length, 0, 'no stream of a finished call is still reachable');
  assert.not.ok(signal.aborted);
});

test('an Agent streaming from an AI SDK model: an abort mid-stream rejects the run, and the signals its calls got are collected', async () => {
  const gc = collector();
  const lookup = tool({
    name: 'lookup',
    description: 'Look something up.',
    parameters: Type.Object({}),
    registry: false,
    execute: () => 'found',
  });
  const seenSignals: Array<WeakRef<AbortSignal>> = [];
  const cancelled: unknown[] = [];
  let call = 0;
  const mock = new MockLanguageModelV4({
    doStream: async (options) => {
      seenSignals.push(new WeakRef(options.abortSignal!));
      // Each run: a tool call first, then an answer that stalls after its first word.
      if (call++ % 2 === 0) return streamed(turnParts({ toolCalls: [{ id: `c${call}`, name: 'lookup', input: {} }] }));
      return { stream: stalledStream([{ type: 'text-delta', id: 't', delta: 'Almost ' }], cancelled) };
    },
  });
  const agent = new Agent({ name: 'watched', llm: aiSdkModel(mock), tools: [lookup], trace: false });

  for (let run = 0; run < 3; run++) {
    const controller = new AbortController();
    const reason = new Error(`run ${run} cancelled`);
    const types: string[] = [];
    const error = await rejection(async () => {
      for await (const event of agent.stream('look it up', { signal: controller.signal })) {
        types.push(event.type);
        if (event.type === 'text_delta') controller.abort(reason);
      }
    });
    assert.is(error, reason);
    assert.equal(types, ['tool_call_start', 'tool_call_end', 'usage', 'tool_result', 'text_delta']);
    assert.is(getEventListeners(controller.signal, 'abort').length, 0);
  }
  assert.is(cancelled.length, 3, 'each stalled provider stream was cancelled');
  mock.doStreamCalls.length = 0;
  await settle(gc);
  assert.is(seenSignals.length, 6);
  assert.is(seenSignals.filter((ref) => ref.deref() !== undefined).length, 0, 'no signal a finished run gave its model is still reachable');
});

test.run();
