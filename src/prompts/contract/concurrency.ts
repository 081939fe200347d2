/** Concurrent writers on two handles (as two processes): distinct consecutive version numbers, no lost version. */
import assert from 'node:assert/strict';
import { registryOn } from './fixtures.js';
import type { PromptContractCase } from './types.js';

export const concurrencyCases: PromptContractCase[] = [
  {
    group: 'concurrency',
    name: 'registrations racing from two handles get distinct consecutive versions, each with its own template',
    async run({ store, reopen }) {
      const other = await reopen();
      try {
        const registries = [registryOn(store), registryOn(other)];
        const made = await Promise.all(Array.from({ length: 20 }, (_, i) => registries[i % 2]!.register('racy', `template ${i}`).then((r) => ({ i, r }))));
        const numbers = made.map(({ r }) => r.version.version).sort((a, b) => a - b);
        assert.deepEqual(
          numbers,
          Array.from({ length: 20 }, (_, i) => i + 1),
        );
        assert.ok(made.every(({ r }) => r.created));
        assert.deepEqual(await store.versionNumbers('racy'), numbers);
        assert.equal(await other.latestVersion('racy'), 20);
        for (const { i, r } of made) assert.equal((await store.readVersion('racy', r.version.version))?.template, `template ${i}`);
      } finally {
        await other.close();
      }
    },
  },
  {
    group: 'concurrency',
    name: 'the same content registered from two handles at once makes one version',
    async run({ store, reopen }) {
      const other = await reopen();
      try {
        const results = await Promise.all([registryOn(store).register('once', 'same'), registryOn(other).register('once', 'same')]);
        assert.deepEqual(results.map((r) => r.version.version).sort(), [1, 1]);
        assert.deepEqual(results.map((r) => r.created).sort(), [false, true]);
        assert.deepEqual(await store.versionNumbers('once'), [1]);
      } finally {
        await other.close();
      }
    },
  },
];
