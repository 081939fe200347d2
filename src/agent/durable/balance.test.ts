import * as assert from 'uvu/assert';
import { suite } from '../../../test-support/uvu.js';
import { assistantMessage, systemMessage, toolMessage, userMessage, type Message } from '../../llm/messages.js';
import { balanceToolMessages, NOT_RUN_NOTE, toolMessageImbalance } from './balance.js';

const test = suite('balanceToolMessages');

const call = (id: string, name = 'f') => ({ id, name, arguments: {} });
const note = `[no result: ${NOT_RUN_NOTE}]`;

test('a balanced history comes back equal (and is not the same array)', () => {
  const history: Message[] = [
    systemMessage('s'),
    userMessage('u'),
    assistantMessage(null, [call('a'), call('b')]),
    toolMessage('a', 'f', '1'),
    toolMessage('b', 'f', '2'),
    assistantMessage('done'),
  ];
  const balanced = balanceToolMessages(history);
  assert.equal(balanced, history);
  assert.is.not(balanced, history);
  // A copy all the way down: changing what comes back leaves the input as it was.
  (balanced[2] as { tool_calls: Array<{ arguments: Record<string, unknown> }> }).tool_calls[0]!.arguments.changed = true;
  (balanced[3] as { content: string }).content = 'changed';
  assert.equal(history[2], assistantMessage(null, [call('a'), call('b')]));
  assert.equal(history[3], toolMessage('a', 'f', '1'));
  assert.equal(toolMessageImbalance(history), []);
});

test('unanswered calls are answered in order after the results the turn has, at the end and mid-history', () => {
  const history: Message[] = [
    userMessage('u'),
    assistantMessage(null, [call('a'), call('b', 'g'), call('c')]),
    toolMessage('a', 'f', '1'),
    userMessage('again'),
    assistantMessage(null, [call('d')]),
  ];
  assert.equal(toolMessageImbalance(history), ["tool call 'b' has no result", "tool call 'c' has no result", "tool call 'd' has no result"]);
  assert.equal(balanceToolMessages(history), [
    userMessage('u'),
    assistantMessage(null, [call('a'), call('b', 'g'), call('c')]),
    toolMessage('a', 'f', '1'),
    toolMessage('b', 'g', note, true),
    toolMessage('c', 'f', note, true),
    userMessage('again'),
    assistantMessage(null, [call('d')]),
    toolMessage('d', 'f', note, true),
  ]);
});

test('orphan and duplicate results are dropped; a custom note is used', () => {
  const history: Message[] = [
    toolMessage('x', 'f', 'orphan'),
    userMessage('u'),
    assistantMessage(null, [call('a')]),
    toolMessage('a', 'f', '1'),
    toolMessage('a', 'f', 'again'),
    toolMessage('z', 'f', 'stray'),
  ];
  assert.equal(toolMessageImbalance(history), [
    "tool result 'x' answers no open tool call",
    "tool result 'a' answers no open tool call",
    "tool result 'z' answers no open tool call",
  ]);
  assert.equal(balanceToolMessages(history, 'skipped'), [userMessage('u'), assistantMessage(null, [call('a')]), toolMessage('a', 'f', '1')]);
  assert.equal(balanceToolMessages([assistantMessage(null, [call('q')])], 'skipped'), [
    assistantMessage(null, [call('q')]),
    toolMessage('q', 'f', '[no result: skipped]', true),
  ]);
});

test.run();
