import * as assert from 'uvu/assert';
import { suite } from '../../test-support/uvu.js';
import { FunctionModel } from '../testing/index.js';
import type { Message } from '../llm/messages.js';
import type { EvalDatasetCase } from './dataset.js';
import { EvalError } from './errors.js';
import { BUILTIN_SCORERS, resolveScorers } from './registry.js';
import { scorer, type Scorer } from './scorer.js';

const test = suite('eval scorers');

const run = async (s: Scorer, output: string, expected?: string, extra: Record<string, unknown> = {}) => {
  const testCase: EvalDatasetCase = { input: 'q', ...(expected === undefined ? {} : { expected_output: expected }), ...extra };
  return s.score({ input: 'q', output, expected, case: testCase });
};

test('built-ins: exact_match trims, contains ignores case, json_valid, regex_match from option, case or expected', async () => {
  const [exact, contains, json, regex] = resolveScorers(['exact_match', 'contains', 'json_valid', 'regex_match']);
  assert.equal(await run(exact!, '  Paris \n', 'Paris'), { passed: true, score: 1, reason: null });
  assert.equal(await run(exact!, 'paris', 'Paris'), { passed: false, score: 0, reason: 'output differs from the expected output' });
  assert.equal(await run(exact!, 'Paris'), { passed: false, score: 0, reason: 'No expected output' });
  assert.is((await run(contains!, 'It is PARIS.', 'paris')).passed, true);
  assert.is((await run(contains!, 'Lyon', 'paris')).passed, false);
  assert.is((await run(json!, '{"a":1}')).passed, true);
  assert.match((await run(json!, '{a:1}')).reason!, /^not JSON: /);
  assert.is((await run(regex!, 'order 42 shipped', '^order \\d+')).passed, true);
  assert.is((await run(regex!, 'order 42 shipped', 'x', { pattern: 'shipped$' })).passed, true, 'the case pattern wins over expected');
  const [fixed] = resolveScorers(['regex_match'], { pattern: '^\\d{3}$' });
  assert.is((await run(fixed!, '123', 'no')).passed, true);
  assert.is((await run(fixed!, '1234')).passed, false);
  await run(regex!, 'x', '(').then(
    () => assert.unreachable(),
    (error: Error) => assert.match(error.message, /regex_match: invalid pattern/),
  );
});

test('custom scorers: functions (sync, async, boolean, number), objects, wrong returns throw', async () => {
  const polite = (_input: unknown, output: string) => ({ score: output.includes('please') ? 1 : 0, reason: 'checked' });
  const [fromFn, asyncFn, boolFn, numFn, obj] = resolveScorers([
    polite,
    scorer('short', async (_i, output) => ({ passed: output.length < 5, score: 1 / output.length })),
    scorer('has_q', (_i, output) => output.includes('?')),
    scorer('ratio', () => 0.4),
    { name: 'always', score: () => ({ passed: true, score: 1, reason: null }) },
  ]);
  assert.is(fromFn!.name, 'polite');
  assert.equal(await run(fromFn!, 'please'), { passed: true, score: 1, reason: 'checked' });
  assert.equal(await run(asyncFn!, 'abcd'), { passed: true, score: 0.25, reason: null });
  assert.equal(await run(boolFn!, 'why?'), { passed: true, score: 1, reason: null });
  assert.equal(await run(numFn!, 'x'), { passed: false, score: 0.4, reason: null });
  assert.is((await run(obj!, 'x')).passed, true);
  const [broken] = resolveScorers([scorer('broken', () => 'yes' as unknown as boolean)]);
  await run(broken!, 'x').then(
    () => assert.unreachable(),
    (error: Error) => assert.is(error.message, `scorer 'broken' returned "yes"; expected { score, passed, reason }, a boolean or a number`),
  );
});

test('unknown scorer: an EvalError (exit 3) listing every built-in; duplicates and missing judge models too', () => {
  assert.throws(
    () => resolveScorers(['exact_match', 'exactmatch']),
    (error: EvalError) =>
      error instanceof EvalError && error.exitCode === 3 && error.message === `unknown scorer 'exactmatch'; available: ${BUILTIN_SCORERS.join(', ')}`,
  );
  assert.throws(() => resolveScorers(['contains', 'contains']), /scorer 'contains' is listed twice/);
  assert.throws(() => resolveScorers(['llm_judge']), /scorer 'llm_judge' needs a judge model: pass scorerOptions.judgeModel \(SDK\) or --judge-model \(CLI\)/);
  assert.throws(() => resolveScorers([]), /no scorers given/);
});

