import * as assert from 'uvu/assert';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { suite } from '../../../test-support/uvu.js';
import { listen } from '../../http/validated-app.js';
import { createApiKey } from './api-keys.js';
import { createPlatformApp } from './app.js';
import { openPlatformStore } from './open-platform-store.js';
import { platformBindRefusal, startPlatformServer } from './serve.js';

const test = suite<{ dir: string }>('platform server', { state: { dir: '' } });

test.beforeEach(async (ctx) => {
  ctx.dir = await mkdtemp(path.join(tmpdir(), 'agentkit-platform-'));
});
test.afterEach(async (ctx) => {
  await rm(ctx.dir, { recursive: true, force: true });
});

test('a store that cannot be reached answers 503 storage_unavailable, naming no address', async () => {
  // A Postgres store on a closed port; the secret from the environment, so the app starts and every request reaches
  // the store (the key lookup) and meets the outage.
  const previous = process.env.AGENTKIT_PLATFORM_SECRET;
  process.env.AGENTKIT_PLATFORM_SECRET = 'ab'.repeat(32);
  const store = openPlatformStore('postgres://postgres@127.0.0.1:1/none?schema=down');
  const { server, url } = await listen(createPlatformApp({ store }), 0, '127.0.0.1');
  try {
    const response = await fetch(`${url}/public/v1/auth/check`, { headers: { 'X-API-Key': 'akp_00000000_whatever-key' } });
    const body = (await response.json()) as { code: string; detail: string };
    assert.equal([response.status, body.code], [503, 'storage_unavailable']);
    assert.not.match(body.detail, /127\.0\.0\.1|:1\b|ECONNREFUSED/);
  } finally {
    server.close();
    server.closeAllConnections();
    await store.close();
    if (previous === undefined) delete process.env.AGENTKIT_PLATFORM_SECRET;
    else process.env.AGENTKIT_PLATFORM_SECRET = previous;
  }
});

test('startPlatformServer: serves on loopback, refuses a non-loopback host without insecureBind, closes the store', async ({ dir }) => {
  const db = path.join(dir, 'platform.db');
  assert.match(platformBindRefusal('0.0.0.0', false)!, /^refusing to bind the Platform to non-loopback address '0.0.0.0'/);
  assert.is(platformBindRefusal('0.0.0.0', true), null);
  assert.is(platformBindRefusal('::1', false), null);
  await startPlatformServer({ db, host: '10.1.2.3' }).then(
    () => assert.unreachable('a non-loopback host must be refused'),
    (error: Error) => assert.match(error.message, /non-loopback address '10\.1\.2\.3'/),
  );
  const seed = openPlatformStore(db);
  const { key } = await createApiKey(seed, { project: 'p', scopes: ['evals:read'] });
  await seed.close();
  const running = await startPlatformServer({ db, port: 0 });
  assert.is(running.warning, null);
  const response = await fetch(`${running.url}/public/v1/eval/runs`, { headers: { 'X-API-Key': key } });
  assert.equal([response.status, await response.json()], [200, { runs: [] }]);
  await running.close();
  await running.close();
  await fetch(`${running.url}/public/v1/eval/runs`).then(
    () => assert.unreachable('closed'),
    (error: Error) => assert.instance(error, TypeError),
  );
});

test('keys: a created key verifies, a registered key keeps its text, bad projects and scopes are refused', async ({ dir }) => {
  const store = openPlatformStore(path.join(dir, 'p.db'));
  try {
    await createApiKey(store, { project: 'bad project', scopes: ['claims'] }).then(
      () => assert.unreachable(),
      (error: Error) => assert.match(error.message, /^invalid project 'bad project'/),
    );
    await createApiKey(store, { project: 'p', scopes: [] }).then(
      () => assert.unreachable(),
      (error: Error) => assert.match(error.message, /at least one --scope/),
    );
    const registered = await createApiKey(store, { project: 'p', scopes: ['claims', 'claims'], key: 'my_own_key_0123456789' });
    assert.equal([registered.key, registered.record.prefix, registered.record.scopes], ['my_own_key_0123456789', 'my_own_key_0', ['claims']]);
    const [stored] = await store.listKeys();
    assert.match(stored!.digest, /^[0-9a-f]{64}$/);
    assert.not.ok(JSON.stringify(stored).includes('0123456789'), 'the key is not stored');
  } finally {
    await store.close();
  }
});

test.run();
