import * as assert from 'uvu/assert';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { suite } from '../test-support/uvu.js';
import { loadTarget, parseTarget, TargetLoadError } from './targets.js';

const test = suite<{ dir: string }>('runner targets', { state: { dir: '' } });

test.before(async (ctx) => {
  ctx.dir = await mkdtemp(path.join(tmpdir(), 'agentkit-targets-'));
  await writeFile(
    path.join(ctx.dir, 'agents.mts'),
    `const typed: number = 1;
export const chain = { name: 'chain', typed, run() {} };
export function build() { return { name: 'built' }; }
export const buildAsync = async () => ({ name: 'async' });
export function takesInput(input: string) { return input; }
export class Runner { run() {} }
export const app = { inner: { value: 7 } };
export const broken = () => { throw new Error('no API key'); };
export const empty = () => undefined;
`,
  );
  await writeFile(path.join(ctx.dir, 'plain.mjs'), 'export const value = 42;\n');
  await writeFile(path.join(ctx.dir, 'syntax.mts'), 'export const = ;\n');
  const pkg = path.join(ctx.dir, 'node_modules', 'team-agents');
  await mkdir(pkg, { recursive: true });
  await writeFile(
    path.join(pkg, 'package.json'),
    JSON.stringify({ name: 'team-agents', type: 'module', exports: { '.': './index.js', './refunds': './refunds.js' } }),
  );
  await writeFile(path.join(pkg, 'index.js'), 'export const main = { name: "main" };\n');
  await writeFile(path.join(pkg, 'refunds.js'), 'export const refundChain = { name: "refunds" };\n');
});
test.after(async ({ dir }) => {
  await rm(dir, { recursive: true, force: true });
});

test('parses file and module targets at the last colon', () => {
  assert.equal(parseTarget('examples/agents.ts:chain'), { text: 'examples/agents.ts:chain', module: 'examples/agents.ts', attribute: 'chain', kind: 'file' });
  assert.equal(parseTarget('./x:y'), { text: './x:y', module: './x', attribute: 'y', kind: 'file' });
  assert.equal(parseTarget('@team/agents/refunds:app.chain').kind, 'module');
  assert.equal(parseTarget('C:\\work\\agents.ts:chain').module, 'C:\\work\\agents.ts');
  for (const bad of ['agents.ts', ':chain', 'agents.ts:', 'agents.ts:9x', 'C:\\agents.ts']) {
    assert.throws(
      () => parseTarget(bad),
      (error: unknown) => error instanceof TargetLoadError && (error as TargetLoadError).code === 'target_load_error',
    );
  }
});

test('loads TypeScript and JavaScript files relative to cwd; objects as they are, factories called', async ({ dir }) => {
  const chain = (await loadTarget('agents.mts:chain', { cwd: dir })).value as { name: string; typed: number; run: unknown };
  assert.equal([chain.name, chain.typed, typeof chain.run], ['chain', 1, 'function'], 'an object is returned as it is');
  assert.equal((await loadTarget('./agents.mts:build', { cwd: dir })).value, { name: 'built' });
  assert.equal((await loadTarget(`${dir}/agents.mts:buildAsync`, { cwd: '/' })).value, { name: 'async' });
  assert.is(typeof (await loadTarget('agents.mts:takesInput', { cwd: dir })).value, 'function', 'a function with parameters is not a factory');
  assert.is(typeof (await loadTarget('agents.mts:Runner', { cwd: dir })).value, 'function', 'a class is not a factory');
  assert.is(typeof (await loadTarget('agents.mts:build', { cwd: dir, callFactory: false })).value, 'function');
  assert.is((await loadTarget('agents.mts:app.inner.value', { cwd: dir })).value, 7);
  const loaded = await loadTarget('plain.mjs:value', { cwd: dir });
  assert.is(loaded.value, 42);
  assert.is(loaded.file, path.join(dir, 'plain.mjs'));
});

