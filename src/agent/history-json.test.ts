import * as assert from 'uvu/assert';
import { suite } from '../../test-support/uvu.js';
import { assistantMessage, systemMessage, toolMessage, userMessage, type Message } from '../llm/messages.js';
import { historyJson } from './history-json.js';

const test = suite('agent: history JSON for model spans');

test('equals JSON.stringify of the history as it grows, turn after turn', () => {
  const history: Message[] = [];
  assert.is(historyJson(history), '[]');
  history.push(systemMessage('Be brief.'), userMessage('say "hi"\n'));
  assert.is(historyJson(history), JSON.stringify(history));
  history.push(assistantMessage(null, [{ id: 'c1', name: 'echo', arguments: { text: 'ü' } }]), toolMessage('c1', 'echo', 'ü'));
  assert.is(historyJson(history), JSON.stringify(history));
  assert.is(historyJson(history), JSON.stringify(history), 'unchanged: the same text again');
});

test('only the messages appended since the last call are encoded (not the whole history each turn)', () => {
  const history: Message[] = [systemMessage('s'), userMessage('u')];
  historyJson(history);
  const original = JSON.stringify;
  const encoded: unknown[] = [];
  JSON.stringify = ((value: unknown, ...rest: unknown[]) => {
    encoded.push(value);
    return (original as (...args: unknown[]) => string)(value, ...rest);
  }) as typeof JSON.stringify;
  try {
    history.push(assistantMessage('a'), userMessage('again'));
    historyJson(history);
  } finally {
    JSON.stringify = original;
  }
  assert.equal(encoded, [history[2], history[3]]);
});

test('a history whose encoded prefix was removed, replaced or reordered is encoded again', () => {
  const history: Message[] = [userMessage('a'), userMessage('b')];
  historyJson(history);
  history[1] = userMessage('replaced');
  assert.is(historyJson(history), JSON.stringify(history));
  history.reverse();
  assert.is(historyJson(history), JSON.stringify(history));
  history.pop();
  assert.is(historyJson(history), JSON.stringify(history));
  const other = [userMessage('x')];
  assert.is(historyJson(other), JSON.stringify(other), 'each history array is its own');
});

test.run();
