#!/usr/bin/env node
/**
 * Paired, interleaved benchmark runs of this checkout against another (a baseline commit's worktree with its own
 * node_modules and dist/): base, head, base, head, ... so that a machine whose speed drifts hits both alike. Each run
 * is one `node scripts/bench.mjs <regex>` in that checkout; the lines of its output that match `--figure` are
 * collected, and for every number on those lines the medians over the pairs and the ratio head/base are printed.
 *
 *   node scripts/paired-bench.mjs --base ../base --pairs 5 --figure 'overhead|cycle' checkpoint-overhead
 *
 * Flags:
 *   --base <dir>         the baseline checkout (required)
 *   --base-node <path>   the node binary for the baseline (default: this one)
 *   --head-node <path>   the node binary for this checkout (default: this one)
 *   --pairs <n>          pairs to run (default 5)
 *   --figure <regex>     which output lines carry the figures (default: every line with a number)
 *   --keep <dir>         also write each run's whole output there (base-1.txt, head-1.txt, ...)
 * Lines are matched by their text with the numbers taken out (within the section a line like `SQLite:` opens), so the
 * same line of both sides pairs up.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    base: { type: 'string' },
    'base-node': { type: 'string', default: process.execPath },
    'head-node': { type: 'string', default: process.execPath },
    pairs: { type: 'string', default: '5' },
    figure: { type: 'string', default: '\\d' },
    keep: { type: 'string' },
  },
});
const usage = 'usage: node scripts/paired-bench.mjs --base <dir> [--base-node p] [--head-node p] [--pairs n] [--figure regex] <bench regex>';
if (!values.base || positionals.length !== 1) {
  console.error(usage);
  process.exit(2);
}
const pairs = Number(values.pairs);
if (!Number.isInteger(pairs) || pairs < 1) {
  console.error(`--pairs must be a whole number of 1 or more\n${usage}`);
  process.exit(2);
}
const figure = new RegExp(values.figure);
if (values.keep) mkdirSync(values.keep, { recursive: true });
const head = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const sides = [
  { name: 'base', dir: path.resolve(values.base), node: values['base-node'] },
  { name: 'head', dir: head, node: values['head-node'] },
];

const NUMBER = /-?\d+(?:\.\d+)?/g;
/** Per side: line shape -> the numbers of that line in each run. */
const collected = { base: new Map(), head: new Map() };

for (let pair = 1; pair <= pairs; pair++) {
  for (const side of sides) {
    const run = spawnSync(side.node, ['scripts/bench.mjs', positionals[0]], {
      cwd: side.dir,
      encoding: 'utf8',
      env: { ...process.env, PATH: `${path.dirname(side.node)}${path.delimiter}${process.env.PATH}` },
      maxBuffer: 64 * 1024 * 1024,
    });
    if (values.keep) writeFileSync(path.join(values.keep, `${side.name}-${pair}.txt`), run.stdout);
    if (run.status !== 0) {
      console.error(`${side.name} (pair ${pair}) failed with exit ${run.status}:\n${run.stderr.slice(-2000)}`);
      process.exit(1);
    }
    // A line ending in ':' with no indent opens a section (`SQLite:`, `Postgres:`): its lines pair within it.
    let section = '';
    for (const line of run.stdout.split('\n')) {
      if (/^\S.*:$/.test(line)) section = `${line} `;
      const found = figure.test(line) ? line.match(NUMBER) : null;
      if (!found) continue;
      // Numbers out, padding and verdict words out: the same line pairs up whatever its figures.
      const shape = `${section}${line
        .replace(NUMBER, '#')
        .replace(/\b(NOT met|MISSED|met)\b/g, '')
        .replace(/\s+/g, ' ')
        .trim()}`;
      const numbers = found.map(Number);
      const runs = collected[side.name].get(shape) ?? [];
      runs.push(numbers);
      collected[side.name].set(shape, runs);
    }
    console.error(`pair ${pair}: ${side.name} done`);
  }
}

const median = (xs) => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
console.log(`paired-bench: ${positionals[0]}, ${pairs} interleaved pairs; base ${sides[0].dir} (${sides[0].node}), head ${head} (${sides[1].node})`);
for (const [shape, baseRuns] of collected.base) {
  const headRuns = collected.head.get(shape);
  if (!headRuns) continue;
  const count = Math.min(...baseRuns.map((r) => r.length), ...headRuns.map((r) => r.length));
  const cells = [];
  for (let i = 0; i < count; i++) {
    const b = median(baseRuns.map((r) => r[i]));
    const h = median(headRuns.map((r) => r[i]));
    cells.push(`${b} -> ${h}${b !== 0 ? ` (${(h / b).toFixed(3)}x)` : ''}`);
  }
  console.log(`${shape}\n    ${cells.join(' | ')}`);
}
