/**
 * The redactor remembers long texts it found clean, so a history written in every checkpoint row is not scanned
 * again on every row. These tests hold it to the contract that matters: a secret is masked wherever it appears, also
 * in a text that was found clean before that secret was registered. Secrets are process-wide and cannot be taken
 * back, so each test registers values of its own.
 */
import * as assert from 'uvu/assert';
import { suite } from '../../test-support/uvu.js';
import { appendStaysClean, redactText, redactValue, SECRET_MASK } from './redact.js';
import { registerSecret } from './secrets.js';

const test = suite('config: the redactor');

const long = (word: string) => `${'lorem ipsum '.repeat(40)}${word}${' dolor sit'.repeat(20)}`;

test('a long text found clean is masked once a secret it holds is registered', () => {
  registerSecret('first-secret-value-0001');
  const text = long('later-secret-value-0002');
  assert.is(redactText(text), text, 'clean while only the first secret is known');
  assert.is(redactText(text), text, 'and again (now remembered as clean)');
  registerSecret('later-secret-value-0002');
  assert.is(redactText(text), long(SECRET_MASK));
  assert.equal(redactValue({ messages: [{ role: 'tool', content: text }] }), { messages: [{ role: 'tool', content: long(SECRET_MASK) }] });
});

test('a text holding a secret is masked every time it is seen, short or long', () => {
  registerSecret('short-s3cret');
  const longText = long('short-s3cret');
  for (let i = 0; i < 3; i++) {
    assert.is(redactText(longText), long(SECRET_MASK));
    assert.is(redactText('key: short-s3cret'), `key: ${SECRET_MASK}`);
  }
});

test('texts shorter than every secret come back as they are; keys are masked too', () => {
  registerSecret('key-name-secret-0003');
  assert.is(redactText('role'), 'role');
  assert.equal(redactValue({ 'key-name-secret-0003': 'v', role: 'user' }), { [SECRET_MASK]: 'v', role: 'user' });
});

test('many distinct clean texts (past what is remembered) stay clean and a secret among them is still masked', () => {
  registerSecret('needle-secret-0004');
  const texts = Array.from({ length: 2_000 }, (_, i) => `${i}:${'x'.repeat(10_000)}`);
  for (const text of texts) assert.is(redactText(text), text);
  const withSecret = `${'x'.repeat(10_000)}needle-secret-0004`;
  assert.is(redactText(withSecret), `${'x'.repeat(10_000)}${SECRET_MASK}`);
  assert.is(redactText(texts[0]!), texts[0]);
});

test('an appended text may be masked alone unless a secret straddles the join', () => {
  registerSecret('straddle-secret-0005');
  assert.ok(appendStaysClean('clean so far ', 'and clean after'), 'no secret anywhere');
  assert.ok(appendStaysClean('before ', 'then straddle-secret-0005 whole in the added text'), 'inside the added text: masked with it');
  assert.ok(appendStaysClean('held straddle-secret-0005', ' then more'), 'wholly before the join: already stored');
  assert.not.ok(appendStaysClean('streamed: straddle-sec', 'ret-0005 and on'), 'split by the join');
  assert.not.ok(appendStaysClean('straddle-secret-000', '5'), 'only its last character after the join');
  // A secret ending exactly at the join, overlapping one that crosses it: the crossing one is still found.
  registerSecret('abcabc-secret-0006');
  registerSecret('cabc-secret-0006x');
  assert.not.ok(appendStaysClean('...abcabc-secret-0006', 'x'), 'an overlapping match that crosses the join');
  assert.ok(appendStaysClean('', 'straddle-secret-0005'), 'nothing before');
});

test.run();
