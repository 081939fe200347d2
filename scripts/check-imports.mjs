#!/usr/bin/env node
/**
 * `make check-cycles`: the import graph of src/ and cli/ (tests included), read by dpdm with type-only imports left
 * out (docs/adr/0012-import-rules.md), must have
 *   1. no import cycle;
 *   2. no import that runs up the layer table of ARCHITECTURE.md (base < runtime < features < edges; inside the
 *      runtime layer llm < tools < tracing < durability < scope < agent < chain), tests aside;
 *   3. no source file (anything under src/ or cli/ but a test) importing test-support/ or conformance/, and no unit
 *      test (a test under src/ or cli/) importing conformance/: shared test helpers live in test-support/.
 * Prints each finding and exits 1 when there is one.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseCircular, parseDependencyTree } from 'dpdm';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The layer table; a file outside it (guardrails/, multi/, http/, ...) is not checked by rule 2. */
const LAYERS = [
  ['base', ['src/errors.ts', 'src/config', 'src/store']],
  ['runtime', ['src/llm', 'src/tools', 'src/tracing', 'src/durability', 'src/scope', 'src/agent', 'src/chain']],
  ['features', ['src/replay', 'src/eval', 'src/prompts', 'src/kb', 'src/platform', 'src/recovery']],
  ['edges', ['src/serve', 'src/ui', 'src/mcp', 'src/targets.ts']],
];
/** Upward imports known and kept, each with its reason. Keep this list short: an entry is a debt, not a permission. */
const KNOWN_UPWARD = new Set([]);

function layerOf(file) {
  for (const [rank, [layer, parts]] of LAYERS.entries())
    for (const [order, part] of parts.entries()) if (file === part || file.startsWith(`${part}/`)) return { layer, rank, part, order };
  return null;
}

const isTest = (file) => /\.test\.tsx?$/.test(file);

const tree = await parseDependencyTree(['src/**/*.ts', 'src/**/*.tsx', 'cli/**/*.ts'], {
  cwd: root,
  context: root,
  tsconfig: path.join(root, 'tsconfig.json'),
  transform: true,
  skipDynamicImports: false,
});

const problems = [];
const seenKnown = new Set();
for (const cycle of parseCircular(tree)) problems.push(`import cycle: ${[...cycle, cycle[0]].join(' -> ')}`);

for (const [file, dependencies] of Object.entries(tree)) {
  if (!dependencies || !(file.startsWith('src/') || file.startsWith('cli/'))) continue;
  for (const dependency of dependencies) {
    const target = dependency.id;
    if (!target) continue;
    if (!isTest(file) && (target.startsWith('test-support/') || target.startsWith('conformance/')))
      problems.push(`source imports test code: ${file} -> ${target} (tests only; see docs/testing.md)`);
    if (isTest(file)) {
      if (target.startsWith('conformance/'))
        problems.push(`unit test imports the conformance suite: ${file} -> ${target} (shared helpers live in test-support/)`);
      continue;
    }
    const from = layerOf(file);
    const to = layerOf(target);
    if (!from || !to) continue;
    const upward = to.rank > from.rank || (from.layer === 'runtime' && to.layer === 'runtime' && to.order > from.order);
    if (upward && seenKnown.add(`${file} -> ${target}`) && !KNOWN_UPWARD.has(`${file} -> ${target}`))
      problems.push(`upward import: ${file} (${from.layer}, ${from.part}) -> ${target} (${to.layer}, ${to.part}); move the shared piece down`);
  }
}

for (const known of KNOWN_UPWARD) if (!seenKnown.has(known)) problems.push(`KNOWN_UPWARD lists ${known}, which is gone: remove the entry`);

const files = Object.keys(tree).filter((file) => file.startsWith('src/') || file.startsWith('cli/')).length;
if (problems.length > 0) {
  for (const problem of problems) console.error(problem);
  console.error(`\n${problems.length} import problem(s) in ${files} files (ARCHITECTURE.md's layer table; docs/adr/0012-import-rules.md)`);
  process.exit(1);
}
console.log(`imports: 0 cycles, 0 upward imports, no source importing test code (${files} files of src/ and cli/)`);
