/**
 * docs/connected.md's walkthrough is examples/connected/walkthrough.ts, character for character, and it runs as
 * written against the local Platform server, twice in a row: it connects, pauses on host A, replicates, host B (an
 * empty store) restores and completes the run, and host A's stale resume is refused; it prints what the page says it
 * prints, and leaves nothing pending on either host.
 */
import * as assert from 'uvu/assert';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SQLiteCheckpointer } from '../../src/index.js';
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
    // Twice in a row, in the same directory against the same Platform: the same output, nothing left pending.
    for (const round of [1, 2]) {
      const run = await runTsFile([EXAMPLE], {
        cwd: t.cwd,
        env: { ...process.env, ...t.env, HOME: t.cwd, AGENTKIT_API_KEY: 'ak_dev_0123456789', AGENTKIT_TARGET: platform.url },
      });
      assert.is(run.code, 0, `${run.stderr}\nPLATFORM: ${platform.child.stderr()}`);
      assert.is(run.stdout, printed, `round ${round}`);
    }
    const rows = await platform.read((s) => s.checkpoints().map((r) => r.body.execution_id as string));
    const executions = [...new Set(rows)];
    assert.is(executions.length, 2, 'one execution per round');
    assert.ok(executions.every((id) => /^refund-[0-9a-f]{8}$/.test(id)));
    const runEnds = await platform.read((s) => s.checkpoints().filter((r) => r.body.step_type === 'run_end').length);
    assert.is(runEnds, 2, 'one run_end per round on the Platform');
    assert.is(await platform.read((s) => s.claims().length), 2, 'one decision per round');
    for (const host of ['host-a', 'host-b']) {
      const store = new SQLiteCheckpointer(path.join(t.cwd, '.agentkit', `${host}.db`));
      try {
        assert.equal(await store.listPendingInterrupts(), [], `${host} lists nothing pending`);
      } finally {
        await store.close();
      }
    }
  },
);

area.run();
