#!/usr/bin/env node
/**
 * `npm test`: build dist/ (the real-binary CLI tests run it), then run every test file (unit tests beside the code,
 * the conformance suite) each in its own process, two at a time, each with a fresh temporary directory holding its
 * HOME, its XDG directories and its local store (AGENTKIT_LOCAL_DB), so no test reads or writes the developer's
 * or the repository's state. Each file's output is printed whole when it ends; the run ends with the spec coverage
 * report (when scenarios ran) and exactly one line `N passed, N failed` (plus `, N skipped` when any were
 * skipped). Exits non-zero on any failure, on a file that crashed or hung, and when no test ran.
 *
 *   npm test                     everything
 *   npm test -- <regex>          only test files whose path matches
 *   npm test -- --smoke          the smoke set run on the other Node lines (.ci/run): every unit test and a
 *                                conformance slice (the packed tarball's consumers, processes, serving, the CLI,
 *                                the browser tests)
 *
 * Environment: AGENTKIT_TEST_JOBS (files at once, default 2); AGENTKIT_TEST_FILE_TIMEOUT_MS (one file's limit,
 * default 10 min: the file's processes are killed and it counts as a failure); AGENTKIT_TEST_PG_URL (default
 * postgres://postgres@127.0.0.1:5432/test); CI=true makes an unreachable Postgres a failure instead of a skip.
 * docs/adr/0014-test-isolation.md says why.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const smoke = process.argv[2] === '--smoke';
const filter = process.argv[2] && !smoke ? new RegExp(process.argv[2]) : null;
/** The conformance slice of the smoke set: the tarball's consumers (worker threads start from it), then a few real processes. */
const SMOKE_CONFORMANCE = /(package-consumer|durability-processes|serve-http|cli-basics|readme-quickstart)\.test\.ts$|^conformance\/browser\//;
const jobs = Math.max(1, Number(process.env.AGENTKIT_TEST_JOBS ?? 2) || 1);
const fileTimeoutMs = Number(process.env.AGENTKIT_TEST_FILE_TIMEOUT_MS ?? 10 * 60_000);
/** The runner's own outputs (coverage report, timings), never a test's: ignored by git. */
const outDir = path.join(root, '.agentkit-test');
const timingsFile = path.join(outDir, 'timings.json');

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

function readTimings() {
  try {
    return JSON.parse(readFileSync(timingsFile, 'utf8'));
  } catch {
    return {};
  }
}

/** The variables every test file gets: its own HOME, XDG directories and local store, inside `dir`. */
function isolatedEnv(dir) {
  const home = path.join(dir, 'home');
  const xdg = Object.fromEntries(['CONFIG', 'DATA', 'CACHE', 'STATE'].map((kind) => [`XDG_${kind}_HOME`, path.join(dir, 'xdg', kind.toLowerCase())]));
  for (const folder of [home, ...Object.values(xdg)]) mkdirSync(folder, { recursive: true });
  const env = {
    ...process.env,
    FORCE_COLOR: '0',
    NO_COLOR: '1',
    HOME: home,
    USERPROFILE: home,
    ...xdg,
    AGENTKIT_LOCAL_DB: path.join(dir, 'agentkit', 'local.db'),
    AGENTKIT_TEST_TMPDIR: dir,
    AGENTKIT_COVERAGE_RECORDS: path.join(dir, 'coverage-records.json'),
  };
  // The legacy checkpoint path would point a test at the developer's own store.
  delete env.AGENTKIT_CHECKPOINT_DB_PATH;
  return env;
}

const running = new Set();

/** Run one file in its own process group; resolve with its counts parsed from uvu's summary. */
function runFile(file) {
  return new Promise((resolve) => {
    const started = Date.now();
    const dir = mkdtempSync(path.join(os.tmpdir(), 'agentkit-test-'));
    const env = isolatedEnv(dir);
    const child = spawn(process.execPath, ['--conditions=agentkit-source', '--import', 'tsx', 'conformance/harness/run.ts', file], {
      cwd: root,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      // Its own process group: a timeout kills the servers, workers and browsers it started too.
      detached: true,
    });
    running.add(child);
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
    });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child);
    }, fileTimeoutMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      running.delete(child);
      // Whatever it left running in its group (a server, a worker process) goes with it.
      killGroup(child);
      let records = null;
      if (existsSync(env.AGENTKIT_COVERAGE_RECORDS)) records = readFileSync(env.AGENTKIT_COVERAGE_RECORDS, 'utf8');
      rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
      const ms = Date.now() - started;
      const total = Number(/Total:\s+(\d+)/.exec(output)?.[1]);
      const passed = Number(/Passed:\s+(\d+)/.exec(output)?.[1]);
      const skipped = Number(/Skipped:\s+(\d+)/.exec(output)?.[1] ?? 0);
      const result = { file, passed: 0, failed: 0, skipped: 0, ms, records, note: '' };
      if (timedOut) {
        result.failed = 1;
        result.note = `no result after ${fileTimeoutMs} ms: killed, counted as one failure`;
      } else if (!Number.isFinite(total) || !Number.isFinite(passed)) {
        result.failed = 1;
        result.note = `crashed before reporting (exit ${code ?? signal}): counted as one failure`;
      } else {
        Object.assign(result, { passed, failed: total - passed, skipped });
        if (result.failed === 0 && code !== 0) {
          result.failed = 1;
          result.note = `every test passed but the process exited ${code ?? signal}: counted as one failure`;
        }
      }
      resolve({ ...result, output });
    });
  });
}

