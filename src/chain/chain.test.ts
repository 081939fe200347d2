import * as assert from 'uvu/assert';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { suite } from '../../test-support/uvu.js';
import { ChainCheckpointError } from '../durability/errors.js';
import { interrupt } from '../durability/interrupt.js';
import { SQLiteCheckpointer } from '../durability/sqlite-checkpointer.js';
import { ValidationError } from '../errors.js';
import { currentScope } from '../scope/scope.js';
import { Chain } from './chain.js';
import { ChainCycleError, ChainError, ChainRoutingError } from './errors.js';

const test = suite('Chain (in memory)');

test('state: objects merge, outputKey stores, other outputs go to _<id>_output; output is the last node output', async () => {
  const chain = new Chain('shapes')
    .addNode('obj', () => ({ a: 1 }))
    .addNode('keyed', () => [1, 2], { outputKey: 'list' })
    .addNode('scalar', (state) => (state.a as number) * 10)
    .addNode('nothing', () => undefined)
    .connect('obj', 'keyed')
    .connect('keyed', 'scalar')
    .connect('scalar', 'nothing');
  const result = await chain.run('in', { state: { seed: true } });
  assert.equal(result.final_state, { seed: true, input: 'in', a: 1, list: [1, 2], _scalar_output: 10 });
  assert.is(result.output, undefined);
  assert.equal(result.node_results, { obj: { a: 1 }, keyed: [1, 2], scalar: 10, nothing: undefined });
  assert.is(result.status, 'completed');
  assert.match(result.execution_id, /^[0-9a-f-]{36}$/);
});

test('nodes get a private copy of the state, the context and their position', async () => {
  const seen: unknown[] = [];
  const chain = new Chain('copies')
    .addNode('mutate', (state, ctx) => {
      (state.list as number[]).push(99);
      seen.push([ctx.nodeId, ctx.iteration, ctx.context, ctx.chainName, ctx.resumed]);
      return { touched: true };
    })
    .addNode('read', (state, ctx) => {
      seen.push([ctx.nodeId, ctx.iteration, state.list]);
    })
    .connect('mutate', 'read');
  await chain.run(undefined, { state: { list: [1] }, context: { user: 'u1' }, executionId: 'e1' });
  assert.equal(seen, [
    ['mutate', 0, { user: 'u1' }, 'copies', null],
    ['read', 1, [1]],
  ]);
});

test('conditions route to the first match, an unconditional edge is the fallback, no match ends the run', async () => {
  const build = (strictRouting = false) =>
    new Chain('route', { strictRouting })
      .addNode('check', () => undefined)
      .addNode('big', () => ({ path: 'big' }))
      .addNode('small', () => ({ path: 'small' }))
      .connect('check', 'big', { condition: (s) => (s.amount as number) > 100 })
      .connect('check', 'small', { condition: (s) => (s.amount as number) > 10 });
  assert.is((await build().run(null, { state: { amount: 500 } })).final_state.path, 'big');
  assert.is((await build().run(null, { state: { amount: 50 } })).final_state.path, 'small');
  const none = await build().run(null, { state: { amount: 5 } });
  assert.equal(Object.keys(none.node_results), ['check']);
  try {
    await build(true).run(null, { state: { amount: 5 } });
    assert.unreachable();
  } catch (error) {
    assert.instance(error, ChainRoutingError);
    assert.match((error as Error).message, "no edge out of 'check' matched");
  }
  const fallback = build()
    .addNode('other', () => ({ path: 'other' }))
    .connect('check', 'other');
  assert.is((await fallback.run(null, { state: { amount: 5 } })).final_state.path, 'other');
});

test('cycles loop until their condition stops them, capped by maxIterations', async () => {
  const loop = (maxIterations?: number) =>
    new Chain('loop', { maxIterations: 10 })
      .addNode('draft', (s) => ({ drafts: ((s.drafts as number | undefined) ?? 0) + 1 }))
      .addNode('review', () => undefined)
      .addNode('publish', () => ({ published: true }))
      .connect('draft', 'review')
      .connect('review', 'draft', { condition: (s) => (s.drafts as number) < (s.want as number), maxIterations })
      .connect('review', 'publish');
  const ok = await loop().run(null, { state: { want: 3 } });
  assert.equal(ok.final_state, { input: null, want: 3, drafts: 3, published: true });
  try {
    await loop(2).run(null, { state: { want: 5 } });
    assert.unreachable();
  } catch (error) {
    assert.instance(error, ChainCycleError);
    assert.is(
      (error as Error).message,
      "chain 'loop': edge 'review' -> 'draft' would be taken for the 3rd time, over its cap of 2 (maxIterations); the cycle did not exit",
    );
  }
  try {
    await loop().run(null, { state: { want: 50 } });
    assert.unreachable('the chain default cap applies to back edges');
  } catch (error) {
    assert.instance(error, ChainCycleError);
    assert.match((error as Error).message, 'for the 11th time, over its cap of 10');
  }
});

test('the global step guard stops runaway runs', async () => {
  const chain = new Chain('guard', { maxSteps: 7, maxIterations: 100 })
    .addNode('a', () => undefined)
    .addNode('b', () => undefined)
    .connect('a', 'b')
    .connect('b', 'a', { condition: () => true });
  try {
    await chain.run();
    assert.unreachable();
  } catch (error) {
    assert.instance(error, ChainError);
    assert.match((error as Error).message, "chain 'guard' reached its step guard (maxSteps 7)");
  }
});

