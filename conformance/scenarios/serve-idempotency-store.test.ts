/**
 * The store side of idempotency keys (docs/adr/0052), on both engines: a key is recorded in the transaction of an
 * execution's first row and lease; a live key refuses a second execution's first write as a whole; an expired key is
 * replaced; a key whose execution never wrote a row is released once its lease is gone; expired keys are pruned.
 */
import * as assert from 'uvu/assert';
import { conformance } from '../harness/index.js';
import { checkpointerFor } from '../harness/checkpointers.js';
import { IdempotencyKeyTaken } from '../../src/durability/errors.js';

const area = conformance('durability: idempotency keys of served requests');
const row = (executionId: string) => ({ execution_id: executionId, chain_name: 'desk', node_id: 'turn:0', agent_path: 'agent:desk' });
const key = (ttlMs = 60_000, fingerprint = 'f1') => ({ caller: 'agent:desk/anonymous', key: 'k1', fingerprint, ttlMs });

area.scenario('a key goes with the first row: one execution per caller and key, both or neither written', { rows: [] }, async (t) => {
  const store = checkpointerFor(t.backend);
  t.defer(() => store.close());
  assert.is(await store.acquireLease('e1', 'owner-1', 10_000, { first: row('e1'), idempotencyKey: key() }), 1);
  const recorded = await store.idempotencyKeyOf('agent:desk/anonymous', 'k1');
  assert.is(recorded?.execution_id, 'e1');
  assert.is(recorded?.fingerprint, 'f1');
  assert.ok(Date.parse(recorded!.expires_at) > Date.now() + 50_000);

  // Same caller and key for another execution: refused, and nothing of it written (no row, no lease).
  try {
    await store.acquireLease('e2', 'owner-2', 10_000, { first: row('e2'), idempotencyKey: key() });
    assert.unreachable('a second execution took a live key');
  } catch (error) {
    assert.instance(error, IdempotencyKeyTaken);
    assert.is((error as IdempotencyKeyTaken).code, 'idempotency_key_in_use');
  }
  assert.equal(await store.list('e2'), []);
  assert.is(await store.leaseOf('e2'), null);
  // Another caller with the same key string is another key.
  assert.is(await store.acquireLease('e3', 'owner-3', 10_000, { first: row('e3'), idempotencyKey: { ...key(), caller: 'agent:desk/abc' } }), 1);
  assert.is((await store.idempotencyKeyOf('agent:desk/abc', 'k1'))?.execution_id, 'e3');
  // An execution with rows keeps its key.
  assert.is(await store.releaseIdempotencyKey('agent:desk/anonymous', 'k1', 'e1'), false);
});

area.scenario('concurrent first writes with one key: exactly one execution', { rows: [] }, async (t) => {
  const stores = [checkpointerFor(t.backend), checkpointerFor(t.backend), checkpointerFor(t.backend)];
  t.defer(() => Promise.all(stores.map((s) => s.close())));
  const results = await Promise.allSettled(
    stores.flatMap((store, s) =>
      [0, 1].map((i) => store.acquireLease(`e${s}-${i}`, `o${s}-${i}`, 10_000, { first: row(`e${s}-${i}`), idempotencyKey: key() })),
    ),
  );
  const won = results.filter((r) => r.status === 'fulfilled');
  assert.is(won.length, 1, JSON.stringify(results.map((r) => (r.status === 'rejected' ? String(r.reason) : r.value))));
  for (const r of results) if (r.status === 'rejected') assert.instance(r.reason, IdempotencyKeyTaken);
  const recorded = await stores[0]!.idempotencyKeyOf('agent:desk/anonymous', 'k1');
  assert.equal((await stores[0]!.list(recorded!.execution_id)).length, 1);
});

area.scenario('expired keys are free again and pruned; a key without rows is released', { rows: [] }, async (t) => {
  const store = checkpointerFor(t.backend);
  t.defer(() => store.close());
  await store.acquireLease('old', 'o1', 10_000, { first: row('old'), idempotencyKey: key(50) });
  await new Promise((resolve) => setTimeout(resolve, 120));
  assert.is(await store.idempotencyKeyOf('agent:desk/anonymous', 'k1'), null, 'expired: not returned');
  assert.is(await store.acquireLease('new', 'o2', 10_000, { first: row('new'), idempotencyKey: key(60_000, 'f2') }), 1);
  assert.is((await store.idempotencyKeyOf('agent:desk/anonymous', 'k1'))?.execution_id, 'new');

  await store.acquireLease('gone', 'o3', 10_000, { first: row('gone'), idempotencyKey: { ...key(50), key: 'k2' } });
  await new Promise((resolve) => setTimeout(resolve, 120));
  assert.is(await store.pruneIdempotencyKeys(), 1);
  assert.is(await store.pruneIdempotencyKeys(), 0);

  await store.acquireLease('deleted', 'o4', 10_000, { first: row('deleted'), idempotencyKey: { ...key(), key: 'k3' } });
  assert.is(await store.releaseIdempotencyKey('agent:desk/anonymous', 'k3', 'deleted'), false, 'rows exist');
  await store.deleteExecution('deleted');
  assert.is(await store.releaseIdempotencyKey('agent:desk/anonymous', 'k3', 'other'), false, 'names another execution');
  assert.is(await store.releaseIdempotencyKey('agent:desk/anonymous', 'k3', 'deleted'), true);
  assert.is(await store.idempotencyKeyOf('agent:desk/anonymous', 'k3'), null);
});

area.run();
