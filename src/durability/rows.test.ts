import * as assert from 'uvu/assert';
import { suite } from '../../test-support/uvu.js';
import { registerSecret } from '../config/secrets.js';
import { ValidationError } from '../errors.js';
import { completeCheckpoint } from './rows.js';

const test = suite('checkpoint rows: defaults and checks before any backend sees them');

const write = { execution_id: 'e1', chain_name: 'c', node_id: 'n' };
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

function refusal(fn: () => unknown): ValidationError {
  try {
    fn();
  } catch (error) {
    assert.instance(error, ValidationError);
    return error as ValidationError;
  }
  assert.unreachable('expected a ValidationError');
  throw new Error('unreachable');
}

test('a row without a timestamp gets one in the stored format; a given one is kept when well formed', () => {
  assert.match(completeCheckpoint(write).created_at, TIMESTAMP);
  assert.is(completeCheckpoint({ ...write, created_at: '2026-11-27T10:00:00.000001Z' }).created_at, '2026-11-27T10:00:00.000001Z');
});

test('a given timestamp in another format is refused, naming the field and the value', () => {
  const error = refusal(() => completeCheckpoint({ ...write, created_at: '2026-11-27 10:00:00' }));
  assert.is(error.message, 'checkpoint field created_at must be an ISO-8601 UTC timestamp with microseconds, not "2026-11-27 10:00:00"');
  assert.equal(
    error.issues.map((i) => i.path),
    ['/created_at'],
  );
});

test('iteration counters must be integers; the bad key is named', () => {
  assert.equal(completeCheckpoint({ ...write, iteration_counters: { 'a->b': 2 } }).iteration_counters, { 'a->b': 2 });
  const error = refusal(() => completeCheckpoint({ ...write, iteration_counters: { 'a->b': 2, 'b->a': 1.5 } }));
  assert.is(error.message, 'checkpoint field iteration_counters b->a must be an integer');
});

test('payload fields are masked only when a registered secret occurs in them; otherwise the row is returned as built', () => {
  const secret = 'sk-rows-test-0123456789abcdef';
  registerSecret(secret);
  const clean = completeCheckpoint({ ...write, node_output: { ok: true } });
  assert.equal(clean.node_output, { ok: true });
  const masked = completeCheckpoint({ ...write, node_output: { echoed: `key ${secret}` }, interrupt_reason: `needs ${secret}` });
  assert.not.match(JSON.stringify(masked), secret);
  assert.is.not(masked.interrupt_reason, `needs ${secret}`);
});

test.run();
