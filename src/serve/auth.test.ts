import * as assert from 'uvu/assert';
import { suite } from '../../conformance/harness/uvu.js';
import { bearerMatches } from './auth.js';
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
