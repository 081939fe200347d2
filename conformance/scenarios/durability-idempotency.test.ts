/**
 * Side effects and resume: a POST before `interrupt()` is repeated by the re-execution of the resumed node unless it
 * goes through `idempotent`; a non-JSON result raises IdempotencyError at the first call. Counted by a real HTTP
 * server, on SQLite and Postgres.
 */
import * as assert from 'uvu/assert';
import { Chain, IdempotencyError, idempotent, interrupt } from '../../src/index.js';
import { approvalChain, hit } from '../fixtures/durability/chains.js';
import { checkpointerFor, conformance, startCounterServer } from '../harness/index.js';

const area = conformance('durability: idempotent side effects');

area.scenario('a POST before interrupt() happens twice without idempotent', {}, async (t) => {
  const counter = await startCounterServer();
  const checkpointer = checkpointerFor(t.backend);
  t.defer(() => counter.close());
  t.defer(() => checkpointer.close());
  const chain = approvalChain(checkpointer, { counterUrl: counter.url, charge: 'plain' });
  const paused = await chain.run('refund', { executionId: 'exec-plain' });
  assert.equal(paused.pending_interrupt?.context, { amount: 50000, charge_id: 'ch_1' });
  assert.is(counter.count('/charge'), 1);
  const done = await chain.resume('exec-plain', { resumeValue: { approved: true } });
  assert.is(done.status, 'completed');
  assert.is(counter.count('/charge'), 2, 'the resumed node re-executed the POST');
  assert.is(done.final_state.charge_id, 'ch_2');
});

area.scenario('with idempotent the POST happens once per execution and the resume sees the first result', {}, async (t) => {
  const counter = await startCounterServer();
  const checkpointer = checkpointerFor(t.backend);
  t.defer(() => counter.close());
  t.defer(() => checkpointer.close());
  const chain = approvalChain(checkpointer, { counterUrl: counter.url, charge: 'idempotent' });
  await chain.run('refund', { executionId: 'exec-once' });
  assert.is(counter.count('/charge'), 1);
  const done = await chain.resume('exec-once', { resumeValue: { approved: true } });
  assert.is(done.status, 'completed');
  assert.is(counter.count('/charge'), 1, 'served from the idempotency record');
  assert.is(done.final_state.charge_id, 'ch_1');
  assert.is(counter.count('/finalize'), 1);

  await chain.run('another refund', { executionId: 'exec-other' });
  assert.is(counter.count('/charge'), 2, 'another execution charges once more');
});

area.scenario('a non-JSON result raises IdempotencyError at the first call and fails the run', { rows: ['error:idempotency'] }, async (t) => {
  const counter = await startCounterServer();
  const checkpointer = checkpointerFor(t.backend);
  t.defer(() => counter.close());
  t.defer(() => checkpointer.close());
  const lookup = idempotent(async function lookupCustomer(id: string) {
    await hit(`${counter.url}/lookup`);
    return new Map([[id, { tier: 'gold' }]]);
  });
  const chain = new Chain('lookups', { checkpointer })
    .addNode('lookup', async () => ({ tier: (await lookup('c1')).get('c1')!.tier }))
    .addNode('approve', () => interrupt('review', {}));
  chain.connect('lookup', 'approve');
  try {
    await chain.run('x', { executionId: 'exec-nonjson' });
    assert.unreachable('the first call raises');
  } catch (error) {
    assert.instance(error, IdempotencyError);
    assert.is(
      (error as Error).message,
      "idempotent function 'lookupCustomer' returned a value that cannot be stored as JSON ($: a Map instance (return a plain object, or give the class a toJSON())); return plain data (objects, arrays, strings, numbers, booleans, null)",
    );
  }
  assert.is(counter.count('/lookup'), 1);
  const rows = await checkpointer.list('exec-nonjson');
  assert.equal(
    rows.map((r) => [r.node_id, r.run_status]),
    [
      ['__run_start__', null],
      ['run_end', 'failed'],
    ],
  );
  assert.match(JSON.stringify(rows[1]!.node_output), 'IdempotencyError');
});

area.scenario('keys: same arguments once per execution, other arguments and other executions run again', {}, async (t) => {
  const checkpointer = checkpointerFor(t.backend);
  t.defer(() => checkpointer.close());
  const calls: string[] = [];
  const send = idempotent(function sendEmail(to: string) {
    calls.push(to);
  });
  const chain = new Chain('mailer', { checkpointer }).addNode('send', async (state) => {
    await send(state.input as string);
    await send(state.input as string);
    await send(`${state.input as string}-cc`);
  });
  await chain.run('a@example.com', { executionId: 'mail-1' });
  await chain.run('a@example.com', { executionId: 'mail-2' });
  assert.equal(calls, ['a@example.com', 'a@example.com-cc', 'a@example.com', 'a@example.com-cc']);
  await send('outside');
  await send('outside');
  assert.equal(calls.slice(4), ['outside', 'outside'], 'outside a run nothing is cached');
});

area.run();