test('llm_judge: binary and scaled verdicts from a deterministic model; criteria, rubric and reference reach it', async () => {
  const seen: Message[][] = [];
  const model = new FunctionModel((messages) => {
    seen.push([...messages]);
    const answer = (messages[1]!.content ?? '').split('Answer to evaluate:')[1] ?? '';
    if (messages[0]!.content!.includes('integer 1-5')) return { text: `Score: {"score": ${answer.includes('Paris') ? 5 : 2}, "reason": "graded"}` };
    return { text: `\`\`\`json\n${JSON.stringify({ passed: answer.includes('Paris'), reason: 'judged' })}\n\`\`\`` };
  });
  const [binary] = resolveScorers(['llm_judge'], { judgeModel: model, llmJudge: { criteria: 'factual accuracy', rubric: 'Paris is right' } });
  assert.equal(await run(binary!, 'The capital is Paris.', 'Paris'), { passed: true, score: 1, reason: 'judged' });
  assert.equal(await run(binary!, 'Lyon.', 'Paris'), { passed: false, score: 0, reason: 'judged' });
  assert.match(seen[0]![0]!.content!, /Criteria: factual accuracy\.\nRubric:\nParis is right/);
  assert.match(seen[0]![1]!.content!, /Question:\nq\n\nReference answer:\nParis\n\nAnswer to evaluate:\nThe capital is Paris\./);
  const [scaled] = resolveScorers(['llm_judge'], { judgeModel: model, llmJudge: { scale: 5, threshold: 0.5 } });
  assert.equal(await run(scaled!, 'Paris'), { passed: true, score: 1, reason: 'graded' });
  assert.equal(await run(scaled!, 'Lyon'), { passed: false, score: 0.25, reason: 'graded' });
  const [vague] = resolveScorers(['llm_judge'], { judgeModel: new FunctionModel(() => ({ text: 'I think it is fine' })) });
  await run(vague!, 'x').then(
    () => assert.unreachable(),
    (error: Error) => assert.match(error.message, /llm_judge: the model's answer holds no JSON object/),
  );
  assert.throws(() => resolveScorers(['llm_judge'], { judgeModel: model, llmJudge: { scale: 1 } }), /scale must be 'binary' or an integer of at least 2/);
});

test('faithfulness: share of claims the context supports; no context errors; no claims pass', async () => {
  const model = new FunctionModel((messages) => {
    const system = messages[0]!.content!;
    const user = messages[1]!.content!;
    if (system.startsWith('List every factual claim')) {
      return { text: JSON.stringify({ claims: user.includes('nothing') ? [] : ['Refunds take 5 days.', 'Refunds are free.', 'The moon is cheese.'] }) };
    }
    const context = user.split('Claims:')[0]!;
    const claims = user
      .split('Claims:\n')[1]!
      .split('\n')
      .map((l) => l.replace(/^\d+\. /, ''));
    return { text: JSON.stringify({ verdicts: claims.map((claim) => ({ claim, supported: context.includes(claim.replace('.', '')) })) }) };
  });
  const [faith] = resolveScorers(['faithfulness'], { judgeModel: model });
  const result = await run(faith!, 'Refunds take 5 days, free, moon cheese.', undefined, { contexts: ['Refunds take 5 days', 'Refunds are free'] });
  assert.equal(result, { passed: false, score: 2 / 3, reason: '2 of 3 claims supported by the context' });
  const lenient = resolveScorers(['faithfulness'], { judgeModel: model, faithfulnessThreshold: 0.6 })[0]!;
  assert.is((await run(lenient, 'same', undefined, { context: 'Refunds take 5 days. Refunds are free' })).passed, true);
  assert.equal(await run(faith!, 'nothing to say', undefined, { context: 'x' }), { passed: true, score: 1, reason: 'the output makes no claims' });
  await run(faith!, 'x').then(
    () => assert.unreachable(),
    (error: Error) => assert.is(error.message, 'faithfulness: the case has no "context" or "contexts"'),
  );
});

test.run();
