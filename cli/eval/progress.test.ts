import * as assert from 'uvu/assert';
import { PassThrough } from 'node:stream';
import { suite } from '../../test-support/uvu.js';
import { progressBar, progressLine } from './progress.js';

const test = suite('eval progress bar');

function capture(tty: boolean) {
  const stream = new PassThrough();
  Object.assign(stream, { isTTY: tty });
  const chunks: string[] = [];
  stream.on('data', (c: Buffer) => chunks.push(c.toString('utf8')));
  return { stream, text: () => chunks.join('') };
}

test('the line: bar, cases done of total, errors, elapsed, eta', () => {
  assert.is(
    progressLine({ done: 6, total: 24, errored: 1, elapsedMs: 3_000 }),
    `[${'#'.repeat(6)}${'.'.repeat(18)}] 6/24 cases  errors 1  elapsed 3.0s  eta 9.0s`,
  );
  assert.is(progressLine({ done: 0, total: 10, errored: 0, elapsedMs: 5 }), `[${'.'.repeat(24)}] 0/10 cases  errors 0  elapsed 0.0s  eta ?`);
  assert.is(progressLine({ done: 10, total: 10, errored: 0, elapsedMs: 95_000 }), `[${'#'.repeat(24)}] 10/10 cases  errors 0  elapsed 1m35s  eta 0.0s`);
});

test('on a terminal: redrawn in place, throttled, always the last state, ended by a newline', async () => {
  const { stream, text } = capture(true);
  const bar = progressBar(stream, { minIntervalMs: 10_000 });
  bar.update({ done: 1, total: 3, errored: 0, elapsedMs: 10 });
  bar.update({ done: 2, total: 3, errored: 1, elapsedMs: 20 });
  bar.update({ done: 3, total: 3, errored: 1, elapsedMs: 30 });
  bar.finish();
  await new Promise((r) => setImmediate(r));
  const out = text();
  assert.is(out.split('\r').length - 1, 2, 'the middle update fell inside the interval; the final one always draws');
  assert.ok(out.includes(`\r[${'#'.repeat(8)}`), out);
  assert.ok(out.includes('3/3 cases  errors 1'), out);
  assert.ok(out.endsWith('\u001b[K\n'));
});

test('off a terminal: nothing at all', async () => {
  const { stream, text } = capture(false);
  const bar = progressBar(stream);
  bar.update({ done: 1, total: 1, errored: 0, elapsedMs: 1 });
  bar.finish();
  await new Promise((r) => setImmediate(r));
  assert.is(text(), '');
});

test.run();
