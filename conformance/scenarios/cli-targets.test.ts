/**
 * Targets load everywhere: `.ts`, `.mts`, `.cts`, `.js` and `.mjs` agent files, in an ESM package, a CommonJS
 * package and a folder with no package.json, through the real built binary: `resume` (a paused chain completes),
 * `eval run` (an agent answers every case) and `agent serve` (the agent answers over HTTP). Each project imports
 * agentkit by its package name, as a consumer does (node_modules/agentkit links to this checkout). A file that fails
 * to load is one line naming the file and the first line of the real cause.
 */
import * as assert from 'uvu/assert';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Chain, interrupt, SQLiteCheckpointer } from '../../src/index.js';
import { runBinary } from '../harness/cli.js';
import { conformance, startCli, type ScenarioContext } from '../harness/index.js';

const area = conformance('cli: targets load everywhere');
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

type Folder = 'esm' | 'cjs' | 'none';
const EXTENSIONS = ['ts', 'mts', 'cts', 'js', 'mjs'] as const;
type Extension = (typeof EXTENSIONS)[number];

/** The chain every target builds (and the test pauses): one node that asks for approval. */
function refundChain(Chain_: typeof Chain, interrupt_: typeof interrupt, checkpointer: SQLiteCheckpointer): Chain {
  const chain = new Chain_('refund', { checkpointer });
  chain.addNode('approval', () => ({ approved: interrupt_('manager_approval', { amount: 10 }).approved }));
  return chain;
}

const ESM_BODY = (ext: Extension) => `import { Agent, Chain, SQLiteCheckpointer, interrupt } from 'agentkit';
import { FunctionModel } from 'agentkit/testing';
const reply${ext.endsWith('ts') ? ': string' : ''} = 'pong from ${ext}';
export const agent = new Agent({ name: 'echo', llm: new FunctionModel(() => ({ text: reply })), trace: false });
export function refund() {
  const chain = new Chain('refund', { checkpointer: new SQLiteCheckpointer(process.env.AGENTKIT_LOCAL_DB) });
  chain.addNode('approval', () => ({ approved: interrupt('manager_approval', { amount: 10 }).approved }));
  return chain;
}
`;

const CJS_BODY = (ext: Extension) => `const { Agent, Chain, SQLiteCheckpointer, interrupt } = require('agentkit');
const { FunctionModel } = require('agentkit/testing');
const reply = 'pong from ${ext}';
exports.agent = new Agent({ name: 'echo', llm: new FunctionModel(() => ({ text: reply })), trace: false });
exports.refund = function refund() {
  const chain = new Chain('refund', { checkpointer: new SQLiteCheckpointer(process.env.AGENTKIT_LOCAL_DB) });
  chain.addNode('approval', () => ({ approved: interrupt('manager_approval', { amount: 10 }).approved }));
  return chain;
};
`;

/** A consumer project of the given kind holding one agent file per extension; returns its folder. */
async function project(t: ScenarioContext, folder: Folder): Promise<string> {
  const dir = path.join(t.cwd, folder);
  await mkdir(path.join(dir, 'node_modules'), { recursive: true });
  await symlink(root, path.join(dir, 'node_modules', 'agentkit'), 'dir');
  if (folder === 'esm') await writeFile(path.join(dir, 'package.json'), JSON.stringify({ name: 'esm-project', type: 'module' }));
  if (folder === 'cjs') await writeFile(path.join(dir, 'package.json'), JSON.stringify({ name: 'cjs-project' }));
  for (const ext of EXTENSIONS) {
    // A .js file is CommonJS unless its package says "type": "module".
    const body = ext === 'js' && folder !== 'esm' ? CJS_BODY(ext) : ESM_BODY(ext);
    await writeFile(path.join(dir, `agent-${ext}.${ext}`), body);
  }
  for (const ext of EXTENSIONS)
    await writeFile(path.join(dir, `cases-${ext}.jsonl`), `${JSON.stringify({ input: 'ping', expected_output: `pong from ${ext}` })}\n`);
  return dir;
}

async function pause(dbPath: string, executionId: string): Promise<void> {
  const checkpointer = new SQLiteCheckpointer(dbPath);
  try {
    const result = await refundChain(Chain, interrupt, checkpointer).run('refund 10', { executionId });
    assert.is(result.status, 'paused');
  } finally {
    await checkpointer.close();
  }
}

async function resumeAndEval(t: ScenarioContext, folder: Folder): Promise<void> {
  const dir = await project(t, folder);
  for (const ext of EXTENSIONS) {
    const file = `agent-${ext}.${ext}`;
    const executionId = `${folder}-${ext}`;
    await pause(t.env.AGENTKIT_LOCAL_DB!, executionId);
    const resumed = await runIn(dir, t, ['resume', executionId, '--runner', `${file}:refund`, '--json']);
    assert.is(resumed.code, 0, `${folder} ${file}: resume: ${resumed.stderr}`);
    assert.equal(JSON.parse(resumed.stdout).status, 'completed', `${folder} ${file}: resume`);
    const evaluated = await runIn(dir, t, [
      'eval',
      'run',
      '--agent',
      `${file}:agent`,
      '--dataset',
      `cases-${ext}.jsonl`,
      '--scorers',
      'exact_match',
      '--no-persist',
      '--json',
      '-',
    ]);
    assert.is(evaluated.code, 0, `${folder} ${file}: eval run: ${evaluated.stderr}`);
    // The case passes only when the file's own agent answered: its reply names the extension.
    const report = JSON.parse(evaluated.stdout) as { cases: Array<{ error: unknown; per_scorer: Record<string, { passed: boolean }> }> };
    assert.equal([report.cases[0]!.error, report.cases[0]!.per_scorer.exact_match!.passed], [null, true], `${folder} ${file}: eval run`);
  }
}

