import * as assert from 'uvu/assert';
import { suite } from '../../test-support/uvu.js';
import { AgentkitError } from '../errors.js';
import { checkRuleNames, decideGate, gateExitCode, parseRule } from './gate.js';
import { buildScorecard, type ScoredCase } from './scorecard.js';

const test = suite('eval gate');

const verdict = (passed: boolean, score = passed ? 1 : 0) => ({ passed, score, reason: null });

test('rule forms: scorer.field=v, bare scorer, overall, >=, dotted scorer names', () => {
  assert.equal(parseRule('exact_match.pass_rate=0.8'), { scorer: 'exact_match', field: 'pass_rate', minimum: 0.8, text: 'exact_match.pass_rate=0.8' });
  assert.equal(parseRule('contains=0.5').field, 'pass_rate');
  assert.is(parseRule('contains=0.5').scorer, 'contains');
  assert.equal([parseRule('overall.avg_score=0.7').scorer, parseRule('overall.avg_score=0.7').field], ['overall', 'avg_score']);
  assert.equal([parseRule('exact_match.pass_rate>=1').scorer, parseRule('exact_match.pass_rate>=1').minimum], ['exact_match', 1]);
  assert.equal([parseRule('my.scorer=0.2').scorer, parseRule('my.scorer=0.2').field], ['my.scorer', 'pass_rate']);
  assert.is(parseRule('custom.avg_score=3.5').minimum, 3.5, 'avg_score may exceed 1 for custom scales');
});

test('malformed rules are usage errors (exit 2) that quote the rule', () => {
  for (const [rule, message] of [
    ['exact_match', /must read <scorer\|overall>\.<pass_rate\|avg_score>=<value>/],
    ['exact_match.pass_rate=', /the value must be a number from 0 to 1, got ''/],
    ['exact_match.pass_rate=high', /got 'high'/],
    ['exact_match.pass_rate=1.5', /from 0 to 1, got '1.5'/],
    ['=0.5', /must read/],
    ['9bad=0.5', /'9bad' is not a scorer name/],
  ] as const) {
    try {
      parseRule(rule);
      assert.unreachable(`${rule} parsed`);
    } catch (error) {
      assert.instance(error, AgentkitError);
      assert.is((error as AgentkitError).exitCode, 2);
      assert.match((error as Error).message, message);
      assert.ok((error as Error).message.includes(`'${rule}'`), (error as Error).message);
    }
  }
});

test('a rule naming a scorer the run does not use is a usage error listing the scorers', () => {
  try {
    checkRuleNames([parseRule('exact_mach=0.5')], ['exact_match', 'contains']);
    assert.unreachable();
  } catch (error) {
    assert.is(
      (error as Error).message,
      "threshold rule 'exact_mach=0.5' names scorer 'exact_mach', which this run does not use (scorers: exact_match, contains; or 'overall')",
    );
  }
  checkRuleNames([parseRule('overall=0.5'), parseRule('contains=0.1')], ['contains']);
});

test('outcomes: passed, failed on a missed rule, invalid over the error rate or with nothing scored; invalid wins', () => {
  const cases: ScoredCase[] = [
    { error: null, per_scorer: { exact_match: verdict(true), contains: verdict(true) } },
    { error: null, per_scorer: { exact_match: verdict(true), contains: verdict(false) } },
    { error: null, per_scorer: { exact_match: verdict(false), contains: verdict(true) } },
    { error: 'boom', per_scorer: {} },
  ];
  const card = buildScorecard(['exact_match', 'contains'], cases);
  assert.equal(
    card.metrics.map((m) => [m.name, m.pass_rate, m.n]),
    [
      ['exact_match', 2 / 3, 3],
      ['contains', 2 / 3, 3],
    ],
  );
  assert.is(card.overall_pass_rate, 4 / 6, 'passed verdicts over all verdicts');
  assert.equal([card.total_cases, card.errored], [4, 1]);

  const passed = decideGate(card, [parseRule('exact_match.pass_rate=0.6'), parseRule('overall=0.5')], null);
  assert.equal(passed, {
    outcome: 'passed',
    checks: ['exact_match.pass_rate=0.6667 >= 0.6: PASS', 'overall.pass_rate=0.6667 >= 0.5: PASS'],
    scored: 3,
    errored: 1,
    error_rate: 0.25,
    max_error_rate: null,
  });
  const failed = decideGate(card, [parseRule('contains=0.9'), parseRule('overall.avg_score=0.5')], 0.5);
  assert.is(failed.outcome, 'failed');
  assert.equal(failed.checks, ['contains.pass_rate=0.6667 >= 0.9: FAIL', 'overall.avg_score=0.6667 >= 0.5: PASS', 'error_rate=0.25 <= 0.5: PASS']);
  const invalid = decideGate(card, [parseRule('contains=0.9')], 0.2);
  assert.is(invalid.outcome, 'invalid', 'error rate over the limit beats a missed rule');
  assert.equal(invalid.checks.at(-1), 'error_rate=0.25 <= 0.2: FAIL');
  const atLimit = decideGate(card, [], 0.25);
  assert.is(atLimit.outcome, 'passed', 'an error rate equal to the limit is within it');
  const nothing = decideGate(buildScorecard(['exact_match'], [{ error: 'x', per_scorer: {} }]), [], null);
  assert.is(nothing.outcome, 'invalid');
  assert.equal(nothing.checks, ['scored=0 > 0: FAIL']);
  assert.equal([gateExitCode('passed'), gateExitCode('failed'), gateExitCode('invalid')], [0, 1, 3]);
});

test.run();
