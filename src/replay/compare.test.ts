import * as assert from 'uvu/assert';
import { suite } from '../../test-support/uvu.js';
import type { ReplayStep } from '../types.js';
import { compareSteps, describeComparison, divergedAt } from './compare.js';
import { inputText, splitConfigPatch } from './modifications.js';
import { canonicalJson } from './canonical.js';

const test = suite('replay: compare and modifications');

function step(index: number, span_name: string, output: Record<string, unknown> = {}): ReplayStep {
  return {
    step: index,
    span_name,
    span_id: `s${index}`,
    input: {},
    output: output as ReplayStep['output'],
    attributes: {},
    timestamp: '2026-11-23T00:00:00.000000Z',
  };
}

const agent = (out: string) => step(0, 'agent.a', { 'agent.output': out });
const llm = (i: number, content: string, calls?: unknown[]) =>
  step(i, 'llm.chat_completion', { 'gen_ai.response.content': content, ...(calls ? { 'gen_ai.response.tool_calls': calls } : {}) });

test('identical lists: null; the root agent output alone differing: 0 (nothing else diverged)', () => {
  assert.is(divergedAt([agent('x'), llm(1, 'a')], [agent('x'), llm(1, 'a')]), null);
  assert.is(divergedAt([agent('x'), llm(1, 'a')], [agent('y'), llm(1, 'a')]), 0);
});

test('a model response differing wins over the root agent output (the first model step, not 0)', () => {
  assert.is(divergedAt([agent('x'), llm(1, 'a'), llm(2, 'b')], [agent('y'), llm(1, 'a'), llm(2, 'c')]), 2);
});

test('a model asked something else diverges there even when it answered the same; tool-call ids do not count', () => {
  const asked = (i: number, messages: unknown[]) => ({ ...llm(i, 'same'), input: { 'gen_ai.request.messages': messages } as ReplayStep['input'] });
  const call = (id: string) => ({ role: 'assistant', content: null, tool_calls: [{ id, name: 't', arguments: { a: 1 } }] });
  const original = [
    agent('x'),
    asked(1, [{ role: 'system', content: 'Be brief.' }]),
    asked(2, [call('call_1'), { role: 'tool', tool_call_id: 'call_1', content: 'r' }]),
  ];
  const reworded = [agent('x'), asked(1, [{ role: 'system', content: 'Be polite.' }]), original[2]!];
  const renumbered = [agent('x'), original[1]!, asked(2, [call('call_9'), { role: 'tool', tool_call_id: 'call_9', content: 'r' }])];
  assert.is(divergedAt(original, reworded), 1);
  assert.is(divergedAt(original, renumbered), null);
  const text = describeComparison(compareSteps(original, reworded));
  assert.match(text, /^Diverged at step 1 \(llm\.chat_completion\): the request changed\.\n- system: Be brief\.\n\+ system: Be polite\.$/);
});

test('span names differing, and one list a prefix of the other', () => {
  assert.is(divergedAt([agent('x'), llm(1, 'a'), step(2, 'tool.t')], [agent('x'), llm(1, 'a'), step(2, 'tool.u')]), 2);
  assert.is(divergedAt([agent('x'), llm(1, 'a'), step(2, 'tool.t')], [agent('y'), llm(1, 'a')]), 2, 'min(len), not the agent output');
  assert.is(divergedAt([agent('x')], [agent('x'), llm(1, 'a')]), 1);
});

test('tool calls are compared without their ids; arguments count', () => {
  const call = (id: string, args: unknown) => [{ id, name: 'lookup', arguments: args }];
  assert.is(divergedAt([llm(0, '', call('call_1', { id: '1' }))], [llm(0, '', call('call_7', { id: '1' }))]), null);
  assert.is(divergedAt([llm(0, '', call('call_1', { id: '1' }))], [llm(0, '', call('call_1', { id: '2' }))]), 0);
  assert.is(
    divergedAt([llm(0, '', [{ name: 'l', arguments: { a: 1, b: 2 } }])], [llm(0, '', [{ arguments: { b: 2, a: 1 }, name: 'l' }])]),
    null,
    'key order does not matter',
  );
});

test('describeComparison: none, missing rerun, prefix, renamed span, a line diff', () => {
  assert.is(describeComparison(compareSteps([agent('x')], [agent('x')])), "No divergence: the rerun's 1 steps match the original's.");
  assert.is(describeComparison(compareSteps([agent('x')], null)), 'The rerun has no trace to compare (tracing was off).');
  assert.is(
    describeComparison(compareSteps([agent('x'), llm(1, 'a')], [agent('x')])),
    'Diverged at step 1: the original has 1 more step:\n  [1] llm.chat_completion',
  );
  assert.is(
    describeComparison(compareSteps([agent('x'), step(1, 'tool.a')], [agent('x'), step(1, 'tool.b')])),
    'Diverged at step 1: the original ran tool.a, the rerun ran tool.b.',
  );
  assert.is(
    describeComparison(compareSteps([llm(0, 'one\ntwo')], [llm(0, 'one\nthree')])),
    'Diverged at step 0 (llm.chat_completion): the output changed.\n  one\n- two\n+ three',
  );
});

test('inputText and splitConfigPatch: the shapes a fork accepts, and what it refuses', () => {
  assert.is(inputText('hi'), 'hi');
  assert.is(inputText({ input: 'from object' }), 'from object');
  assert.is(inputText({ order: 42 }), '{"order":42}');
  assert.throws(() => inputText(undefined), /modifyInput needs a value/);
  assert.equal(splitConfigPatch({ max_tokens: 10, top_p: 0.5, temperature: 1, model: 'gpt-4o', max_iterations: 3 }), {
    config: { temperature: 1, maxTokens: 10, topP: 0.5, maxIterations: 3 },
    model: 'gpt-4o',
  });
  assert.throws(() => splitConfigPatch({ temprature: 1 } as never), /modifyConfig: unknown setting 'temprature'/);
  assert.throws(() => splitConfigPatch({ model: '' }), /model must be a non-empty string/);
  assert.is(canonicalJson({ b: [1, { d: 1, c: undefined }], a: null }), '{"a":null,"b":[1,{"d":1}]}');
});

test.run();
