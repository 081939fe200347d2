/** Labels: pointing, moving, removing, refusing a missing version, and a move seen by another handle at its next read. */
import assert from 'node:assert/strict';
import { NotFoundError } from '../../errors.js';
import { registryOn, rejection } from './fixtures.js';
import type { PromptContractCase } from './types.js';

export const labelCases: PromptContractCase[] = [
  {
    group: 'labels',
    name: 'labels point at versions, move, and are removed; a version lists the labels on it now',
    async run({ store }) {
      const registry = registryOn(store);
      await registry.register('support', 'one');
      await registry.register('support', 'two', { labels: ['production'] });
      await registry.register('support', 'three');
      assert.equal(await store.labelTarget('support', 'production'), 2);
      assert.deepEqual(await store.setLabel('support', 'production', 3), { before: 2 });
      assert.deepEqual(await store.setLabel('support', 'staging', 3), { before: null });
      assert.deepEqual(await store.setLabel('support', 'canary', 1), { before: null });
      assert.deepEqual(await store.labelNames('support'), ['canary', 'production', 'staging']);
      assert.deepEqual((await store.readVersion('support', 3))?.labels, ['production', 'staging']);
      assert.deepEqual((await store.readVersion('support', 2))?.labels, []);
      assert.equal((await registry.load('support', { label: 'production' })).version, 3);
      assert.equal((await registry.load('support', { label: 'latest' })).version, 3);
      assert.equal(await store.removeLabel('support', 'canary'), true);
      assert.equal(await store.removeLabel('support', 'canary'), false);
      const gone = await rejection(() => registry.load('support', { label: 'canary' }));
      assert.ok(gone instanceof NotFoundError);
      assert.equal(gone.message, "prompt 'support' has no label 'canary' (labels: production, staging)");
      // Labels given with an unchanged registration still move.
      const unchanged = await registry.register('support', 'three', { labels: ['canary'] });
      assert.equal(unchanged.created, false);
      assert.equal(await store.labelTarget('support', 'canary'), 3);
    },
  },
  {
    group: 'labels',
    name: 'a label on a missing version is refused and nothing is written',
    async run({ store }) {
      const registry = registryOn(store);
      await registry.register('support', 'one', { labels: ['production'] });
      assert.equal(await store.setLabel('support', 'production', 7), undefined);
      assert.equal(await store.setLabel('nope', 'production', 1), undefined);
      assert.equal(await store.labelTarget('support', 'production'), 1);
      assert.equal(await store.labelTarget('nope', 'production'), undefined);
      const error = await rejection(() => registry.setLabel('support', 'production', 7));
      assert.equal(error.message, "prompt 'support' has no version 7 (versions 1-1)");
    },
  },
  {
    group: 'labels',
    name: 'a label moved through one handle is what another handle reads next (no cache)',
    async run({ store, reopen }) {
      const registry = registryOn(store);
      for (const text of ['one', 'two', 'three']) await registry.register('support', text);
      const other = await reopen();
      const reader = registryOn(other);
      try {
        for (const version of [1, 3, 2, 3, 1]) {
          await registry.setLabel('support', 'production', version);
          assert.equal((await reader.load('support', { label: 'production' })).version, version);
          assert.equal(await other.labelTarget('support', 'production'), version);
        }
        await registry.register('support', 'four');
        assert.equal((await reader.load('support')).version, 4, 'latest is read at every load too');
      } finally {
        await other.close();
      }
    },
  },
];
