#!/usr/bin/env node
/**
 * `make check-docs`: runs every shell and TypeScript block of README.md and docs/*.md (docs/adr/0061-docs-that-run.md,
 * docs/testing.md "Docs that run"). Each group of blocks (a block and the `continue` blocks after it) runs in a fresh
 * temporary directory holding links to the repository's folders (examples/, conformance/, scripts/, ...), a
 * node_modules/ in which `agentkit` is this repository, and its own HOME; `agentkit` and `npx agentkit` are the
 * built CLI (dist/cli/main.js: build first). Each block runs in its own process group with a time limit; the group is
 * killed when the block ends (a `background` block's when its group ends), so a server a block starts never
 * outlives it. Node processes may connect to loopback only (scripts/docs-net-guard.mjs), npm runs offline, and
 * `postgres` blocks get a fresh schema on AGENTKIT_TEST_PG_URL, dropped afterwards.
 *
 *   node scripts/docs-runner.mjs                 every doc
 *   node scripts/docs-runner.mjs docs/kb.md      only these docs (paths from the repository root, or absolute; the 15% rule
 *                                                is still checked over them)
 *   node scripts/docs-runner.mjs --list          print the blocks and their markers, run nothing
 *   node scripts/docs-runner.mjs --verbose ...   also print every block's output as it ends
 *
 * Prints a line per failing block (doc, line, exit, the tail of its output), then exactly
 * `N blocks run, M marked (reasons: ...)`. Exits 1 when a block failed or when more than 15% of the blocks are
 * marked, 2 for a malformed marker.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DocsMarkerError, extractBlocks, summarize } from './docs-blocks.mjs';
import { createSandbox } from './docs-sandbox.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DEFAULT_TIMEOUT_S = 60;
/** The repository folders a block sees in its directory (read through links; blocks write only their own files). */
const PG_URL = process.env.AGENTKIT_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

const args = process.argv.slice(2);
const list = args.includes('--list');
const verbose = args.includes('--verbose');
const only = args.filter((a) => !a.startsWith('--'));
const docs = only.length
  ? only
  : [
      'README.md',
      ...readdirSync(path.join(root, 'docs'))
        .filter((f) => f.endsWith('.md'))
        .map((f) => `docs/${f}`),
    ].sort();

let blocks;
try {
  blocks = docs.flatMap((doc) => extractBlocks(doc, readFileSync(path.resolve(root, doc), 'utf8')));
} catch (error) {
  if (!(error instanceof DocsMarkerError)) throw error;
  process.stderr.write(`error: ${error.message}\n`);
  process.exit(2);
}

if (list) {
  for (const b of blocks) {
    const marks = Object.entries(b.marker).map(([k, v]) => (v === true ? k : `${k}=${v}`));
    process.stdout.write(`${b.file}:${b.line} ${b.kind}${marks.length ? ` [${marks.join('; ')}]` : ''}\n`);
  }
  process.stdout.write(`${summarize(blocks).line}\n`);
  process.exit(0);
}

const scratch = mkdtempSync(path.join(os.tmpdir(), 'agentkit-docs-'));
const sandbox = createSandbox(scratch);
const groupDir = () => sandbox.dir();
const blockEnv = (dir) => sandbox.env(dir);

function killGroup(child) {
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // the group has already gone
  }
}

/** Starts one block in `dir`, its own process group; resolves when it exits or times out (the group is then killed). */
function start(block, dir, code, extraEnv) {
  let file;
  let argv;
  if (block.kind === 'ts') {
    file = path.join(dir, block.marker.file ?? `.block-${block.line}.mts`);
    writeFileSync(file, code);
    argv = [process.execPath, '--import', 'tsx', file];
  } else {
    file = path.join(dir, `.block-${block.line}.sh`);
    writeFileSync(file, code);
    argv = ['bash', '-eo', 'pipefail', file];
  }
  const child = spawn(argv[0], argv.slice(1), { cwd: dir, env: { ...blockEnv(dir), ...extraEnv }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const timeoutMs = (block.marker.timeoutSeconds ?? DEFAULT_TIMEOUT_S) * 1000;
  let timedOut = false;
  const done = new Promise((resolve) => {
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child);
    }, timeoutMs);
    let exit = null;
    child.on('exit', (code, signal) => {
      exit = { code, signal };
      // What it left running (`cmd &`) holds its output open: a block's group ends with it, a background's later.
      if (!block.marker.background) killGroup(child);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ ...(exit ?? { code, signal }), timedOut, output: () => output });
    });
  });
  return { child, done, output: () => output };
}