test('loads package modules resolved from cwd', async ({ dir }) => {
  assert.equal((await loadTarget('team-agents:main', { cwd: dir })).value, { name: 'main' });
  assert.equal((await loadTarget('team-agents/refunds:refundChain', { cwd: dir })).value, { name: 'refunds' });
});

test('a target that does not resolve names the file, the attribute and what was found', async ({ dir }) => {
  const cases: Array<[string, string]> = [
    ['missing.ts:chain', `target 'missing.ts:chain': file not found: ${dir}/missing.ts (resolved against ${dir})`],
    [
      'agents.mts:chian',
      `target 'agents.mts:chian': module ${dir}/agents.mts has no attribute 'chian'; it exports: Runner, app, broken, build, buildAsync, chain, empty, takesInput`,
    ],
    ['agents.mts:app.outer', `target 'agents.mts:app.outer': 'app' in ${dir}/agents.mts has no attribute 'outer'; found an object with keys inner`],
    ['agents.mts:broken', `target 'agents.mts:broken': factory 'broken' in ${dir}/agents.mts threw: no API key`],
    ['agents.mts:empty', `target 'agents.mts:empty': factory 'empty' in ${dir}/agents.mts returned undefined instead of a runner`],
    ['no-such-package:x', `target 'no-such-package:x': module 'no-such-package' could not be resolved from ${dir}`],
    ['syntax.mts:x', `target 'syntax.mts:x': could not load ${dir}/syntax.mts`],
  ];
  for (const [target, message] of cases) {
    try {
      await loadTarget(target, { cwd: dir });
      assert.unreachable(`${target} resolved`);
    } catch (error) {
      assert.instance(error, TargetLoadError);
      assert.ok((error as Error).message.startsWith(message), `${(error as Error).message}\n  does not start with\n${message}`);
      assert.is((error as TargetLoadError).exitCode, 2);
    }
  }
});

test('a .ts file in a CommonJS package and one in a folder without package.json load; a load failure shows its first real line', async ({ dir }) => {
  const cjs = path.join(dir, 'cjs-project');
  const bare = path.join(dir, 'bare');
  await mkdir(cjs, { recursive: true });
  await mkdir(bare, { recursive: true });
  await writeFile(path.join(cjs, 'package.json'), JSON.stringify({ name: 'cjs-project' }));
  for (const folder of [cjs, bare]) {
    await writeFile(path.join(folder, 'helper.ts'), "export const label: string = 'helper';\n");
    await writeFile(path.join(folder, 'agent.ts'), "import { label } from './helper';\nexport const runner = { label, kind: 'ts' as const };\n");
    await writeFile(path.join(folder, 'legacy.cts'), "import { label } from './helper';\nexport const runner = { label, kind: 'cts' };\n");
  }
  for (const folder of [cjs, bare]) {
    assert.equal((await loadTarget('agent.ts:runner', { cwd: folder })).value, { label: 'helper', kind: 'ts' }, folder);
    assert.equal((await loadTarget('legacy.cts:runner', { cwd: folder })).value, { label: 'helper', kind: 'cts' }, folder);
  }
  await writeFile(path.join(cjs, 'throws.ts'), "throw new Error('OPENAI_API_KEY is not set\\nsecond line');\n");
  try {
    await loadTarget('throws.ts:x', { cwd: cjs });
    assert.unreachable('throws.ts loaded');
  } catch (error) {
    assert.is((error as Error).message, `target 'throws.ts:x': could not load ${cjs}/throws.ts: OPENAI_API_KEY is not set`);
  }
  try {
    await loadTarget('syntax.mts:x', { cwd: dir });
    assert.unreachable('syntax.mts loaded');
  } catch (error) {
    const message = (error as Error).message;
    assert.not.match(message, /\n/, 'one line');
    assert.match(message, new RegExp(`could not load ${dir}/syntax\\.mts: .*syntax\\.m?ts:1:\\d+: ERROR: .*`), message);
  }
});

test.run();