function killGroup(child) {
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // the group is gone already
  }
}

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    for (const child of running) killGroup(child);
    process.exit(130);
  });
}

const build = spawnSync(process.execPath, [path.join(root, 'scripts/build.mjs')], { cwd: root, stdio: 'inherit' });
if (build.status !== 0) {
  console.log('0 passed, 1 failed');
  process.exit(1);
}

const files = [...testFiles(['src', 'cli', 'scripts']), ...testFiles(['conformance']).filter((file) => !smoke || SMOKE_CONFORMANCE.test(file))];
// Longest first (as the last run measured them; files never timed before go first), so the two slots end together.
const timings = readTimings();
const queue = [...files].sort((a, b) => (timings[b] ?? Number.POSITIVE_INFINITY) - (timings[a] ?? Number.POSITIVE_INFINITY) || a.localeCompare(b));
console.log(`\n=== ${files.length} test file(s), ${Math.min(jobs, files.length)} at a time, each in its own process ===`);

const started = Date.now();
const results = [];
async function worker() {
  for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
    const result = await runFile(file);
    results.push(result);
    const counts = `${result.passed} passed, ${result.failed} failed${result.skipped ? `, ${result.skipped} skipped` : ''}`;
    console.log(`\n--- [${results.length}/${files.length}] ${file}: ${counts} (${(result.ms / 1000).toFixed(1)} s)`);
    process.stdout.write(result.output.endsWith('\n') || result.output === '' ? result.output : `${result.output}\n`);
    if (result.note) console.log(`${file}: ${result.note}`);
  }
}
await Promise.all(Array.from({ length: Math.min(jobs, files.length) }, worker));
const wallMs = Date.now() - started;

mkdirSync(outDir, { recursive: true });
writeFileSync(timingsFile, `${JSON.stringify({ ...timings, ...Object.fromEntries(results.map((r) => [r.file, r.ms])) }, null, 1)}\n`);

// The spec coverage report over every file's scenarios.
const withRecords = results.filter((r) => r.records !== null);
if (withRecords.length > 0) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'agentkit-coverage-'));
  const recordFiles = withRecords.map((r, i) => {
    const file = path.join(dir, `${i}.json`);
    writeFileSync(file, r.records);
    return file;
  });
  const report = spawnSync(process.execPath, ['--conditions=agentkit-source', '--import', 'tsx', 'conformance/harness/report.ts', ...recordFiles], {
    cwd: root,
    env: { ...process.env, AGENTKIT_COVERAGE_DIR: outDir },
    stdio: 'inherit',
  });
  rmSync(dir, { recursive: true, force: true });
  if (report.status !== 0) results.push({ file: 'conformance/harness/report.ts', passed: 0, failed: 1, skipped: 0, note: 'the coverage report failed' });
}

/**
 * For a file whose process died: the lines of its output that say why (a fatal error and the native stack after it,
 * or its last lines), indented, so the summary at the end of a long log carries them.
 */
function crashLines(result) {
  if (!result.note || result.output === undefined || !/crashed|exited|killed/.test(result.note)) return '';
  const lines = result.output.trimEnd().split('\n');
  const fatal = lines.findIndex((line) => /FATAL ERROR|Fatal error|Abort|Segmentation/i.test(line));
  const shown = fatal >= 0 ? lines.slice(fatal, fatal + 20) : lines.slice(-12);
  return `\n${shown.map((line) => `      | ${line}`).join('\n')}`;
}

const passed = results.reduce((n, r) => n + r.passed, 0);
const failed = results.reduce((n, r) => n + r.failed, 0);
const skipped = results.reduce((n, r) => n + r.skipped, 0);
console.log(`\n${results.length} file(s) in ${(wallMs / 1000).toFixed(1)} s with ${Math.min(jobs, files.length)} at a time`);
const failing = results.filter((r) => r.failed > 0);
if (failing.length > 0) console.log(`files with failures:\n${failing.map((r) => `  ${r.file}${r.note ? ` (${r.note})` : ''}${crashLines(r)}`).join('\n')}`);
if (skipped > 0)
  console.log(`${skipped} test(s) skipped: live provider tests without their keys, or Postgres unreachable while CI is not set (see the file output above)`);
if (passed + failed === 0) console.log('no test ran');
console.log(`\n${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ''}`);
process.exit(failed > 0 || passed + failed === 0 ? 1 : 0);
