#!/usr/bin/env node
/**
 * Compile src/, cli/ and generated/ to dist/ so the installed `agentkit` binary starts without a TypeScript loader.
 * Incremental: a second build with no change takes about a second. Runs from `npm run build`, before tests
 * (scripts/test.mjs) and on `npm pack`/`npm publish` (prepack); never at install, so a consumer allows no script.
 *
 *   node scripts/build.mjs            incremental
 *   node scripts/build.mjs --clean    remove dist/ first (prepack: no output of a deleted source file is packed)
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
let tsc;
try {
  tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
} catch {
  // Without dev dependencies there is no compiler: dist/ must already be there (it ships prebuilt in the package).
  process.exit(existsSync(path.join(root, 'dist/cli/main.js')) ? 0 : 1);
}
if (process.argv.includes('--clean')) rmSync(path.join(root, 'dist'), { recursive: true, force: true });
const result = spawnSync(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.build.json')], { cwd: root, stdio: 'inherit' });
if (result.status !== 0) {
  console.error('build failed: TypeScript reported errors (above)');
  process.exit(result.status ?? 1);
}
chmodSync(path.join(root, 'dist/cli/main.js'), 0o755);

// The local UI's web app (src/ui/web, React + Vite) -> dist/ui-web, served by `agentkit ui`. Skipped when nothing it
// is built from changed since the last build, so test runs stay fast.
const webRoot = path.join(root, 'src/ui/web');
const webOut = path.join(root, 'dist/ui-web/index.html');
const webInputs = [
  webRoot,
  path.join(root, 'generated/clients'),
  path.join(root, 'generated/schemas/ui.ts'),
  path.join(root, 'generated/types/ui.ts'),
  path.join(root, 'package-lock.json'),
];
if (!existsSync(webOut) || newestMtime(webInputs) > statSync(webOut).mtimeMs) {
  let vite;
  try {
    // vite's exports map hides bin/: find the package through its package.json.
    vite = path.join(path.dirname(createRequire(import.meta.url).resolve('vite/package.json')), 'bin/vite.js');
  } catch {
    console.error('build failed: vite is not installed (a dev dependency); run npm ci');
    process.exit(1);
  }
  const web = spawnSync(process.execPath, [vite, 'build', '--config', path.join(webRoot, 'vite.config.ts')], { cwd: root, stdio: 'inherit' });
  if (web.status !== 0) {
    console.error('build failed: the web app did not build (above)');
    process.exit(web.status ?? 1);
  }
}

/** The newest modification time of the files under `paths`. */
function newestMtime(paths) {
  let newest = 0;
  for (const entry of paths) {
    if (!existsSync(entry)) continue;
    const info = statSync(entry);
    if (info.isDirectory()) {
      for (const name of readdirSync(entry, { recursive: true })) newest = Math.max(newest, statSync(path.join(entry, String(name))).mtimeMs);
    } else newest = Math.max(newest, info.mtimeMs);
  }
  return newest;
}
