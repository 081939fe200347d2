import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { randomBytes } from 'node:crypto';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { COMPRESS_MIN_CHARS, deltaText, storedDeltaForm } from './delta-compression.js';
import { ChainCheckpointError } from './errors.js';

const jsonDelta = JSON.stringify({
  append: { messages: [{ role: 'tool', content: JSON.stringify(Array.from({ length: 20 }, (_, i) => ({ order: i, status: 'shipped', city: 'Oslo' }))) }] },
});

test('a large delta that DEFLATE shrinks by a quarter or more is stored compressed, and reads back exactly', () => {
  const form = storedDeltaForm(jsonDelta);
  assert.is(form.text, null);
  assert.ok(form.deflated!.length < jsonDelta.length / 3, `${form.deflated!.length} bytes for ${jsonDelta.length}`);
  assert.is(inflateRawSync(form.deflated!).toString('utf8'), jsonDelta, 'raw DEFLATE of the UTF-8 text, readable by any zlib');
  assert.is(deltaText('cp', null, form.deflated), jsonDelta);
});

test('texts under the threshold and texts DEFLATE saves less than a quarter of stay text', () => {
  const short = JSON.stringify({ set: { turn: 3 }, append: { messages: [{ role: 'assistant', content: 'ok '.repeat(100) }] } });
  assert.ok(short.length < COMPRESS_MIN_CHARS);
  assert.equal(storedDeltaForm(short), { text: short, deflated: null });
  // Random printable characters: DEFLATE's Huffman stage saves 13-18% at best.
  const printable = Array.from({ length: 94 }, (_, i) => String.fromCharCode(33 + i))
    .filter((c) => c !== '"' && c !== '\\')
    .join('');
  const noise = JSON.stringify({ append: { text: [...randomBytes(2000)].map((b) => printable[b % printable.length]).join('') } });
  assert.equal(storedDeltaForm(noise), { text: noise, deflated: null });
});

test('non-ASCII text round-trips', () => {
  const text = JSON.stringify({ append: { messages: [{ role: 'user', content: 'Grüße aus Tromsø, 東京 und zurück. '.repeat(40) }] } });
  const form = storedDeltaForm(text);
  assert.ok(form.deflated);
  assert.is(deltaText('cp', null, form.deflated), text);
  assert.is(deltaText('cp', text, null), text, 'text wins when set');
  assert.is(deltaText('cp', null, null), null);
});

test('a damaged compressed delta is an error naming the checkpoint, not garbage', () => {
  const damaged = Buffer.from(deflateRawSync(Buffer.from(jsonDelta)).subarray(0, 20));
  const error = (() => {
    try {
      deltaText('cp-7', null, damaged);
      return null;
    } catch (caught) {
      return caught as Error;
    }
  })();
  assert.instance(error, ChainCheckpointError);
  assert.match(error!.message, /^checkpoint 'cp-7' cannot be read: its compressed delta is damaged/);
});

test.run();
