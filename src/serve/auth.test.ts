import * as assert from 'uvu/assert';
import { suite } from '../../test-support/uvu.js';
import { bearerMatches, bearerToken, normalizeToken } from './auth.js';
import { exposureWarning, isLoopback } from './exposure.js';

const test = suite('serve auth and exposure');

test('bearer: exact token with a case-insensitive scheme matches; everything else does not', () => {
  assert.ok(bearerMatches('Bearer s3cret', 's3cret'));
  assert.ok(bearerMatches('bearer s3cret', 's3cret'));
  assert.ok(bearerMatches('  Bearer   s3cret  ', 's3cret'));
  for (const header of [undefined, '', 'Bearer', 'Bearer ', 'Bearer s3cre', 'Bearer s3cret2', 'Basic s3cret', 's3cret', 'Bearer S3CRET']) {
    assert.not.ok(bearerMatches(header, 's3cret'), String(header));
  }
});

test('bearer parsing is linear: 16,000 spaces inside the header take well under a millisecond per call', () => {
  const header = `Bearer a${' '.repeat(16_000)}b`;
  const started = process.hrtime.bigint();
  for (let i = 0; i < 100; i++) assert.not.ok(bearerMatches(header, 's3cret'));
  const perCallMs = Number(process.hrtime.bigint() - started) / 1e6 / 100;
  // The regex this replaced took 300-900 ms per call on this input.
  assert.ok(perCallMs < 5, `${perCallMs} ms per call`);
  assert.is(bearerToken('Bearer\tabc'), 'abc');
  assert.is(bearerToken('Bearerabc'), null);
});

test('tokens: surrounding whitespace trimmed; empty or inner whitespace refused with the source named', () => {
  assert.is(normalizeToken(undefined, 'AGENTKIT_SERVE_TOKEN'), undefined);
  assert.is(normalizeToken('s3cret\n', 'AGENTKIT_SERVE_TOKEN'), 's3cret');
  assert.throws(() => normalizeToken('  ', '--auth-token'), /--auth-token is empty/);
  assert.throws(() => normalizeToken('s3 cret', 'AGENTKIT_SERVE_TOKEN'), /AGENTKIT_SERVE_TOKEN contains whitespace/);
});

test('loopback addresses are recognised', () => {
  for (const host of ['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]', '::ffff:127.0.0.1']) assert.ok(isLoopback(host), host);
  for (const host of ['0.0.0.0', '::', '10.0.0.1', '192.168.1.5', 'example.com', '128.0.0.1']) assert.not.ok(isLoopback(host), host);
});

test('a non-loopback bind warns, loudly without a token', () => {
  assert.is(exposureWarning('127.0.0.1', false), null);
  assert.match(exposureWarning('0.0.0.0', false) ?? '', /^WARNING: serving on a non-loopback address \(0\.0\.0\.0\) with NO authentication/);
  assert.match(exposureWarning('0.0.0.0', true) ?? '', /reverse proxy terminates TLS/);
});

test.run();
