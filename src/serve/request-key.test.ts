import * as assert from 'uvu/assert';
import { suite } from '../../test-support/uvu.js';
import { bodyFingerprint, callerOf, canonicalJson, DEFAULT_IDEMPOTENCY_TTL_MS, idempotencyTtlMs, parseIdempotencyKey } from './request-key.js';

const test = suite('served agent: Idempotency-Key header');

test('a bare token or a quoted string of 1-255 visible characters is a key; the quotes are not part of it', () => {
  assert.equal(parseIdempotencyKey('8e03978e-40d5-43e8-bc93-6894a57f9324'), { ok: true, key: '8e03978e-40d5-43e8-bc93-6894a57f9324' });
  assert.equal(parseIdempotencyKey('"8e03978e"'), { ok: true, key: '8e03978e' });
  assert.equal(parseIdempotencyKey('  spaced-around  '), { ok: true, key: 'spaced-around' });
  assert.equal(parseIdempotencyKey('k'.repeat(255)), { ok: true, key: 'k'.repeat(255) });
  assert.equal(parseIdempotencyKey("!#$%&'()*+,-./:;<=>?@[]^_`{|}~"), { ok: true, key: "!#$%&'()*+,-./:;<=>?@[]^_`{|}~" });
});

test('anything else is refused with a detail naming the rule', () => {
  for (const bad of ['', '""', '"', ' ', 'k'.repeat(256), `"${'k'.repeat(256)}"`, 'a b', 'a, b', 'tab\there', 'a"b', '"a\\b"', 'caf\u00e9', 'nul\u0000']) {
    const parsed = parseIdempotencyKey(bad);
    assert.is(parsed.ok, false, JSON.stringify(bad));
    if (!parsed.ok) assert.match(parsed.detail, /^Idempotency-Key must /);
  }
});

test('the caller is the runner and the token hash, or anonymous; the token itself never appears', () => {
  const caller = callerOf('agent:desk', 'Bearer s3cret');
  assert.match(caller, /^agent:desk\/[0-9a-f]{64}$/);
  assert.not.match(caller, /s3cret/);
  assert.is(callerOf('agent:desk', 'bearer s3cret'), caller, 'the scheme is case-insensitive');
  assert.is.not(callerOf('agent:desk', 'Bearer other'), caller);
  assert.is(callerOf('agent:desk', undefined), 'agent:desk/anonymous');
  assert.is(callerOf('chain:desk', undefined), 'chain:desk/anonymous');
});

test('the fingerprint is of canonical JSON: key order does not matter, values do', () => {
  assert.is(canonicalJson({ b: [1, { d: 2, c: 'x' }], a: null }), '{"a":null,"b":[1,{"c":"x","d":2}]}');
  assert.is(bodyFingerprint({ input: 'a', x: 1 }), bodyFingerprint({ x: 1, input: 'a' }));
  assert.is.not(bodyFingerprint({ input: 'a' }), bodyFingerprint({ input: 'b' }));
  assert.match(bodyFingerprint({ input: 'a' }), /^[0-9a-f]{64}$/);
});

test('AGENTKIT_IDEMPOTENCY_TTL: seconds or a unit; default 24 h; nonsense refused', () => {
  assert.is(idempotencyTtlMs({}), DEFAULT_IDEMPOTENCY_TTL_MS);
  assert.is(idempotencyTtlMs({ AGENTKIT_IDEMPOTENCY_TTL: '90' }), 90_000);
  assert.is(idempotencyTtlMs({ AGENTKIT_IDEMPOTENCY_TTL: '90m' }), 5_400_000);
  assert.is(idempotencyTtlMs({ AGENTKIT_IDEMPOTENCY_TTL: '7d' }), 604_800_000);
  for (const bad of ['0', '-5', '1.5h', 'soon', '24 h']) {
    assert.throws(() => idempotencyTtlMs({ AGENTKIT_IDEMPOTENCY_TTL: bad }), /AGENTKIT_IDEMPOTENCY_TTL must be a positive duration/);
  }
});

test.run();
