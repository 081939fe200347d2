/**
 * docs/replay.md's walkthrough is examples/replay/walkthrough.ts, character for character, and it runs as written:
 * in a fresh directory, on a local store or a Postgres one (AGENTKIT_LOCAL_DB), it prints what the page says it prints
 * and saves its test case (a per-host file either way).
 */
import * as assert from 'uvu/assert';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { conformance, runTsFile } from '../harness/index.js';

const area = conformance('replay: docs walkthrough');
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const EXAMPLE = path.join(root, 'examples/replay/walkthrough.ts');

area.scenario(
  'docs/replay.md walkthrough runs: summary, steps, a safe rerun with a changed prompt, diverged_at 1, a saved case',
  { timeoutMs: 30_000, storeEnv: true },
  async (t) => {
    const page = await readFile(path.join(root, 'docs/replay.md'), 'utf8');
    const block = /## Walkthrough[\s\S]*?```ts\n([\s\S]*?)```/.exec(page)?.[1];
    assert.is(block, await readFile(EXAMPLE, 'utf8'), 'the page shows the example file as it is');

    const run = await runTsFile([EXAMPLE], { cwd: t.cwd, env: { ...process.env, ...t.env } });
    assert.is(run.code, 0, run.stderr);
    const lines = run.stdout.split('\n');
    assert.match(lines[0]!, /^Trace: [0-9a-f]{32}$/);
    assert.equal(lines.slice(1, 4), ['Name: agent.desk', 'Status: OK', 'Spans: 6']);
    const steps = ['agent.desk', 'llm.chat_completion', 'tool.lookup_order', 'llm.chat_completion', 'tool.refund', 'llm.chat_completion'];
    assert.equal(lines.slice(5, 13), ['', 'Steps:', ...steps.map((s, i) => `  [${i}] ${s}`)]);
    assert.equal(
      lines.slice(13, 19).map((l) => l.split(' ').slice(0, 2).join(' ')),
      steps.map((s, i) => `${i} ${s}`),
    );
    assert.equal(lines.slice(19, 24), [
      'new trace: true',
      'new output: Certainly. Done: refunded 50 USD on order 42.',
      'refunds executed: 1',
      'diverged_at: 1',
      'Diverged at step 1 (llm.chat_completion): the output changed.',
    ]);
    assert.ok(run.stdout.includes('\n- Checking.\n+ Certainly. Checking.\n'), run.stdout);
    assert.is(lines.at(-2), 'saved: input, expected_output, trace_id, created_at');
    const saved = (await readFile(path.join(t.cwd, '.agentkit/regression_tests.jsonl'), 'utf8')).trim().split('\n');
    assert.is(saved.length, 1);
    assert.is((JSON.parse(saved[0]!) as { expected_output: string }).expected_output, 'Certainly. Done: refunded 50 USD on order 42.');
  },
);

area.run();
