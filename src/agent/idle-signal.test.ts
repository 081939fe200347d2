import * as assert from 'uvu/assert';
import { suite } from '../../conformance/harness/uvu.js';
import { ScriptedModel } from '../testing/index.js';
import { tool } from '../tools/index.js';
import { shutdownTracing } from '../tracing/setup.js';
import { Agent } from './agent.js';
import { pooledIdleSignals, releaseIdleSignal, takeIdleSignal } from './idle-signal.js';

const test = suite('agent: the signal of a run given none, pooled');

// Runs set tracing up for the process (even untraced ones); later test files install providers of their own.
test.after(() => shutdownTracing());

test('a released signal with no abort listener is handed out again; one still listened to is not', () => {
  const first = takeIdleSignal();
  assert.is(first.aborted, false);
  releaseIdleSignal(first);
  const again = takeIdleSignal();
  assert.is(again, first, 'the pooled signal is reused');
  const listened = takeIdleSignal();
  assert.is.not(listened, first);
  listened.addEventListener('abort', () => {});
  const before = pooledIdleSignals();
  releaseIdleSignal(listened);
  assert.is(pooledIdleSignals(), before, 'a signal with a listener left on it is dropped');
  releaseIdleSignal(again);
  assert.is(takeIdleSignal(), first);
});

test("runs without a signal share pooled ones, one at a time; a tool's leftover listener keeps its signal out of the pool", async () => {
  const seen: AbortSignal[] = [];
  let leaveListener = false;
  const probe = tool({
    name: 'probe',
    registry: false,
    execute: (_args, ctx) => {
      seen.push(ctx.signal);
      if (leaveListener) ctx.signal.addEventListener('abort', () => {});
      return 'ok';
    },
  });
  const agent = () => new Agent({ name: 'pool', llm: new ScriptedModel([{ toolCalls: [{ name: 'probe' }] }, 'done']), tools: [probe], trace: false });
  // Two runs at once get two signals; the next run after them gets one of those back.
  await Promise.all([agent().run('a'), agent().run('b')]);
  assert.is(seen.length, 2);
  assert.is.not(seen[0], seen[1], 'concurrent runs never share a signal');
  for (const signal of seen) assert.is(signal.aborted, false);
  await agent().run('c');
  assert.ok(seen[2] === seen[0] || seen[2] === seen[1], 'a later run reuses a pooled signal');
  // A tool that leaves a listener behind: its run's signal is not pooled, so no later run gets it.
  leaveListener = true;
  await agent().run('d');
  const leftBehind = seen[3]!;
  leaveListener = false;
  for (let i = 0; i < 4; i++) await agent().run('e');
  assert.ok(seen.slice(4).every((signal) => signal !== leftBehind), 'the listened-to signal is never handed out again');
  // A caller's own signal is the run's, and is never pooled.
  const controller = new AbortController();
  await agent().run('f', { signal: controller.signal });
  assert.is(seen.at(-1), controller.signal);
  assert.ok(takeIdleSignal() !== controller.signal);
});

test.run();
