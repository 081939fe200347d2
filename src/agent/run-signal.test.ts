/**
 * The rule behind a run's abort signal: no signal that outlives a run is the parent of (or stands in for) a per-run
 * or per-call signal. A long-lived signal handed to `AbortSignal.any()` on every model call keeps an entry for each
 * composite on Node 22 and 26, so a shared or pooled signal made every HTTP model call leak a few hundred bytes.
 * Stated here in our own terms: once a run given no signal has ended, the signals its model calls and tools were
 * given are garbage (a pooled or module-level signal would stay reachable), and two runs never share one.
 */
import * as assert from 'uvu/assert';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Type } from 'typebox';
import { suite } from '../../test-support/uvu.js';
import type { CallOptions, ChatRequest, LLMResponse } from '../llm/types.js';
import { ScriptedModel } from '../testing/index.js';
import { tool } from '../tools/index.js';
import { shutdownTracing } from '../tracing/setup.js';
import { Agent } from './agent.js';

const test = suite('agent: the abort signal of a run given none');

// Runs set tracing up for the process (even untraced ones); later test files install providers of their own.
test.after(() => shutdownTracing());

/** A full collection, available without starting the process with --expose-gc. */
function collector(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

/** A scripted model that remembers, weakly, the signal of every call. */
class SignalWatchingModel extends ScriptedModel {
  readonly seen: Array<WeakRef<AbortSignal>> = [];

  override async complete(request: ChatRequest, options: CallOptions = {}): Promise<LLMResponse> {
    if (options.signal) this.seen.push(new WeakRef(options.signal));
    return super.complete(request, options);
  }
}

test('the signals a finished run gave its model and tools are collected, and each run had its own', async () => {
  const gc = collector();
  const toolSignals: Array<WeakRef<AbortSignal>> = [];
  const lookup = tool({
    name: 'lookup',
    description: 'Look something up.',
    parameters: Type.Object({}),
    registry: false,
    execute: (_args, context) => {
      toolSignals.push(new WeakRef(context.signal));
      return 'found';
    },
  });
  const script = () => [{ toolCalls: [{ name: 'lookup', arguments: {} }] }, 'done'];
  const model = new SignalWatchingModel([...script(), ...script()]);
  const agent = new Agent({ name: 'watched', llm: model, tools: [lookup], trace: false });

  for (const input of ['first', 'second']) assert.is((await agent.run(input)).status, 'completed');
  assert.is(model.seen.length, 4, 'two model calls a run');
  assert.is(toolSignals.length, 2, 'one tool call a run');
  // Compared in a function of their own, so no local of this one keeps a signal alive for the collection below.
  const [separate, toolGotRunSignal] = ((first, second) => [first !== second, toolSignals[0]!.deref() === first])(
    model.seen[0]!.deref(),
    model.seen[2]!.deref(),
  );
  assert.ok(separate, 'two runs never share a signal');
  assert.ok(toolGotRunSignal, "the tool gets its run's signal");

  // Let the runs' last callbacks and timers settle, then collect.
  for (let i = 0; i < 3; i++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
    gc();
  }
  const alive = [...model.seen, ...toolSignals].filter((ref) => ref.deref() !== undefined).length;
  assert.is(alive, 0, 'no signal of a finished run is still reachable');
});

test.run();
