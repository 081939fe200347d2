/** Fragments: snapshotted into versions, replaced, refused when unknown or cyclic (writing nothing). */
import assert from 'node:assert/strict';
import { PromptError } from '../errors.js';
import { registryOn, rejection } from './fixtures.js';
import type { PromptContractCase } from './types.js';

export const fragmentCases: PromptContractCase[] = [
  {
    group: 'fragments',
    name: 'a version keeps the fragment content it was made with; a changed fragment makes the next registration a new version',
    async run({ store }) {
      const registry = registryOn(store);
      await registry.registerFragment('tone', 'Be warm.');
      await registry.registerFragment('sign', 'Bye, {{agent}}. {{@tone}}');
      const v1 = await registry.register('support', 'Hello {{name}}. {{@sign}}');
      assert.deepEqual(v1.version.fragments, { sign: 'Bye, {{agent}}. {{@tone}}', tone: 'Be warm.' });
      assert.deepEqual(v1.version.variables, ['name', 'agent']);
      await registry.registerFragment('tone', 'Be brief.\u0000');
      assert.equal(await store.fragment('tone'), 'Be brief.\u0000');
      assert.deepEqual((await store.readVersion('support', 1))?.fragments.tone, 'Be warm.');
      const v2 = await registry.register('support', 'Hello {{name}}. {{@sign}}');
      assert.deepEqual([v2.created, v2.version.version, v2.version.fragments.tone], [true, 2, 'Be brief.\u0000']);
      assert.equal((await registry.load('support', { version: 1 })).render({ name: 'Ann', agent: 'Bo' }), 'Hello Ann. Bye, Bo. Be warm.');
    },
  },
  {
    group: 'fragments',
    name: 'a fragment including an unknown fragment, or itself, is refused and the old content stays',
    async run({ store }) {
      const registry = registryOn(store);
      await registry.registerFragment('a', 'plain');
      await registry.registerFragment('b', 'with {{@a}}');
      const unknown = await rejection(() => registry.registerFragment('c', 'with {{@nope}}'));
      assert.ok(unknown instanceof PromptError);
      assert.equal(unknown.message, "fragment 'nope' is not registered");
      assert.equal(await store.fragment('c'), undefined);
      const cycle = await rejection(() => registry.registerFragment('a', 'back to {{@b}}'));
      assert.ok(cycle instanceof PromptError);
      assert.match(cycle.message, /^fragment '[ab]' includes itself \(([ab]) -> [ab] -> \1\)$/);
      assert.equal(await store.fragment('a'), 'plain');
      const direct = await rejection(() =>
        store.putFragment('d', 'x', () => {
          throw new PromptError('refused by check');
        }),
      );
      assert.equal(direct.message, 'refused by check');
      assert.equal(await store.fragment('d'), undefined);
    },
  },
];
