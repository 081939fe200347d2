import * as assert from 'uvu/assert';
import { PassThrough, Writable } from 'node:stream';
import { suite } from '../../test-support/uvu.js';
import { claimStdout } from './stdout.js';

const test = suite('mcp serve: stdout claimed for the protocol');

/** A stream that records what is written to it, the way stdout does (write inherited from the prototype). */
function recorder(): { stream: Writable; text: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
  return { stream, text: () => chunks.join('') };
}

test('other writes go to the diverted stream, the protocol stream to the real one; release puts write back', async () => {
  const out = recorder();
  const err = recorder();
  const inherited = out.stream.write;
  const claim = claimStdout(out.stream, err.stream);
  out.stream.write('agent chatter\n');
  out.stream.write(Buffer.from('bytes too\n'), () => undefined);
  await new Promise<void>((resolve) => claim.protocol.write('{"jsonrpc":"2.0"}\n', () => resolve()));
  assert.is(out.text(), '{"jsonrpc":"2.0"}\n');
  assert.is(err.text(), 'agent chatter\nbytes too\n');
  claim.release();
  claim.release();
  assert.is(out.stream.write, inherited, 'the inherited write is back');
  assert.not.ok(Object.hasOwn(out.stream, 'write'));
  out.stream.write('after\n');
  assert.is(out.text(), '{"jsonrpc":"2.0"}\nafter\n');
});

test('an own write method is restored as it was', () => {
  const stream = new PassThrough();
  const own = (() => true) as unknown as Writable['write'];
  stream.write = own;
  const claim = claimStdout(stream, new PassThrough());
  assert.is.not(stream.write, own);
  claim.release();
  assert.is(stream.write, own);
});

test.run();
