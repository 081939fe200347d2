import * as assert from 'uvu/assert';
import { suite } from '../../test-support/uvu.js';
import { Chain } from '../chain/chain.js';
import { ConfigError } from '../errors.js';
import { FunctionModel } from '../testing/index.js';
import { tool } from '../tools/index.js';
import { Agent } from './agent.js';

const test = suite('runner descriptions and pausing tools');

const llm = new FunctionModel(() => 'ok');

test('a runner keeps its description trimmed, empty when none; a non-string is a ConfigError naming it', () => {
  assert.is(new Agent({ name: 'a', llm, description: '  Looks orders up.  ', trace: false }).description, 'Looks orders up.');
  assert.is(new Agent({ name: 'a', llm, trace: false }).description, '');
  assert.is(new Agent({ name: 'a', llm, description: 'kept', trace: false }).clone({ agentPathLabel: 'x' }).description, 'kept');
  assert.is(new Chain('c', { description: 'Approves refunds.' }).description, 'Approves refunds.');
  assert.throws(
    () => new Agent({ name: 'a', llm, description: 5 as never }),
    (error: unknown) => error instanceof ConfigError && error.message === "agent 'a': description must be a string, not number",
  );
});

test('a tool declares that it pauses; by default it does not', () => {
  const pausing = tool({ name: 'approve', pauses: true, registry: false, execute: () => 'x' });
  const plain = tool({ name: 'look', registry: false, execute: () => 'x' });
  assert.is(pausing.pauses, true);
  assert.is(plain.pauses, false);
  assert.not.ok('pauses' in pausing.toDict(), 'the persisted form is unchanged');
});

test.run();
