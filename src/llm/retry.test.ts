import * as assert from 'uvu/assert';
import { suite } from '../../test-support/uvu.js';
import { backoffMs, isRetryableStatus, retryAfterMs, sleep } from './retry.js';

const test = suite('llm: retry policy');

test('retryable statuses: 408, 409, 429 and 5xx only', () => {
  assert.equal([400, 401, 403, 404, 408, 409, 422, 429, 500, 502, 503, 529].filter(isRetryableStatus), [408, 409, 429, 500, 502, 503, 529]);
});

test('Retry-After as seconds or HTTP date; retry-after-ms first; garbage ignored', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');
  assert.is(retryAfterMs(new Headers({ 'retry-after': '3' }), now), 3000);
  assert.is(retryAfterMs(new Headers({ 'retry-after': '0.5' }), now), 500);
  assert.is(retryAfterMs(new Headers({ 'retry-after': 'Thu, 01 Jan 2026 00:00:10 GMT' }), now), 10_000);
  assert.is(retryAfterMs(new Headers({ 'retry-after': 'Wed, 31 Dec 2025 23:59:00 GMT' }), now), 0);
  assert.is(retryAfterMs(new Headers({ 'retry-after-ms': '250', 'retry-after': '9' }), now), 250);
  assert.is(retryAfterMs(new Headers({ 'retry-after': 'soon' }), now), null);
  assert.is(retryAfterMs(new Headers(), now), null);
});

test('backoff grows exponentially with full jitter and a cap', () => {
  const policy = { maxRetries: 5, baseDelayMs: 100, maxDelayMs: 1000 };
  assert.equal(
    [0, 1, 2, 3, 4].map((n) => backoffMs(policy, n, () => 0.999999)),
    [99, 199, 399, 799, 999],
  );
  assert.is(
    backoffMs(policy, 3, () => 0),
    0,
  );
});

test('sleep rejects with the abort reason', async () => {
  const controller = new AbortController();
  const reason = new Error('stop');
  setTimeout(() => controller.abort(reason), 5);
  const error = await sleep(10_000, controller.signal).then(
    () => null,
    (e: unknown) => e,
  );
  assert.is(error, reason);
});

test.run();
