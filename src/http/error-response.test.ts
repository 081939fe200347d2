import * as assert from 'uvu/assert';
import { suite } from '../../test-support/uvu.js';
import { MAX_LISTED_ISSUES, toErrorResponse } from './error-response.js';
import { checkJsonLimits, JsonLimitError } from './json-limits.js';
import { RouteTable } from './route-table.js';

const test = suite('http: error mapping, JSON limits, strict routes');

test('415 unsupported_media_type names the missing or wrong content type; 405 is method_not_allowed', () => {
  const missing = toErrorResponse({ status: 415, message: 'unsupported media type undefined' }, { contentType: undefined });
  assert.equal(
    [missing.status, missing.body.code, missing.body.detail],
    [415, 'unsupported_media_type', 'the request has no Content-Type; send application/json'],
  );
  const wrong = toErrorResponse({ status: 415, message: 'x' }, { contentType: 'text/plain' });
  assert.equal(
    [wrong.status, wrong.body.code, wrong.body.detail],
    [415, 'unsupported_media_type', 'unsupported Content-Type "text/plain"; send application/json'],
  );
  assert.is(toErrorResponse({ status: 405, message: 'no' }).body.code, 'method_not_allowed');
});

test('at most 20 issues listed, the detail naming the total; long paths clipped', () => {
  const errors = Array.from({ length: 600 }, (_, i) => ({
    path: `/body/${'k'.repeat(i === 0 ? 5000 : 3)}${i}`,
    message: 'must NOT have additional properties',
  }));
  const mapped = toErrorResponse({ status: 400, errors });
  assert.is(mapped.body.errors!.length, MAX_LISTED_ISSUES);
  assert.match(mapped.body.detail, /\(20 of 600 problems listed\)$/);
  assert.ok(mapped.body.errors![0]!.path.length <= 203);
  assert.ok(JSON.stringify(mapped.body).length < 10_000);
});

test('JSON limits: depth and key count refused on raw bytes, strings ignored, linear on 3 million levels', () => {
  checkJsonLimits(Buffer.from(`{"a":"${'{'.repeat(500)}:::"}`), { maxDepth: 2, maxKeys: 1 });
  assert.throws(
    () => checkJsonLimits(Buffer.from('[[[1]]]'), { maxDepth: 2, maxKeys: 10 }),
    (e: unknown) => e instanceof JsonLimitError && e.type === 'entity.too.deep',
  );
  assert.throws(
    () => checkJsonLimits(Buffer.from('{"a":1,"b":2}'), { maxDepth: 2, maxKeys: 1 }),
    (e: unknown) => e instanceof JsonLimitError && e.type === 'entity.too.many.keys',
  );
  checkJsonLimits(Buffer.from('{"a\\"":"b\\\\","c":[1,{"d":2}]}'), { maxDepth: 3, maxKeys: 3 });
  assert.throws(() => checkJsonLimits(Buffer.from('['.repeat(3_000_000)), { maxDepth: 64, maxKeys: 10 }), /deeper than 64 levels/);
});

test('routes match exactly: case, trailing slash, dot segments and encodings do not', () => {
  const table = new RouteTable({ paths: { '/run': { post: {} }, '/health': { get: {} }, '/executions/{id}': { get: {} }, '/executions/stats': { get: {} } } });
  assert.equal(table.match('POST', '/run'), { kind: 'matched', route: { method: 'POST', path: '/run', key: 'POST /run' }, params: {} });
  for (const path of ['/RUN', '/run/', '//run', '/%72un', '/./run', '/run/.', '']) assert.is(table.match('POST', path).kind, 'not_found', path);
  assert.equal(table.match('GET', '/run'), { kind: 'method_not_allowed', path: '/run', allow: ['POST'] });
  assert.equal(table.match('DELETE', '/health'), { kind: 'method_not_allowed', path: '/health', allow: ['GET', 'HEAD'] });
  assert.is(table.match('HEAD', '/health').kind, 'matched');
  assert.is((table.match('GET', '/executions/stats') as { route: { path: string } }).route.path, '/executions/stats');
  assert.equal(table.match('GET', '/executions/e%201'), {
    kind: 'matched',
    route: { method: 'GET', path: '/executions/{id}', key: 'GET /executions/{id}' },
    params: { id: 'e%201' },
  });
  assert.is(table.match('GET', '/executions/..').kind, 'not_found');
});

test.run();