function portOpen(port) {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Runs a psql-free statement on the test server (pg is a dependency). */
async function pgQuery(sql) {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** Points every postgres:// URL of a `postgres` block at a fresh schema of the test server. */
function withTestPostgres(code, schema) {
  const base = new URL(PG_URL);
  base.searchParams.set('schema', schema);
  return code.replace(/postgres(?:ql)?:\/\/[^\s'"]+/g, base.toString());
}

function tail(text, lines = 25) {
  return text.trimEnd().split('\n').slice(-lines).join('\n');
}

const failures = [];
const started = Date.now();
let group = null; // { dir, background: [started blocks], schemas: [] }

async function endGroup() {
  if (!group) return;
  for (const running of group.background) killGroup(running.child);
  await Promise.all(group.background.map((running) => running.done));
  for (const schema of group.schemas) await pgQuery(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => {});
  group = null;
}

for (const block of blocks) {
  // A skipped block is invisible to grouping: a `continue` after it continues the block before it.
  if (block.marker.skip) continue;
  if (!block.marker.continue) await endGroup();
  if (!group) group = { dir: groupDir(), background: [], schemas: [], env: {} };
  Object.assign(group.env, block.marker.env);
  let code = block.code;
  if (block.marker.postgres) {
    const schema = `docs_${randomBytes(6).toString('hex')}`;
    group.schemas.push(schema);
    code = withTestPostgres(code, schema);
  }
  const where = `${block.file}:${block.line}`;
  const running = start(block, group.dir, code, group.env);
  if (block.marker.background) {
    group.background.push(running);
    const limit = Date.now() + (block.marker.timeoutSeconds ?? DEFAULT_TIMEOUT_S) * 1000;
    let exited = null;
    running.done.then((result) => (exited = result));
    while (!exited && Date.now() < limit && !(await portOpen(block.marker.background))) await new Promise((r) => setTimeout(r, 100));
    if (exited || Date.now() >= limit) {
      failures.push({
        where,
        why: exited
          ? `exited ${exited.code ?? exited.signal} before port ${block.marker.background} opened`
          : `port ${block.marker.background} not open in time`,
        output: running.output(),
      });
      await endGroup();
    }
    continue;
  }
  const result = await running.done;
  killGroup(running.child);
  if (verbose) process.stdout.write(`--- ${where} (exit ${result.code ?? result.signal})\n${result.output()}`);
  if (result.timedOut || result.code !== 0) {
    const why = result.timedOut ? `timed out after ${block.marker.timeoutSeconds ?? DEFAULT_TIMEOUT_S}s` : `exit ${result.code ?? result.signal}`;
    failures.push({ where, why, output: result.output() });
  }
}
await endGroup();
rmSync(scratch, { recursive: true, force: true });

for (const failure of failures) {
  process.stdout.write(`FAIL ${failure.where} (${failure.why}); its output ends:\n${tail(failure.output).replace(/^/gm, '  | ')}\n`);
}
const summary = summarize(blocks);
process.stdout.write(`${summary.line}\n`);
const seconds = ((Date.now() - started) / 1000).toFixed(1);
if (failures.length) process.stdout.write(`${failures.length} failed (${seconds}s)\n`);
else process.stdout.write(`all passed (${seconds}s)\n`);
if (!summary.withinLimit) process.stdout.write(`error: ${summary.marked} of ${blocks.length} blocks are marked, more than 15%\n`);
process.exit(failures.length || !summary.withinLimit ? 1 : 0);
