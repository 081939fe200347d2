/**
 * The realistic served bench's code path, run once with tiny numbers (two connections, half-second windows): it must
 * print its rows for both engines. Speed is not asserted here, ever (benchmarks are not tests, bench/README.md).
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as assert from 'uvu/assert';
import { suite } from '../test-support/uvu.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const test = suite('bench smoke: serve-realistic');

test('prints pairs, medians, added latency, CPU and RSS rows for SQLite and Postgres', async () => {
  const args = ['--pairs', '1', '--duration-ms', '500', '--warmup-ms', '200', '--connections', '2'];
  const child = spawn(process.execPath, ['scripts/bench.mjs', 'serve-realistic', ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  assert.is(code, 0, `bench exited ${code}:\n${out}\n${err}`);
  for (const engine of ['SQLite:', 'Postgres:']) {
    const section = out.slice(out.indexOf(`\n${engine}`));
    assert.ok(out.includes(`\n${engine}`), `no ${engine} section in:\n${out}`);
    // Without a reachable Postgres the bench says so; that counts as a failure only under CI (docs/testing.md).
    if (engine === 'Postgres:' && section.includes('unavailable (') && process.env.CI !== 'true') continue;
    for (const row of ['pair 1: floor', '  floor ', '  agentkit ', 'added p50', 'server CPU', 'client CPU', 'RSS per in-flight run', '/run/stream']) {
      assert.ok(section.includes(row), `${engine} section lacks '${row}':\n${section}`);
    }
  }
}, 180_000);

test.run();
