#!/usr/bin/env node
/**
 * `make bench`: run every benchmark under bench/ (files named `*.bench.ts`), one process each, in name order.
 * Each benchmark prints its own figures and the ratio to a baseline it measures in the same run.
 *
 *   make bench                         all
 *   node scripts/bench.mjs <regex>     only those whose file name matches
 *   node scripts/bench.mjs <regex> --flag value ...   flags after the regex go to each benchmark
 *
 * Each benchmark runs with `AGENTKIT_LOCAL_DB` in a temporary directory of its own (removed after it), unless the
 * caller set it: a bench whose agents or chains trace to the default store must not write into the checkout's
 * `./.agentkit/local.db`.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const filter = process.argv[2] ? new RegExp(process.argv[2]) : null;
const files = readdirSync(path.join(root, 'bench'))
  .filter((f) => f.endsWith('.bench.ts') && (!filter || filter.test(f)))
  .sort();
if (files.length === 0) {
  console.error('no benchmark matched');
  process.exit(1);
}
let failed = 0;
for (const file of files) {
  console.log(`\n=== bench/${file}`);
  // --expose-gc: the memory benches measure the heap after a full collection.
  const scratch = process.env.AGENTKIT_LOCAL_DB ? undefined : mkdtempSync(path.join(tmpdir(), 'agentkit-bench-store-'));
  const env = scratch ? { ...process.env, AGENTKIT_LOCAL_DB: path.join(scratch, 'local.db') } : process.env;
  const run = spawnSync(
    process.execPath,
    ['--expose-gc', '--conditions=agentkit-source', '--import', 'tsx', path.join('bench', file), ...process.argv.slice(3)],
    { cwd: root, stdio: 'inherit', env },
  );
  if (scratch) rmSync(scratch, { recursive: true, force: true });
  if (run.status !== 0) failed++;
}
process.exit(failed > 0 ? 1 : 0);
