/**
 * The docs runner end to end (scripts/docs-runner.mjs, docs/adr/0061-docs-that-run.md), on Markdown files written
 * here: the count line, a failing block named by file and line with its output's tail, `continue` sharing a
 * directory, a `background` server stopped with its group, the built CLI as `agentkit`, 'agentkit' importable from
 * TypeScript, loopback only, the 15% rule, and a malformed marker.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as assert from 'uvu/assert';
import { suite } from '../test-support/uvu.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const test = suite('docs runner: running blocks', { timeoutMs: 60_000 });
const dir = mkdtempSync(path.join(os.tmpdir(), 'agentkit-docs-runner-test-'));
const FENCE = '```';

function doc(name: string, ...lines: string[]): string {
  const file = path.join(dir, name);
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

function runner(...files: string[]): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['scripts/docs-runner.mjs', ...files], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk));
    child.stderr.on('data', (chunk: Buffer) => (out += chunk));
    child.on('close', (code) => resolve({ code, out }));
  });
}

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });
}

test('passing blocks: the count line, continue, a background server, the CLI and the package', async () => {
  const port = 18_000 + Math.floor(Math.random() * 2000);
  const file = doc(
    'ok.md',
    `${FENCE}bash`,
    'echo kept > note.txt',
    'agentkit version | grep -q "^agentkit "',
    FENCE,
    '<!-- docs-runner: continue -->',
    `${FENCE}sh`,
    'grep -q kept note.txt',
    FENCE,
    `<!-- docs-runner: continue; background port=${port} -->`,
    `${FENCE}bash`,
    `node -e "require('node:http').createServer((q, r) => r.end('up')).listen(${port}, '127.0.0.1')"`,
    FENCE,
    '<!-- docs-runner: continue -->',
    `${FENCE}ts`,
    "import { Agent } from 'agentkit';",
    "import { ScriptedModel } from 'agentkit/testing';",
    `const res = await fetch('http://127.0.0.1:${port}/');`,
    "if ((await res.text()) !== 'up') process.exit(4);",
    "const result = await new Agent({ name: 'a', llm: new ScriptedModel(['hi']), trace: false }).run('x');",
    "if (result.output !== 'hi') process.exit(5);",
    FENCE,
    '<!-- docs-runner: skip reason="needs a provider key" -->',
    `${FENCE}ts`,
    'throw new Error("never run");',
    FENCE,
    `${FENCE}console`,
    '$ not run',
    FENCE,
    ...Array.from({ length: 2 }, () => [`${FENCE}sh`, 'true', FENCE]).flat(),
  );
  const { code, out } = await runner(file);
  assert.is(code, 0, out);
  assert.match(out, /^6 blocks run, 1 marked \(reasons: needs a provider key 1\)$/m);
  assert.ok(await portFree(port), 'the background server was stopped with its group');
});

test('a failing block: exit 1, its file and line, the tail of its output', async () => {
  const file = doc('fail.md', 'text', '', `${FENCE}bash`, 'echo first line', 'echo "the reason it failed" >&2', 'exit 3', FENCE);
  const { code, out } = await runner(file);
  assert.is(code, 1, out);
  assert.match(out, `FAIL ${file}:3 (exit 3)`);
  assert.match(out, '  | the reason it failed');
  assert.match(out, /^1 blocks run, 0 marked \(reasons: none\)$/m);
});

test('a block reaching past loopback fails at once', async () => {
  const file = doc('net.md', `${FENCE}ts`, "await fetch('http://example.com/');", FENCE);
  const { code, out } = await runner(file);
  assert.is(code, 1, out);
  assert.match(out, 'docs-runner: network beyond loopback refused (example.com)');
});

test('more than 15% marked fails even when every block passes', async () => {
  const marked = ['<!-- docs-runner: skip reason="shows output only" -->', `${FENCE}sh`, 'false', FENCE];
  const file = doc('share.md', ...marked, ...Array.from({ length: 4 }, () => [`${FENCE}sh`, 'true', FENCE]).flat());
  const { code, out } = await runner(file);
  assert.is(code, 1, out);
  assert.match(out, /^4 blocks run, 1 marked \(reasons: shows output only 1\)$/m);
  assert.match(out, 'error: 1 of 5 blocks are marked, more than 15%');
});

test('a reason outside the three: exit 2 naming the file and line', async () => {
  const file = doc('bad.md', '<!-- docs-runner: skip reason="too slow" -->', `${FENCE}sh`, 'true', FENCE);
  const { code, out } = await runner(file);
  assert.is(code, 2, out);
  assert.match(out, `error: ${file}:1: skip reason "too slow" is not allowed`);
});

test.after(() => rmSync(dir, { recursive: true, force: true }));

test.run();
