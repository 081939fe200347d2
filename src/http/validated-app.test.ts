import * as assert from 'uvu/assert';
import type { Server } from 'node:http';
import { suite } from '../../test-support/uvu.js';
import { createValidatedApp, listen, warmUp } from './validated-app.js';

const test = suite('http: one route table picks the handler');

const doc = {
  openapi: '3.1.0',
  info: { title: 'items', version: '1' },
  paths: {
    '/items/{item_id}': {
      get: {
        operationId: 'getItem',
        parameters: [{ name: 'item_id', in: 'path', required: true, schema: { type: 'string' } }],
        responses: { '200': { description: 'the item', content: { 'application/json': { schema: { type: 'object' } } } } },
      },
    },
    '/items/latest': {
      get: { operationId: 'latestItem', responses: { '200': { description: 'the latest', content: { 'application/json': { schema: { type: 'object' } } } } } },
    },
  },
};

test('a handler must name an operation of the document: a typo fails when the app is built', () => {
  assert.throws(
    () => createValidatedApp({ doc, maxBodyBytes: 1024, routes: (app) => app.get('/item/:item_id', () => undefined) }),
    /no operation 'GET \/item\/\{item_id\}' in the document/,
  );
  assert.throws(
    () => createValidatedApp({ doc, maxBodyBytes: 1024, routes: (app) => app.post('/items/latest', () => undefined) }),
    /no operation 'POST \/items\/latest'/,
  );
});

test('the matched operation runs its handler with decoded parameters; literal paths win; an operation with no handler is a 404', async () => {
  const app = createValidatedApp({
    doc,
    maxBodyBytes: 1024,
    routes(app) {
      app.get('/items/:item_id', (req, res) => {
        res.json({ handler: 'item', params: req.params });
      });
    },
  });
  const { server, url } = await listen(app, 0, '127.0.0.1');
  try {
    await warmUp(url);
    const item = await fetch(`${url}/items/a%20b`);
    assert.is(item.status, 200);
    assert.equal(await item.json(), { handler: 'item', params: { item_id: 'a b' } });
    const latest = await fetch(`${url}/items/latest`);
    assert.is(latest.status, 404, 'the literal path is its own operation, not /items/{item_id}');
    assert.equal(await latest.json(), { detail: 'no route GET /items/latest', code: 'not_found' });
    const malformed = await fetch(`${url}/items/%E0%A4%A`);
    assert.is(malformed.status, 400);
    assert.is(((await malformed.json()) as { code: string }).code, 'validation_failed');
  } finally {
    await new Promise<void>((resolve) => (server as Server).close(() => resolve()));
  }
});

test.run();
