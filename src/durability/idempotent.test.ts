import * as assert from 'uvu/assert';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { suite } from '../../test-support/uvu.js';
import { ConfigError } from '../errors.js';
import { runInScope } from '../scope/scope.js';
import { IdempotencyError } from './errors.js';
import { functionKey, idempotent } from './idempotent.js';
import { SQLiteCheckpointer } from './sqlite-checkpointer.js';

const test = suite<{ dir: string; checkpointer: SQLiteCheckpointer }>('idempotent', { state: { dir: '', checkpointer: undefined as never } });

test.beforeEach(async (ctx) => {
  ctx.dir = await mkdtemp(path.join(tmpdir(), 'agentkit-idem-'));
  ctx.checkpointer = new SQLiteCheckpointer(path.join(ctx.dir, 'local.db'));
});
test.afterEach(async (ctx) => {
  await ctx.checkpointer.close();
  await rm(ctx.dir, { recursive: true, force: true });
});

const inRun = <T>(checkpointer: SQLiteCheckpointer, executionId: string, fn: () => T) => runInScope({ executionId, runnerName: 'test', checkpointer }, fn);

test('rules 2-4: once per execution and arguments; sync and async bodies', async ({ checkpointer }) => {
  const calls: string[] = [];
  const syncCharge = idempotent(function charge(order: string, options: { amount: number }) {
    calls.push(`sync ${order}`);
    return { charge_id: `ch_${calls.length}`, amount: options.amount };
  });
  const asyncCharge = idempotent(async function chargeAsync(order: string) {
    calls.push(`async ${order}`);
    return `ch_${calls.length}`;
  });
  await inRun(checkpointer, 'e1', async () => {
    assert.equal(await syncCharge('o1', { amount: 5 }), { charge_id: 'ch_1', amount: 5 });
    assert.equal(await syncCharge('o1', { amount: 5 }), { charge_id: 'ch_1', amount: 5 });
    assert.equal(await syncCharge('o1', { amount: 6 }), { charge_id: 'ch_2', amount: 6 }, 'other arguments, other key');
    assert.is(await asyncCharge('o1'), 'ch_3');
    assert.is(await asyncCharge('o1'), 'ch_3');
  });
  await inRun(checkpointer, 'e2', async () => {
    assert.equal(await syncCharge('o1', { amount: 5 }), { charge_id: 'ch_4', amount: 5 }, 'another execution is a miss');
  });
  assert.equal(calls, ['sync o1', 'sync o1', 'async o1', 'sync o1']);
});

test('rule 5: outside a durable run the body runs every time', async ({ checkpointer }) => {
  let n = 0;
  const bump = idempotent(function bump() {
    return ++n;
  });
  assert.is(await bump(), 1);
  assert.is(await bump(), 2);
  await runInScope({ executionId: 'no-store', runnerName: 'test' }, async () => {
    assert.is(await bump(), 3, 'a scope without a checkpointer does not cache');
    assert.is(await bump(), 4);
  });
  await inRun(checkpointer, 'e', async () => {
    assert.is(await bump(), 5);
    assert.is(await bump(), 5);
  });
});

test('rule 6: a hit returns the JSON form; null and void results are cached too', async ({ checkpointer }) => {
  let runs = 0;
  const when = idempotent(function when() {
    runs++;
    return { at: new Date(0) };
  });
  const nothing = idempotent(function nothing(): null {
    runs++;
    return null;
  });
  const sideEffect = idempotent(function sideEffect(): void {
    runs++;
  });
  await inRun(checkpointer, 'e', async () => {
    const first = await when();
    assert.instance(first.at, Date, 'the first call returns the original object');
    assert.equal(await when(), { at: '1970-01-01T00:00:00.000Z' } as never, 'a hit returns the JSON form');
    assert.is(await nothing(), null);
    assert.is(await nothing(), null);
    assert.is(await sideEffect(), undefined);
    assert.is(await sideEffect(), null);
  });
  assert.is(runs, 3);
});

test('rule 1: keyFn replaces the arguments, but two functions never share a key', async ({ checkpointer }) => {
  const calls: string[] = [];
  const charge = idempotent(
    function charge(order: { id: string; note: string }) {
      calls.push(`charge ${order.note}`);
      return order.note;
    },
    { keyFn: (order) => order.id },
  );
  const refund = idempotent(
    function refund(order: { id: string; note: string }) {
      calls.push(`refund ${order.note}`);
      return order.note;
    },
    { keyFn: (order) => order.id },
  );
  await inRun(checkpointer, 'e', async () => {
    assert.is(await charge({ id: 'o1', note: 'first' }), 'first');
    assert.is(await charge({ id: 'o1', note: 'second' }), 'first', 'same key: cached despite other arguments');
    assert.is(await refund({ id: 'o1', note: 'third' }), 'third', 'same keyFn output, other function: its own key');
  });
  assert.equal(calls, ['charge first', 'refund third']);
  assert.is.not(functionKey('charge', ['key', 'o1']), functionKey('refund', ['key', 'o1']));
  assert.is(functionKey('charge', ['args', [{ a: 1, b: 2 }]]), functionKey('charge', ['args', [{ b: 2, a: 1 }]]), 'key order does not matter');
  assert.match(functionKey('charge', ['key', 'o1']), /^charge:[0-9a-f]{64}$/);
});

test('rule 7: a non-JSON result raises IdempotencyError at the first call and stores nothing', async ({ checkpointer }) => {
  let runs = 0;
  const lookup = idempotent(function lookup() {
    runs++;
    return new Map([['a', 1]]);
  });
  await inRun(checkpointer, 'e', async () => {
    for (let i = 0; i < 2; i++) {
      try {
        await lookup();
        assert.unreachable('a Map is not JSON');
      } catch (error) {
        assert.instance(error, IdempotencyError);
        assert.is((error as IdempotencyError).code, 'idempotency_error');
        assert.match((error as Error).message, "idempotent function 'lookup' returned a value that cannot be stored as JSON ($: a Map instance");
      }
    }
  });
  assert.is(runs, 2, 'nothing was cached');
});

test('an anonymous function needs a name; a name qualifies the identity', async ({ checkpointer }) => {
  assert.throws(
    () => idempotent(() => 1),
    (error: unknown) => error instanceof ConfigError && /needs a named function or \{ name \}/.test((error as Error).message),
  );
  let runs = 0;
  const named = idempotent(() => ++runs, { name: 'billing.charge' });
  await inRun(checkpointer, 'e', async () => {
    assert.is(await named(), 1);
    assert.is(await named(), 1);
  });
});

test.run();