test('misbuilt chains are refused with the reason', async () => {
  const chain = new Chain('bad').addNode('a', () => 1);
  assert.throws(() => chain.addNode('a', () => 2), /already has a node 'a'/);
  assert.throws(() => chain.addNode('run_end', () => 2), /invalid node id/);
  assert.throws(() => chain.addNode('x', 42 as never), /must be a function \(state, ctx\) or an object with run/);
  assert.throws(() => chain.connect('a', 'nope'), /no node 'nope'/);
  chain
    .addNode('b', () => 1)
    .addNode('c', () => 1)
    .connect('a', 'b');
  assert.throws(() => chain.connect('a', 'c'), /already has an unconditional edge/);
  assert.throws(() => new Chain(''), /non-empty name/);
  assert.throws(() => new Chain('x', { maxSteps: 0 }), /maxSteps must be a positive integer/);
  await new Chain('empty').run().then(
    () => assert.unreachable(),
    (error: Error) => assert.match(error.message, "chain 'empty' has no nodes"),
  );
});

test('state must stay JSON; inputs must be JSON', async () => {
  const chain = new Chain('json').addNode('a', () => ({ when: new Map() }));
  await chain.run().then(
    () => assert.unreachable(),
    (error: Error) => {
      assert.instance(error, ChainError);
      assert.is(
        error.message,
        "chain 'json': the state after node 'a' is not JSON ($.when: a Map instance (return a plain object, or give the class a toJSON())); checkpoints store the state as JSON",
      );
    },
  );
  await chain
    .run(() => 1)
    .then(
      () => assert.unreachable(),
      (error: Error) => assert.instance(error, ValidationError),
    );
});

test('without a checkpointer a chain cannot pause, resume or fork', async () => {
  const chain = new Chain('memory').addNode('ask', () => interrupt('approve', {}));
  await chain.run().then(
    () => assert.unreachable(),
    (error: Error) => {
      assert.instance(error, ChainCheckpointError);
      assert.match(error.message, "'memory' called interrupt('approve') at 'ask' but has no checkpointer");
    },
  );
  await chain.resume('x').then(
    () => assert.unreachable(),
    (error: Error) => assert.match(error.message, 'has no checkpointer, so there is nothing to resume'),
  );
  await chain.fork('x').then(
    () => assert.unreachable(),
    (error: Error) => assert.match(error.message, 'nothing to fork'),
  );
});

test('a runner node gets state[inputKey], runs inside the chain scope, and its output is stored', async () => {
  const seen: unknown[] = [];
  const runner = {
    async run(input: unknown, options?: { context?: unknown }) {
      const scope = currentScope()!;
      seen.push([input, options?.context, scope.executionId, scope.runnerName]);
      return { output: `answered ${String(input)}`, status: 'completed' };
    },
  };
  const chain = new Chain('host')
    .addNode('prepare', () => ({ question: 'why?' }))
    .addNode('agent', runner, { inputKey: 'question', outputKey: 'answer' })
    .connect('prepare', 'agent');
  const result = await chain.run(null, { executionId: 'e-host', context: 'ctx' });
  assert.equal(seen, [['why?', 'ctx', 'e-host', 'host']]);
  assert.is(result.final_state.answer, 'answered why?');
  assert.is(result.output, 'answered why?');
});

test('a cancelled run stops before its next node and writes its failed row; a running node gets the signal', async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'agentkit-chain-signal-'));
  const checkpointer = new SQLiteCheckpointer(path.join(dir, 'local.db'));
  try {
    const ran: string[] = [];
    const controller = new AbortController();
    const chain = new Chain('cancellable', { checkpointer })
      .addNode('first', () => {
        ran.push('first');
        controller.abort(new Error('the caller went away'));
      })
      .addNode('after', () => {
        ran.push('after');
      })
      .connect('first', 'after');
    const refused = await chain.run('x', { executionId: 'e-cancelled', signal: controller.signal }).then(
      () => null,
      (error: unknown) => error,
    );
    assert.is((refused as Error | null)?.message, 'the caller went away');
    assert.equal(ran, ['first']);
    const last = await checkpointer.getLast('e-cancelled');
    assert.is(last?.step_type, 'run_end');
    assert.is(last?.run_status, 'failed');

    const waiting = new AbortController();
    const slow = new Chain('slow').addNode('wait', (_state, ctx) => sleep(5_000, undefined, { signal: ctx.signal }));
    const started = Date.now();
    setTimeout(() => waiting.abort(), 20);
    const aborted = await slow.run('y', { signal: waiting.signal }).then(
      () => null,
      (error: unknown) => error,
    );
    assert.is((aborted as Error | null)?.name, 'AbortError');
    assert.ok(Date.now() - started < 4_000, 'the running node was aborted, not waited for');

    const seen: unknown[] = [];
    const runner = { run: async (_input: unknown, options?: { signal?: AbortSignal }) => seen.push(options?.signal) };
    const own = new AbortController();
    await new Chain('host-signal').addNode('agent', runner).run('z', { signal: own.signal });
    assert.is(seen[0], own.signal, 'a runner node gets the run signal');
  } finally {
    await checkpointer.close();
    await rm(dir, { recursive: true, force: true });
  }
});

test.run();
