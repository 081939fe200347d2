import * as assert from 'uvu/assert';
import { createRequire } from 'node:module';
import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import { suite } from '../../test-support/uvu.js';
import { registerSecret } from '../config/secrets.js';
import { threadErrorText } from './thread-error.js';

const test = suite('worker thread errors as text');

/** The `error` event of a worker that runs `source` (CommonJS; `driver` is better-sqlite3's entry). */
async function errorEventOf(source: string): Promise<unknown> {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(`const driver = ${JSON.stringify(driver)};\n${source}`, { eval: true });
  const [error] = await once(worker, 'error');
  return error;
}

test('an uncaught SqliteError reaches the parent as a bare { code }: its text is the code, and reading it never throws', async () => {
  const error = await errorEventOf(`const Database = require(driver); new Database(':memory:').prepare('SELECT * FROM missing_table');`);
  // What made the listeners crash: the event's value has no message (if Node ever keeps it, the text is the message).
  const message = (error as { message?: unknown }).message;
  assert.is(threadErrorText(error), typeof message === 'string' && message !== '' ? message : 'error code SQLITE_ERROR');
  assert.is((error as { code?: unknown }).code, 'SQLITE_ERROR');
});

test('an Error keeps the first line of its message; other values are their text', async () => {
  const error = await errorEventOf(`throw new RangeError('first line\\nsecond line');`);
  assert.is(threadErrorText(error), 'first line');
  assert.is(threadErrorText({ code: 42 }), 'error code 42');
  assert.is(threadErrorText(undefined), 'undefined');
  assert.is(threadErrorText('plain\ntext'), 'plain');
  assert.is(threadErrorText({}), '[object Object]');
});

test('a registered secret in a worker error is masked in its text', async () => {
  const secret = 'sk-thread-error-0123456789abcdef';
  registerSecret(secret);
  const error = await errorEventOf(`throw new Error('could not connect with ${secret}');`);
  const text = threadErrorText(error);
  assert.not.match(text, secret);
  assert.match(text, /^could not connect with /);
});

test.run();
