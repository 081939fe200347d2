#!/usr/bin/env node
/**
 * `make check-generated`: regenerate into a temporary directory and compare with generated/ file by file. Fails
 * (exit 1) on a changed, missing or stray file, naming each one and the command that fixes it.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const committed = path.join(root, 'generated');
const fresh = await mkdtemp(path.join(tmpdir(), 'agentkit-check-generated-'));

try {
  const run = spawnSync(process.execPath, [path.join(root, 'scripts/generate.mjs'), '--out', fresh], { cwd: root, encoding: 'utf8' });
  if (run.status !== 0) {
    process.stderr.write(run.stdout + run.stderr);
    console.error('check-generated: generation itself failed (see above)');
    process.exit(1);
  }
  const want = await listFiles(fresh);
  const have = await listFiles(committed).catch(() => []);
  const problems = [];
  for (const file of want) {
    if (!have.includes(file)) problems.push(`missing  generated/${file}`);
    else if ((await readFile(path.join(fresh, file), 'utf8')) !== (await readFile(path.join(committed, file), 'utf8'))) {
      problems.push(`stale    generated/${file}`);
    }
  }
  for (const file of have) if (!want.includes(file)) problems.push(`stray    generated/${file}`);
  if (problems.length > 0) {
    console.error(`generated/ does not match spec/ (${problems.length} file(s)):`);
    for (const line of problems) console.error(`  ${line}`);
    console.error('Run `make generate` and commit spec/ and generated/ together.');
    process.exit(1);
  }
  console.log(`generated/ matches spec/ (${want.length} files)`);
} finally {
  await rm(fresh, { recursive: true, force: true });
}

async function listFiles(dir) {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath ?? e.path, e.name)))
    .sort();
}
