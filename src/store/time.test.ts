import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { utcNow } from './time.js';

const FORMAT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

test('utcNow is ISO-8601 UTC with six fractional digits, within a millisecond of the wall clock', () => {
  const before = Date.now();
  const stamp = utcNow();
  const after = Date.now();
  assert.match(stamp, FORMAT);
  const millis = Date.parse(`${stamp.slice(0, 23)}Z`);
  assert.ok(millis >= before && millis <= after + 1, `${stamp} not within [${before}, ${after}]`);
});

test('utcNow strictly increases, also for many calls in one millisecond, and keeps sorting as text', () => {
  const stamps = Array.from({ length: 5000 }, () => utcNow());
  for (let i = 1; i < stamps.length; i++) {
    assert.match(stamps[i]!, FORMAT);
    assert.ok(stamps[i]! > stamps[i - 1]!, `${stamps[i]} is not after ${stamps[i - 1]}`);
  }
});

test('utcNow pads the microsecond digits to three', async () => {
  const seen = new Set<string>();
  for (let i = 0; i < 3000; i++) seen.add(utcNow().slice(23, 26));
  for (const digits of seen) assert.is(digits.length, 3);
  await new Promise((resolve) => setTimeout(resolve, 2));
  // After a pause the stamp still parses to now.
  assert.ok(Math.abs(Date.parse(`${utcNow().slice(0, 23)}Z`) - Date.now()) < 50);
});

test.run();
