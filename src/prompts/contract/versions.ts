/** Versions: numbering, unchanged content, the stored fields, listing, exact text, and failed writes. */
import assert from 'node:assert/strict';
import { NotFoundError } from '../../errors.js';
import { PromptError } from '../errors.js';
import { registryOn, rejection, STORED_TIME } from './fixtures.js';
import type { PromptContractCase } from './types.js';

export const versionCases: PromptContractCase[] = [
  {
    group: 'versions',
    name: 'an empty store lists nothing and knows no prompt, version, label or fragment',
    async run({ store }) {
      assert.deepEqual(await store.list(), []);
      assert.equal(await store.latestVersion('support'), undefined);
      assert.deepEqual(await store.versionNumbers('support'), []);
      assert.equal(await store.readVersion('support', 1), undefined);
      assert.equal(await store.labelTarget('support', 'production'), undefined);
      assert.deepEqual(await store.labelNames('support'), []);
      assert.equal(await store.fragment('tone'), undefined);
      const error = await rejection(() => registryOn(store).load('support'));
      assert.ok(error instanceof NotFoundError);
      assert.equal(error.message, "prompt 'support' is not registered");
    },
  },
  {
    group: 'versions',
    name: 'versions are numbered 1, 2, 3 with their fields; unchanged content makes none',
    async run({ store }) {
      const registry = registryOn(store);
      const first = await registry.register('support', 'Hello {{name}}', {
        description: 'Greets',
        tags: ['a', 'b'],
        metadata: { model: 'x' },
        createdBy: 'ci',
      });
      assert.equal(first.created, true);
      assert.equal(first.version.version, 1);
      const second = await registry.register('support', 'Hi {{name}}');
      assert.deepEqual([second.created, second.version.version], [true, 2]);
      const same = await registry.register('support', 'Hi {{name}}');
      assert.deepEqual([same.created, same.version.version], [false, 2]);
      const third = await registry.register('support', 'Hi {{name}}', { metadata: { temperature: 0 }, description: 'Greets warmly' });
      assert.deepEqual([third.created, third.version.version], [true, 3], 'other metadata is other content');
      assert.deepEqual(await store.versionNumbers('support'), [1, 2, 3]);
      assert.equal(await store.latestVersion('support'), 3);

      const v1 = await store.readVersion('support', 1);
      assert.ok(v1);
      assert.match(v1.created_at, STORED_TIME);
      assert.deepEqual(
        { ...v1, created_at: '' },
        {
          name: 'support',
          version: 1,
          template: 'Hello {{name}}',
          variables: ['name'],
          fragments: {},
          metadata: { model: 'x' },
          description: 'Greets warmly',
          tags: ['a', 'b'],
          labels: [],
          created_at: '',
          created_by: 'ci',
          origin: 'local',
        },
        "the description is the prompt's latest; tags kept when a registration gives none",
      );
      const v2 = await store.readVersion('support', 2);
      assert.equal(v2?.created_by, null);
      assert.ok(v2!.created_at > v1.created_at, 'later versions have later times');
      assert.equal(await store.readVersion('support', 4), undefined);
      const missing = await rejection(() => registry.load('support', { version: 4 }));
      assert.equal(missing.message, "prompt 'support' has no version 4 (versions 1-3)");
    },
  },
  {
    group: 'list',
    name: 'list: one row per prompt in byte order, with latest version, count, labels, description, tags and time',
    async run({ store }) {
      const registry = registryOn(store);
      await registry.register('b', 'b one', { tags: ['x'] });
      await registry.register('b', 'b two', { labels: ['production'] });
      await registry.register('B', 'B one', { description: 'upper' });
      await registry.register('a/x', 'a one', { labels: ['staging', 'canary'] });
      const list = await store.list();
      assert.deepEqual(
        list.map((p) => [p.name, p.latest_version, p.versions, p.labels, p.description, p.tags]),
        [
          ['B', 1, 1, {}, 'upper', []],
          ['a/x', 1, 1, { canary: 1, staging: 1 }, '', []],
          ['b', 2, 2, { production: 2 }, '', ['x']],
        ],
      );
      for (const p of list) assert.match(p.updated_at, STORED_TIME);
      assert.deepEqual(Object.keys(list[1]!.labels), ['canary', 'staging'], 'labels in byte order');
    },
  },
  {
    group: 'versions',
    name: 'text round-trips exactly: NUL, U+E000, emoji, metadata key order',
    async run({ store, reopen }) {
      const registry = registryOn(store);
      const template = 'A\u0000B \uE000 \uE0000 \u{1F600} {{who}}\n';
      const metadata = { z: 1, a: { y: 'nul\u0000', b: [2, '\uE000'] } };
      const made = await registry.register('text', template, { metadata, description: 'd\u0000', createdBy: 'me\u0000' });
      const other = await reopen();
      try {
        const read = await other.readVersion('text', 1);
        assert.equal(read?.template, template);
        assert.equal(JSON.stringify(read?.metadata), JSON.stringify(metadata), 'keys keep their order');
        assert.equal(read?.description, 'd\u0000');
        assert.equal(read?.created_by, 'me\u0000');
        assert.deepEqual(read, made.version.toJSON());
      } finally {
        await other.close();
      }
      const again = await registry.register('text', template, { metadata: { z: 1, a: { y: 'nul\u0000', b: [2, '\uE000'] } } });
      assert.deepEqual([again.created, again.version.version], [false, 1], 'the same content, read back, is the same');
    },
  },
  {
    group: 'versions',
    name: 'a failed registration writes nothing: no prompt, no version, no label moved',
    async run({ store }) {
      const registry = registryOn(store);
      const undeclared = await rejection(() => registry.register('support', 'Hi {{name}}', { variables: ['customer'], labels: ['production'] }));
      assert.ok(undeclared instanceof PromptError);
      assert.deepEqual(await store.list(), []);
      await registry.register('support', 'v1', { labels: ['production'] });
      const unknown = await rejection(() => registry.register('support', 'v2 {{@missing}}', { labels: ['production'] }));
      assert.equal(unknown.message, "fragment 'missing' is not registered");
      assert.equal(await store.latestVersion('support'), 1);
      assert.deepEqual(await store.versionNumbers('support'), [1]);
      assert.equal(await store.labelTarget('support', 'production'), 1);
      const direct = await rejection(() =>
        store.addVersion({
          name: 'other',
          labels: [],
          createdBy: null,
          content: () => {
            throw new PromptError('refused by content');
          },
        }),
      );
      assert.equal(direct.message, 'refused by content');
      assert.equal(await store.latestVersion('other'), undefined);
    },
  },
  {
    group: 'close',
    name: 'close is idempotent and a closed store rejects further calls; the rows stay for other handles',
    async run({ store, reopen }) {
      const handle = await reopen();
      await registryOn(handle).register('support', 'one');
      await handle.close();
      await handle.close();
      await assert.rejects(handle.latestVersion('support'), /closed/);
      await assert.rejects(handle.list(), /closed/);
      await assert.rejects(registryOn(handle).register('support', 'two'), /closed/);
      assert.equal(await store.latestVersion('support'), 1);
    },
  },
];