/** The real binary with `dir` as its working directory and the variant's store. */
function runIn(dir: string, t: ScenarioContext, argv: string[]) {
  return runBinary(argv, { cwd: dir, env: t.env });
}

for (const folder of ['esm', 'cjs', 'none'] as const) {
  area.scenario(
    `${folder === 'none' ? 'a folder with no package.json' : `a ${folder.toUpperCase()} package`}: every extension resumes a paused chain and runs an eval`,
    { rows: ['cli:resume', 'cli:eval run'], backends: ['sqlite'], surfaces: ['cli'], timeoutMs: 90_000 },
    async (t) => {
      await resumeAndEval(t, folder);
    },
  );
}

area.scenario(
  'agent serve: every extension in every kind of folder serves its agent',
  { rows: ['cli:agent serve'], backends: ['sqlite'], surfaces: ['cli'], timeoutMs: 120_000 },
  async (t) => {
    for (const folder of ['esm', 'cjs', 'none'] as const) {
      const dir = await project(t, folder);
      for (const ext of EXTENSIONS) {
        const proc = startCli(['agent', 'serve', `agent-${ext}.${ext}:agent`, '--port', '0', '--host', '127.0.0.1'], { cwd: dir, env: t.env });
        t.defer(() => proc.kill());
        const [, url] = await proc.waitForStderr(/serving \w+ '[^']+' on (http:\/\/[^ ]+)/);
        const response = await fetch(`${url}/run`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ input: 'ping' }),
        });
        assert.is(response.status, 200, `${folder} ${ext}`);
        assert.is(((await response.json()) as { output: unknown }).output, `pong from ${ext}`, `${folder} ${ext}`);
        proc.child.kill('SIGTERM');
        assert.equal(await proc.exited, { code: 0, signal: null }, `${folder} ${ext}: ${proc.stderr()}`);
      }
    }
  },
);

area.scenario(
  'agent serve --reload: a .ts file in a CommonJS package restarts with the new code',
  { rows: ['cli:agent serve'], backends: ['sqlite'], surfaces: ['cli'], timeoutMs: 90_000 },
  async (t) => {
    const dir = await project(t, 'cjs');
    const proc = startCli(['agent', 'serve', 'agent-ts.ts:agent', '--reload', '--port', '0', '--host', '127.0.0.1'], { cwd: dir, env: t.env });
    t.defer(() => proc.kill());
    const ask = async (url: string) => {
      const response = await fetch(`${url}/run`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ input: 'ping' }) });
      return ((await response.json()) as { output: unknown }).output;
    };
    const [, first] = await proc.waitForStderr(/serving agent 'echo' on (http:\/\/[^ ]+)/, 40_000);
    assert.is(await ask(first!), 'pong from ts');
    await writeFile(path.join(dir, 'agent-ts.ts'), ESM_BODY('ts').replace("'pong from ts'", "'pong again'"));
    const [, second] = await proc.waitForStderr(/agent-ts\.ts changed; restarting[\s\S]*serving agent 'echo' on (http:\/\/[^ ]+)/, 40_000);
    assert.is(await ask(second!), 'pong again');
    proc.child.kill('SIGTERM');
    await proc.exited;
  },
);

area.scenario(
  'a target file that fails to load: one line naming the file and the first line of the cause',
  { backends: 'none', surfaces: ['cli'] },
  async (t) => {
    const dir = path.join(t.cwd, 'cjs');
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, 'package.json'), JSON.stringify({ name: 'cjs-project' }));
    await writeFile(
      path.join(dir, 'broken.ts'),
      "const key: string | undefined = undefined;\nif (!key) throw new Error('OPENAI_API_KEY is not set\\nsee the README');\nexport const agent = {};\n",
    );
    await writeFile(path.join(dir, 'syntax.ts'), 'export const agent = ;\n');
    for (const argv of [
      ['agent', 'serve', 'broken.ts:agent'],
      ['mcp', 'serve', 'broken.ts:agent'],
      ['resume', 'e1', '--runner', 'broken.ts:agent'],
      ['eval', 'run', '--agent', 'broken.ts:agent', '--dataset', 'x.jsonl'],
    ]) {
      const run = await runIn(dir, t, argv);
      assert.is(run.code, 2, argv.join(' '));
      assert.is(run.stderr, `error: target 'broken.ts:agent': could not load ${dir}/broken.ts: OPENAI_API_KEY is not set\n`, argv.join(' '));
    }
    const syntax = await runIn(dir, t, ['resume', 'e1', '--runner', 'syntax.ts:agent']);
    assert.is(syntax.code, 2);
    assert.match(
      syntax.stderr,
      new RegExp(`^error: target 'syntax\\.ts:agent': could not load ${dir}/syntax\\.ts: .*syntax\\.ts:1:\\d+: ERROR: Unexpected ";"\\n$`),
    );
  },
);

area.run();
