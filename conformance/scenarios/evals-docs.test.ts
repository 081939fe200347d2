/**
 * docs/evals.md as written: its CI recipe's `run:` command runs through a real shell with the built binary (the gate
 * passes and writes its report), and the `evaluate()` example file runs and prints the scorecard and the gate.
 */
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { conformance } from '../harness/index.js';
import { BIN } from '../harness/cli.js';
import { EvalStore } from '../../src/index.js';

const run = promisify(execFile);
const area = conformance('evals: docs');
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

area.scenario(
  'the CI recipe of docs/evals.md gates the example agent and writes its report',
  { rows: ['cli:eval run'], backends: ['sqlite'], surfaces: ['cli'], timeoutMs: 60_000 },
  async (t) => {
    const doc = await readFile(path.join(root, 'docs/evals.md'), 'utf8');
    const yaml = /### CI recipe[\s\S]*?```yaml\n([\s\S]*?)```/.exec(doc)?.[1];
    assert.ok(yaml, 'docs/evals.md has a yaml block under "CI recipe"');
    const step = /- name: Eval gate\n\s+run: (npx agentkit eval run .*)\n/.exec(yaml!)?.[1];
    assert.ok(step, `the recipe has an "Eval gate" step running agentkit eval run: ${yaml}`);
    const report = path.join(t.cwd, 'eval-report.json');
    const command = step!
      .replace(/^npx agentkit /, `${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} `)
      .replace('--json eval-report.json', `--json ${JSON.stringify(report)}`);
    const env = { ...process.env, ...t.env, OPENAI_API_KEY: '', NO_COLOR: '1' } as NodeJS.ProcessEnv;
    const { stdout, stderr } = await run('/bin/sh', ['-c', command], { cwd: root, env });
    assert.is(stderr, '');
    assert.ok(
      stdout.includes('Gate: PASSED\n  contains.pass_rate=0.8 >= 0.8: PASS\n  overall.pass_rate=0.7 >= 0.6: PASS\n  error_rate=0 <= 0.1: PASS\n'),
      stdout,
    );
    const body = JSON.parse(await readFile(report, 'utf8'));
    assert.equal([body.schema_version, body.run_name, body.gate.outcome], [1, 'ci', 'passed']);
    assert.is((await new EvalStore({ dbPath: t.env.AGENTKIT_LOCAL_DB }).resolveRun('ci')).run_id, body.run_id);
  },
);

area.scenario(
  'the evaluate() example of docs/evals.md runs and prints its scorecard and gate',
  { rows: [], backends: ['sqlite'], surfaces: ['sdk'], timeoutMs: 60_000 },
  async (t) => {
    const doc = await readFile(path.join(root, 'docs/evals.md'), 'utf8');
    assert.ok(doc.includes('[examples/evals/evaluate.ts](../examples/evals/evaluate.ts)'));
    const env = { ...process.env, ...t.env, OPENAI_API_KEY: '' } as NodeJS.ProcessEnv;
    const { stdout } = await run(process.execPath, ['--conditions=agentkit-source', '--import', 'tsx', 'examples/evals/evaluate.ts'], { cwd: root, env });
    const lines = stdout.trim().split('\n');
    assert.equal(lines.slice(0, 6), [
      'exact_match: pass_rate=0.6 avg_score=0.6',
      'contains: pass_rate=0.8 avg_score=0.8',
      'one_word: pass_rate=0.8 avg_score=0.8',
      'gate: passed',
      '  contains.pass_rate=0.8 >= 0.6: PASS',
      '  overall.pass_rate=0.7333 >= 0.6: PASS',
    ]);
    const saved = await new EvalStore({ dbPath: t.env.AGENTKIT_LOCAL_DB }).resolveRun('example');
    assert.is(lines.at(-1), `run ${saved.run_id} saved to ${t.env.AGENTKIT_LOCAL_DB}`);
    assert.is(saved.agent_name, 'support');
  },
);

area.scenario(
  'the shared-store block of docs/evals.md runs as written: two runs on a Postgres store, compared by a third command',
  { rows: ['cli:eval run', 'cli:eval compare'], backends: ['postgres'], surfaces: ['cli'], timeoutMs: 90_000 },
  async (t) => {
    const doc = await readFile(path.join(root, 'docs/evals.md'), 'utf8');
    const block = /### On a shared store[\s\S]*?```bash\n([\s\S]*?)```/.exec(doc)?.[1];
    assert.ok(block, 'docs/evals.md has a bash block under "On a shared store"');
    assert.match(block!, /^STORE='postgres:\/\/[^']+'\n/);
    const script = block!
      .replace(/^STORE='[^']+'/, `STORE=${JSON.stringify(t.store!)}`)
      .replaceAll('npx agentkit ', `${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} `);
    const env = { ...process.env, ...t.env, OPENAI_API_KEY: '', NO_COLOR: '1' } as NodeJS.ProcessEnv;
    const { stdout } = await run('/bin/sh', ['-e', '-c', script], { cwd: root, env });
    assert.match(stdout, /is current: checkpoints v\d+, traces v\d+, prompts v\d+, forks v\d+, evals v1, kb v\d+, platform v\d+\n/);
    assert.match(stdout, /Baseline: {2}\w+ \(release\)\nCandidate: \w+ \(nightly\)\n/);
    assert.match(stdout, /\nOK: overall pass rate did not fall beyond the tolerance 0\n/);
    const store = new EvalStore({ dbPath: t.store! });
    t.defer(() => store.close());
    assert.equal(
      (await store.listRuns()).map((r) => [r.run_name, r.gate?.outcome]),
      [
        ['nightly', 'passed'],
        ['release', 'passed'],
      ],
    );
  },
);

area.run();
