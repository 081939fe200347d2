/**
 * A store named by one value (issue 38), on both engines: `openStore(value)` with a file path or a
 * `postgres://...?schema=` URL; checkpointers built on it share the process's one pool for the store; a password in
 * the URL shows in no label and no error.
 */
import * as assert from 'uvu/assert';
import { checkpointerFor, openStore, parseStoreValue } from '../../src/index.js';
import { nodeRow } from '../../src/durability/contract/fixtures.js';
import { openPgPoolCount } from '../../src/store/pg-pools.js';
import { conformance } from '../harness/index.js';
import type { Backend } from '../harness/index.js';

const area = conformance('store: one value names the store');
const PASSWORD = 'Sup3rS3cretPw';

/** The variant's store as one value; the Postgres one carries a password (the test server trusts, so it is ignored). */
function storeValueOf(backend: Backend): string {
  if (backend.kind === 'sqlite') return backend.dbPath;
  if (backend.kind === 'postgres') {
    const url = new URL(backend.url);
    url.password = PASSWORD;
    url.searchParams.set('schema', backend.schema);
    return url.toString();
  }
  throw new Error('no store');
}

area.scenario('openStore(value): checkpointers on one store share one pool; the label never shows the password', {}, async (t) => {
  const value = storeValueOf(t.backend);
  const store = openStore(value, { cwd: t.cwd });
  assert.is(store.engine, t.backend.kind);
  assert.not.ok(store.label.includes(PASSWORD), store.label);
  const first = checkpointerFor(store);
  const second = checkpointerFor(value, { cwd: t.cwd });
  try {
    await first.put(nodeRow('exec-1', 'a'));
    await second.put(nodeRow('exec-1', 'b'));
    assert.is((await first.getLast('exec-1'))?.node_id, 'b', 'both see one store');
    if (t.backend.kind === 'postgres') {
      assert.is(store.schema, t.backend.schema);
      assert.is(store.label, `${storeValueOf(t.backend).replace(PASSWORD, '[REDACTED]')}`);
      assert.is(openPgPoolCount(), 1, 'one pool for the store in this process');
    }
  } finally {
    await first.close();
    await second.close();
    await store.close();
  }
  assert.is(openPgPoolCount(), 0, 'the pool ends with its last holder');
});

area.scenario('an unreachable Postgres store fails with one line that does not hold the password', { backends: ['postgres'] }, async () => {
  const checkpointer = checkpointerFor(`postgres://postgres:${PASSWORD}@127.0.0.1:1/none?schema=nowhere`);
  try {
    await checkpointer.getLast('x');
    assert.unreachable('a store nobody serves answered');
  } catch (error) {
    const message = (error as Error).message;
    assert.is((error as { code?: string }).code, 'storage_unavailable');
    assert.not.ok(message.includes(PASSWORD), message);
    assert.not.ok(message.includes('\n'), 'one line');
  } finally {
    await checkpointer.close();
  }
  assert.equal(parseStoreValue('postgres://u@h/d?schema=s1'), { engine: 'postgres', url: 'postgres://u@h/d', schema: 's1' });
});

area.run();
