import * as assert from 'uvu/assert';
import { suite } from '../../test-support/uvu.js';
import { FunctionModel } from './function-model.js';
import { ScriptedModel } from './scripted-model.js';

const test = suite('deterministic models keep a bounded history');

test('a FunctionModel answering 1,000 calls keeps the last 100 requests and counts all 1,000', async () => {
  const model = new FunctionModel((messages) => `echo ${messages.at(-1)!.content ?? ''}`);
  for (let i = 0; i < 1000; i++) await model.complete({ messages: [{ role: 'user', content: `m${i}` }] });
  assert.is(model.calls, 1000);
  assert.is(model.requests.length, 100);
  assert.equal(model.received[0], [{ role: 'user', content: 'm900' }]);
  assert.equal(model.received.at(-1), [{ role: 'user', content: 'm999' }]);
});

test('historyLimit 0 keeps nothing; a ScriptedModel still plays its turns in order', async () => {
  const model = new ScriptedModel(['one', 'two', 'three'], { historyLimit: 0 });
  const texts: string[] = [];
  for (let i = 0; i < 3; i++) texts.push((await model.complete({ messages: [{ role: 'user', content: 'x' }] })).text);
  assert.equal(texts, ['one', 'two', 'three']);
  assert.is(model.calls, 3);
  assert.is(model.remaining, 0);
  assert.is(model.requests.length, 0);
});

test.run();
