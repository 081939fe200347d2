import * as assert from 'uvu/assert';
import { suite } from '../../test-support/uvu.js';
import { PromptError } from './errors.js';
import { collectFragments, expandFragments, fragmentNames, substitute, variableNames } from './template.js';

const test = suite('prompts: templates');

test('variables and fragments are found in order of first use, whitespace inside braces allowed', () => {
  const text = 'Hi {{ name }}, {{@greeting}} {{order.id}} {{name}} {{@sign-off}}';
  assert.equal(variableNames(text), ['name', 'order.id']);
  assert.equal(fragmentNames(text), ['greeting', 'sign-off']);
});

test('fragments nest and may use variables; a value is never expanded again', () => {
  const fragments = collectFragments('{{@outer}}!', (n) => ({ outer: 'A {{@inner}}', inner: 'dear {{who}}' })[n]);
  assert.equal(fragments, { outer: 'A {{@inner}}', inner: 'dear {{who}}' });
  const expanded = expandFragments('{{@outer}}!', fragments);
  assert.is(expanded, 'A dear {{who}}!');
  assert.is(substitute(expanded, { who: '{{who}} {{@outer}}' }, 'p'), 'A dear {{who}} {{@outer}}!');
  assert.is(substitute('n={{n}} o={{o}}', { n: 3, o: { a: 1 } }, 'p'), 'n=3 o={"a":1}');
});

test('missing variables, unknown fragments and cycles are PromptErrors naming them', () => {
  assert.throws(
    () => substitute('{{a}} {{b}} {{c}}', { b: 'x' }, "prompt 'p' v1"),
    (e: Error) => e instanceof PromptError && e.message === "prompt 'p' v1: missing variables 'a', 'c'",
  );
  assert.throws(
    () => collectFragments('{{@nope}}', () => undefined),
    (e: Error) => e.message === "fragment 'nope' is not registered",
  );
  assert.throws(
    () => collectFragments('{{@a}}', (n) => ({ a: '{{@b}}', b: '{{@a}}' })[n]),
    (e: Error) => e.message === "fragment 'a' includes itself (a -> b -> a)",
  );
});

test.run();
