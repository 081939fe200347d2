/** `make check-generated` fails when spec/ changed without regenerating, and on stray files in generated/. */
import * as assert from 'uvu/assert';
import { cp, symlink, writeFile, readFile } from 'node:fs/promises';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { conformance } from '../harness/index.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const area = conformance('contract: generation drift');
const any = { backends: 'none', surfaces: ['cli'], timeoutMs: 60_000 } as const;

/** A copy of the contract half of the project (spec, generated, scripts) sharing this checkout's node_modules. */
async function copyProject(dir: string): Promise<void> {
  for (const part of ['spec', 'generated', 'scripts', 'package.json']) {
    await cp(path.join(root, part), path.join(dir, part), { recursive: true });
  }
  // Packages resolve from the real checkout: the copy has no node_modules of its own.
  await symlink(path.join(root, 'node_modules'), path.join(dir, 'node_modules'));
}

function checkGenerated(dir: string) {
  return spawnSync(process.execPath, ['scripts/check-generated.mjs'], { cwd: dir, encoding: 'utf8' });
}

area.scenario('check-generated passes on the committed tree and fails after a .tsp edit', any, async (t) => {
  await copyProject(t.cwd);
  const clean = checkGenerated(t.cwd);
  assert.is(clean.status, 0, clean.stderr);
  assert.match(clean.stdout, /generated\/ matches spec\//);

  const models = path.join(t.cwd, 'spec/served-agent/models.tsp');
  const text = await readFile(models, 'utf8');
  await writeFile(models, text.replace('  latency_ms: float64;', '  latency_ms: float64;\n  queued_ms?: float64;'));
  const stale = checkGenerated(t.cwd);
  assert.is(stale.status, 1);
  assert.match(stale.stderr, /stale +generated\/openapi\/served-agent\.yaml/);
  assert.match(stale.stderr, /stale +generated\/types\/served-agent\.ts/);
  assert.match(stale.stderr, /Run `make generate`/);
});

area.scenario('check-generated fails on a stray file in generated/', any, async (t) => {
  await copyProject(t.cwd);
  await writeFile(path.join(t.cwd, 'generated/types/hand-written.ts'), 'export {};\n');
  const result = checkGenerated(t.cwd);
  assert.is(result.status, 1);
  assert.match(result.stderr, /stray +generated\/types\/hand-written\.ts/);
});

area.run();
