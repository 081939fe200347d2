#!/usr/bin/env node
/**
 * `npm test`: build dist/ (the real-binary CLI tests run it), then run the unit tests (beside the code) and the
 * conformance suite (every backend, every surface), each group in its own process, and end with exactly one line
 * `N passed, N failed` (plus `, N skipped` when any were skipped). Exits non-zero on any failure, on a group that
 * crashed or hung, and when no test ran.
 *
 *   npm test                     everything
 *   npm test -- <regex>          only test files whose path matches
 *   npm test -- --smoke          the smoke set run on the other Node lines (.ci/run): every unit test and a
 *                                conformance slice (the packed tarball's consumers, processes, serving, the CLI)
 *
 * Environment: AGENTKIT_TEST_PG_URL (default postgres://postgres@127.0.0.1:5432/test); CI=true makes an unreachable
 * Postgres a failure instead of a skip; AGENTKIT_TEST_GROUP_TIMEOUT_MS bounds each group (default 20 min).
 */
import { spawn, spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const smoke = process.argv[2] === '--smoke';
const filter = process.argv[2] && !smoke ? new RegExp(process.argv[2]) : null;
/** The conformance slice of the smoke set: the tarball's consumers (worker threads start from it), then a few real processes. */
const SMOKE_CONFORMANCE = /(package-consumer|durability-processes|serve-http|cli-basics|readme-quickstart)\.test\.ts$/;
const groupTimeoutMs = Number(process.env.AGENTKIT_TEST_GROUP_TIMEOUT_MS ?? 20 * 60_000);

function testFiles(dirs) {
  const found = [];
  for (const dir of dirs) {
    let entries;
    try {
      entries = readdirSync(path.join(root, dir), { recursive: true, withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      if (!entry.isFile() || !entry.name.endsWith('.test.ts')) continue;
      const file = path.relative(root, path.join(entry.parentPath ?? entry.path, entry.name));
      if (file.includes('node_modules')) continue;
      if (!filter || filter.test(file)) found.push(file);
    }
  }
  return found.sort();
}

/** Run one group of files in a child process; resolve with its counts parsed from uvu's summary. */
function runGroup(name, files) {
  return new Promise((resolve) => {
    if (files.length === 0) return resolve({ name, passed: 0, failed: 0, skipped: 0, ran: false });
    console.log(`\n=== ${name}: ${files.length} file(s) ===`);
    const child = spawn(process.execPath, ['--conditions=agentkit-source', '--import', 'tsx', 'conformance/harness/run.ts', ...files], {
      cwd: root,
      env: { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
      process.stdout.write(chunk);
    });
    child.stderr.on('data', (chunk) => process.stderr.write(chunk));
    const timer = setTimeout(() => {
      console.error(`\n${name}: no result after ${groupTimeoutMs} ms; killing it`);
      child.kill('SIGKILL');
    }, groupTimeoutMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const total = Number(/Total:\s+(\d+)/.exec(output)?.[1]);
      const passed = Number(/Passed:\s+(\d+)/.exec(output)?.[1]);
      const skipped = Number(/Skipped:\s+(\d+)/.exec(output)?.[1] ?? 0);
      if (!Number.isFinite(total) || !Number.isFinite(passed)) {
        console.error(`${name}: crashed before reporting (exit ${code ?? signal}); counted as one failure`);
        return resolve({ name, passed: 0, failed: 1, skipped: 0, ran: true });
      }
      let failed = total - passed;
      if (failed === 0 && code !== 0) {
        console.error(`${name}: every test passed but the process exited ${code ?? signal}; counted as one failure`);
        failed = 1;
      }
      resolve({ name, passed, failed, skipped, ran: true });
    });
  });
}

const build = spawnSync(process.execPath, [path.join(root, 'scripts/build.mjs')], { cwd: root, stdio: 'inherit' });
if (build.status !== 0) {
  console.log('0 passed, 1 failed');
  process.exit(1);
}

const groups = [
  { name: 'unit', files: testFiles(['src', 'cli', 'scripts']) },
  { name: 'conformance', files: testFiles(['conformance']).filter((file) => !smoke || SMOKE_CONFORMANCE.test(file)) },
];
const results = [];
for (const group of groups) results.push(await runGroup(group.name, group.files));

const passed = results.reduce((n, r) => n + r.passed, 0);
const failed = results.reduce((n, r) => n + r.failed, 0);
const skipped = results.reduce((n, r) => n + r.skipped, 0);
if (skipped > 0)
  console.log(`\n${skipped} test(s) skipped: live provider tests without their keys, or Postgres unreachable while CI is not set (see the suite output)`);
if (passed + failed === 0) console.log('\nno test ran');
console.log(`\n${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ''}`);
process.exit(failed > 0 || passed + failed === 0 ? 1 : 0);
