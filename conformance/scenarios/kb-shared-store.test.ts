/**
 * Knowledge bases on a Postgres store (issue 39): a base ingested once by one process (`agentkit kb add --db <url>`)
 * is listed and searched from two others, the CLI and an agent using the KB tool, with the same top results; the
 * commands read AGENTKIT_LOCAL_DB as a URL too; `--path` with a URL store is refused (exit 2).
 */
import * as assert from 'uvu/assert';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { conformance, runTsFile } from '../harness/index.js';

const area = conformance('knowledge bases: shared on a Postgres store');
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const AGENT = path.join(root, 'conformance/fixtures/kb/kb-agent.ts');
const offline = { AGENTKIT_KB_EMBEDDING_URL: '', AGENTKIT_KB_EMBEDDING_MODEL: '' };

area.scenario(
  'a base ingested once by one process is searched from the CLI and from an agent in two other processes, with the same hits',
  { rows: ['cli:kb add', 'cli:kb list'], backends: ['postgres'], surfaces: ['cli'], timeoutMs: 90_000 },
  async (t) => {
    const url = t.store!;
    const docs = path.join(t.cwd, 'docs');
    await mkdir(docs, { recursive: true });
    await writeFile(
      path.join(docs, 'refunds.md'),
      '# Refunds\nRefunds are possible within 30 days of delivery.\n\n## Gift cards\nGift cards cannot be refunded or exchanged for cash.\n',
    );
    await writeFile(
      path.join(docs, 'shipping.txt'),
      'Shipping takes two business days with express delivery.\n\nStandard delivery takes five business days.\n',
    );
    const env = { ...offline, AGENTKIT_LOCAL_DB: path.join(t.cwd, 'unused.db') };

    const added = await t.bin(['kb', 'add', 'docs', '--name', 'docs', '--db', url], { env });
    assert.is(added.code, 0, added.stderr);
    assert.match(added.stdout, /^docs: 2 added, 0 updated, 0 unchanged, 0 failed; 3 chunks written/);

    const listed = await t.bin(['kb', 'list', '--json'], { env: { ...offline, AGENTKIT_LOCAL_DB: url } });
    assert.is(listed.code, 0, listed.stderr);
    const items = (JSON.parse(listed.stdout) as { items: Array<{ name: string; documents: number; chunks: number }> }).items;
    assert.equal(
      items.map((s) => [s.name, s.documents, s.chunks]),
      [['docs', 2, 3]],
      'AGENTKIT_LOCAL_DB as a URL names the same bases',
    );
    const local = await t.bin(['kb', 'list'], { env });
    assert.match(local.stdout, /^No knowledge bases in /, 'the file store beside unused.db has none: nothing was written there');

    const query = 'gift card refund delivery';
    const searched = await t.bin(['kb', 'search', query, '--name', 'docs', '--db', url, '--json'], { env });
    assert.is(searched.code, 0, searched.stderr);
    const hits = (JSON.parse(searched.stdout) as { items: Array<{ id: number; source: string; heading: string | null }> }).items;
    assert.equal(
      hits.map((h) => [path.basename(h.source), h.heading]),
      [
        ['refunds.md', 'Refunds > Gift cards'],
        ['refunds.md', 'Refunds'],
        ['shipping.txt', null],
      ],
    );

    const agent = await runTsFile([AGENT, query], { cwd: t.cwd, env: { ...process.env, ...offline, AGENTKIT_LOCAL_DB: url } });
    assert.is(agent.code, 0, agent.stderr);
    const answered = JSON.parse(agent.stdout) as { passages: Array<{ id: number; source: string }>; output: string };
    assert.is(answered.output, 'answered from the base');
    assert.equal(
      answered.passages,
      hits.map((h) => ({ id: h.id, source: path.basename(h.source) })),
      "the agent's tool returns the CLI's hits, in order",
    );

    const refused = await t.bin(['kb', 'search', query, '--name', 'docs', '--db', url, '--path', 'kb'], { env });
    assert.is(refused.code, 2);
    assert.match(refused.stderr, /^error: --path cannot be used with the Postgres store postgres:\/\/[^\n]*: its knowledge bases are in the store/);
    assert.is(refused.stderr.trim().split('\n').length, 1, refused.stderr);
    const unknown = await t.bin(['kb', 'status', '--name', 'nope', '--db', url], { env });
    assert.is(unknown.code, 1);
    assert.match(unknown.stderr, /^error: knowledge base 'nope' not found in postgres:\/\/.* \(bases: docs\)\n$/);
  },
);

area.run();
