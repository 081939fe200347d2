import * as assert from 'uvu/assert';
import { PassThrough } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { suite } from '../test-support/uvu.js';
import { withProgress } from './progress.js';

const test = suite('cli progress');

function stream(tty: boolean): { stream: PassThrough; text(): string } {
  const out = new PassThrough();
  Object.assign(out, { isTTY: tty });
  let text = '';
  out.on('data', (chunk: Buffer) => (text += chunk.toString()));
  return { stream: out, text: () => text };
}

test('slow work on a terminal shows a line after the delay and erases it at the end', async () => {
  const tty = stream(true);
  const value = await withProgress(tty.stream, 'loading agents.ts:support', () => sleep(120).then(() => 42), { delayMs: 30, intervalMs: 20 });
  assert.is(value, 42);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the escape is the terminal's erase-line sequence under test
  assert.match(tty.text(), /^\rloading agents\.ts:support\.\.\. \d+\.\ds\u001b\[K/);
  assert.ok(tty.text().endsWith('\r\u001b[K'), 'the line is erased');
});

test('quick work shows nothing; a pipe never shows anything', async () => {
  const quick = stream(true);
  await withProgress(quick.stream, 'quick', async () => 1, { delayMs: 50 });
  await sleep(80);
  assert.is(quick.text(), '');
  const pipe = stream(false);
  await withProgress(pipe.stream, 'slow', () => sleep(80), { delayMs: 10, intervalMs: 10 });
  assert.is(pipe.text(), '');
});

test('a failure still erases the line', async () => {
  const tty = stream(true);
  const failed = await withProgress(tty.stream, 'resuming', () => sleep(60).then(() => Promise.reject(new Error('boom'))), {
    delayMs: 10,
    intervalMs: 10,
  }).catch((error: Error) => error.message);
  assert.is(failed, 'boom');
  assert.ok(tty.text().endsWith('\r\u001b[K'));
});

test.run();
