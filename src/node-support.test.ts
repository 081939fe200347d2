import * as assert from 'uvu/assert';
import { execFile, execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { suite } from '../test-support/uvu.js';
import { MIN_NODE_VERSION, nodeSupportProblem } from './node-support.js';

const test = suite('Node.js lines: 22.15 and later');
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

test('older lines get one line naming the floor and the version found; 22.15+ pass', () => {
  assert.is(nodeSupportProblem('20.20.2'), 'agentkit needs Node.js 22.15.0 or later (22, 24 or 26); this is Node.js 20.20.2');
  assert.ok(nodeSupportProblem('22.14.9'));
  assert.ok(nodeSupportProblem('18.0.0'));
  for (const version of ['22.15.0', '22.23.3', '23.0.0', '24.21.0', '26.12.1', '27.0.0']) assert.is(nodeSupportProblem(version), null, version);
});

test("the floor is package.json's engines.node, so the two never drift", () => {
  const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { engines: { node: string } };
  assert.is(manifest.engines.node, `>=${MIN_NODE_VERSION.replace(/\.0$/, '')}`);
});

/** A Node.js older than the floor on this machine's PATH (these machines ship Node 20), or null. */
function olderNode(): string | null {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const candidate = path.join(dir, 'node');
    try {
      const version = execFileSync(candidate, ['-p', 'process.versions.node'], { encoding: 'utf8', timeout: 10_000 }).trim();
      if (nodeSupportProblem(version)) return candidate;
    } catch {
      // not there, or not runnable
    }
  }
  return null;
}

test('the built CLI on an older Node.js exits 1 with that one line, before loading anything native', async () => {
  const old = olderNode();
  if (!old) {
    console.log('  (no Node.js older than 22.15 on PATH here: the unit test above covers the check)');
    return;
  }
  const run = await promisify(execFile)(old, [path.join(root, 'dist/cli/main.js'), 'traces', 'list'], { encoding: 'utf8' }).then(
    (): never => {
      throw new Error('the CLI must refuse an old Node.js');
    },
    (error: { code: number; stderr: string; stdout: string }) => error,
  );
  assert.is(run.code, 1);
  assert.match(run.stderr, /^error: agentkit needs Node\.js 22\.15\.0 or later \(22, 24 or 26\); this is Node\.js \d+\.\d+\.\d+\n$/);
  assert.is(run.stdout, '');
});

test.run();
