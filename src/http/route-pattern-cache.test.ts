import * as assert from 'uvu/assert';
import { createRequire } from 'node:module';
import { suite } from '../../conformance/harness/uvu.js';
import { contractApp } from '../../conformance/fixtures/serving/contract-app.js';
import { listen } from './validated-app.js';
import { cachedPathToRegexp, MAX_PATTERNS } from './route-pattern-cache.js';

const test = suite('http: compiled route patterns kept for the validator');

test('a (path, options) pair compiles once; the same result is handed out again', () => {
  let calls = 0;
  const compile = (path: unknown, options?: Record<string, unknown>) => ({ calls: ++calls, path, options });
  const cached = cachedPathToRegexp(compile);
  const first = cached('/run', { sensitive: true, strict: true });
  assert.is(cached('/run', { strict: true, sensitive: true }), first);
  assert.is(calls, 1);
  // Another option value, another path, no options: each its own entry.
  assert.is.not(cached('/run', { sensitive: false, strict: true }), first);
  cached('/health', { sensitive: true, strict: true });
  cached('/run');
  cached('/run');
  assert.is(calls, 4);
  assert.is(cached.size(), 4);
});

test('calls it cannot key go to the original every time, and a throwing call is not kept', () => {
  let calls = 0;
  const compile = (path: unknown) => {
    calls++;
    if (path === '/bad(') throw new Error('unbalanced');
    return { path };
  };
  const cached = cachedPathToRegexp(compile);
  cached(['/a', '/b']);
  cached(['/a', '/b']);
  cached('/x', { encodePath: (s: string) => s });
  cached('/x', { encodePath: (s: string) => s });
  cached('/x', { sensitive: { nested: true } });
  cached('/x', { delimiter: '.' });
  assert.is(calls, 6);
  assert.throws(() => cached('/bad('), /unbalanced/);
  assert.throws(() => cached('/bad('), /unbalanced/);
  assert.is(calls, 8);
  assert.is(cached.size(), 0);
});

test('bounded: the cache starts over once it holds MAX_PATTERNS entries', () => {
  const cached = cachedPathToRegexp((path) => ({ path }));
  for (let i = 0; i < MAX_PATTERNS; i++) cached(`/p${i}`);
  assert.is(cached.size(), MAX_PATTERNS);
  cached('/one-more');
  assert.is(cached.size(), 1);
});

test("installed on the validator's own path-to-regexp by a validated app; routes still match, 404 and 405 unchanged", async () => {
  const app = contractApp();
  const fromValidator = createRequire(createRequire(import.meta.url).resolve('express-openapi-validator'));
  const pathToRegexp = (fromValidator('path-to-regexp') as { pathToRegexp: { size?: () => number } }).pathToRegexp;
  assert.type(pathToRegexp.size, 'function', 'the validator calls the cached pathToRegexp');
  const served = await listen(app, 0, '127.0.0.1');
  try {
    for (let i = 0; i < 3; i++) {
      const run = await fetch(`${served.url}/run`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ input: 'hi' }) });
      assert.is(run.status, 200);
      assert.is(((await run.json()) as { output: string }).output, 'ok');
    }
    const compiled = pathToRegexp.size!();
    assert.ok(compiled >= 1 && compiled <= 3, `the document's paths were compiled once each (${compiled})`);
    assert.is((await fetch(`${served.url}/health`)).status, 200);
    assert.is((await fetch(`${served.url}/nope`)).status, 404);
    const wrongMethod = await fetch(`${served.url}/health`, { method: 'DELETE' });
    assert.is(wrongMethod.status, 405);
    assert.ok(pathToRegexp.size!() <= 3, 'no more entries than the document has paths');
  } finally {
    await new Promise((resolve) => served.server.close(resolve));
  }
});

test.run();
