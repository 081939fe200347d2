#!/usr/bin/env node
/**
 * Compile src/, cli/ and generated/ to dist/ so the installed `agentkit` binary starts without a TypeScript loader.
 * Incremental: a second build with no change takes about a second. Runs on `npm ci` (prepare) and before tests.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
let tsc;
try {
  tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
} catch {
  // Installed without dev dependencies (a consumer's install): dist/ ships prebuilt, nothing to do.
  process.exit(existsSync(path.join(root, 'dist/cli/main.js')) ? 0 : 1);
}
const result = spawnSync(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.build.json')], { cwd: root, stdio: 'inherit' });
if (result.status !== 0) {
  console.error('build failed: TypeScript reported errors (above)');
  process.exit(result.status ?? 1);
}
chmodSync(path.join(root, 'dist/cli/main.js'), 0o755);
