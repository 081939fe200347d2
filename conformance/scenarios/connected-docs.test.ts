/**
 * docs/connected.md's walkthrough is examples/connected/walkthrough.ts, character for character, and it runs as
 * written against the local Platform server: it connects, pauses on host A, replicates, and host B (an empty store)
 * restores and completes the run; it prints what the page says it prints.
 */
import * as assert from 'uvu/assert';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { conformance, startPlatform, runTsFile } from '../harness/index.js';

const area = conformance('connected: docs walkthrough');
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const EXAMPLE = path.join(root, 'examples/connected/walkthrough.ts');

area.scenario(
  'docs/connected.md walkthrough runs against the local Platform and prints what the page shows',
  { backends: ['sqlite'], timeoutMs: 40_000 },
  async (t) => {
    const page = await readFile(path.join(root, 'docs/connected.md'), 'utf8');
    const block = /## Walkthrough[\s\S]*?```ts\n([\s\S]*?)```/.exec(page)?.[1];
    assert.is(block, await readFile(EXAMPLE, 'utf8'), 'the page shows the example file as it is');
    const printed = /It prints:\n\n```\n([\s\S]*?)```/.exec(page)?.[1];

    const platform = await startPlatform({ dir: t.cwd, apiKeys: ['ak_dev_0123456789'] });
    t.defer(() => platform.stop());
    const run = await runTsFile([EXAMPLE], {
      cwd: t.cwd,
      env: { ...process.env, ...t.env, HOME: t.cwd, AGENTKIT_API_KEY: 'ak_dev_0123456789', AGENTKIT_TARGET: platform.url },
    });
    assert.is(run.code, 0, run.stderr);
    assert.is(run.stdout, printed);
    const rows = platform.read((s) => s.checkpoints().map((r) => r.body.execution_id));
    assert.ok(rows.length > 3 && rows.every((id) => id === 'refund-42'), 'both hosts replicated the run');
  },
);

area.run();
