/**
 * The contract pipeline: an Express app built on generated/ validates requests and responses against the TypeSpec
 * contract and answers every failure with the contract's error body.
 */
import * as assert from 'uvu/assert';
import { postChunked, conformance } from '../harness/index.js';
import { contractApp } from '../fixtures/contract-app.js';

const area = conformance('contract: validating Express app on generated/');
const any = { backends: 'none', surfaces: ['http'] } as const;

async function post(url: string, body: string, headers: Record<string, string> = {}) {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
  return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, unknown> };
}

area.scenario('a valid request gets the declared response', any, async (t) => {
  const server = await t.serve(contractApp());
  const { status, body } = await post(`${server.url}/run`, JSON.stringify({ input: 'hello' }));
  assert.is(status, 200);
  assert.is(body.output, 'echo: hello');
  assert.is(body.status, 'completed');
});

area.scenario('an unknown field is a 400 validation_failed naming the field', any, async (t) => {
  const server = await t.serve(contractApp());
  const { status, body } = await post(`${server.url}/run`, JSON.stringify({ input: 'x', temperature: 2 }));
  assert.is(status, 400);
  assert.is(body.code, 'validation_failed');
  assert.type(body.detail, 'string');
  const errors = body.errors as Array<{ path: string; message: string }>;
  assert.ok(errors.length >= 1);
  assert.ok(
    errors.some((e) => e.path.includes('temperature') || e.message.includes('additional')),
    JSON.stringify(errors),
  );
});

area.scenario('a wrong type is a 400 validation_failed naming the field', any, async (t) => {
  const server = await t.serve(contractApp());
  const { status, body } = await post(`${server.url}/run`, JSON.stringify({ input: 42 }));
  assert.is(status, 400);
  assert.is(body.code, 'validation_failed');
  const errors = body.errors as Array<{ path: string; message: string }>;
  assert.ok(
    errors.some((e) => e.path.endsWith('/input') && /string/.test(e.message)),
    JSON.stringify(errors),
  );
});

area.scenario('every failed check is reported, not only the first', any, async (t) => {
  const server = await t.serve(contractApp());
  const { status, body } = await post(`${server.url}/run`, JSON.stringify({ input: 1, a: 1 }));
  assert.is(status, 400);
  assert.ok((body.errors as unknown[]).length >= 2, JSON.stringify(body.errors));
});

area.scenario('malformed JSON is a 400 invalid_json', any, async (t) => {
  const server = await t.serve(contractApp());
  const { status, body } = await post(`${server.url}/run`, '{"input": ');
  assert.is(status, 400);
  assert.is(body.code, 'invalid_json');
  assert.match(String(body.detail), /not valid JSON/);
});

area.scenario('a missing body field is a 400 validation_failed', any, async (t) => {
  const server = await t.serve(contractApp());
  const { status, body } = await post(`${server.url}/run`, '{}');
  assert.is(status, 400);
  assert.is(body.code, 'validation_failed');
  assert.match(String(body.detail), /input/);
});

area.scenario('a body over the cap is a 413 with Content-Length declared', any, async (t) => {
  const server = await t.serve(contractApp({ maxBodyBytes: 100 }));
  const { status, body, headers } = await post(`${server.url}/run`, JSON.stringify({ input: 'x'.repeat(200) }));
  assert.is(status, 413);
  assert.is(body.code, 'payload_too_large');
  assert.is(body.detail, 'request body exceeds 100 bytes');
  assert.is(headers.get('connection'), 'close');
});

area.scenario('a body over the cap is a 413 when streamed without Content-Length', any, async (t) => {
  const server = await t.serve(contractApp({ maxBodyBytes: 100 }));
  const result = await postChunked(`${server.url}/run`, ['{"input": "', ...Array.from({ length: 10 }, () => 'y'.repeat(50)), '"}']);
  assert.is(result.status, 413);
  assert.is(JSON.parse(result.body).code, 'payload_too_large');
});

area.scenario('an undeclared response status is caught by response validation', any, async (t) => {
  const server = await t.serve(contractApp());
  const { status, body } = await post(`${server.url}/run`, JSON.stringify({ input: 'teapot' }));
  assert.is(status, 500);
  assert.is(body.code, 'internal_error');
  assert.match(String(body.detail), /response failed contract validation/);
});

area.scenario('a response body off the contract is caught by response validation', any, async (t) => {
  const server = await t.serve(contractApp());
  const { status, body } = await post(`${server.url}/run`, JSON.stringify({ input: 'off-contract' }));
  assert.is(status, 500);
  assert.is(body.code, 'internal_error');
  assert.match(String(body.detail), /response failed contract validation/);
});

area.scenario('an undeclared route is a 404 not_found', any, async (t) => {
  const server = await t.serve(contractApp());
  const response = await fetch(`${server.url}/nope`);
  assert.is(response.status, 404);
  assert.is(((await response.json()) as { code: string }).code, 'not_found');
});

area.scenario('a wrong content type is a 415 unsupported_media_type', any, async (t) => {
  const server = await t.serve(contractApp());
  const response = await fetch(`${server.url}/run`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'hello' });
  const body = (await response.json()) as { code: string; detail: string };
  assert.is(response.status, 415);
  assert.is(body.code, 'unsupported_media_type');
  assert.match(body.detail, /application\/json/);
});

area.run();
