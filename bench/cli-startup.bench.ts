/**
 * CLI start-up: wall time of `node dist/cli/main.js version`, `... --help` and `... traces list` (on an empty temp
 * store) next to `node -e 0`, median of 20 runs each, the commands interleaved so a busy moment hits them alike.
 * Targets: `version` at most 2.5x `node -e 0`, `traces list` at most 4x. Runs the built binary (npm run build first).
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const RUNS = Number(process.env.BENCH_RUNS ?? 20);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bin = path.join(root, 'dist/cli/main.js');
if (!existsSync(bin)) {
  console.error(`${bin} is missing: run npm run build first`);
  process.exit(1);
}
const dir = await mkdtemp(path.join(tmpdir(), 'agentkit-bench-cli-'));
// The variables a shell would carry, not the tsx loader this bench runs under.
const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1', AGENTKIT_LOCAL_DB: path.join(dir, 'local.db') };

const subjects: Array<{ label: string; args: string[]; target?: number }> = [
  { label: 'node -e 0 (baseline)', args: ['-e', '0'] },
  { label: 'agentkit version', args: [bin, 'version'], target: 2.5 },
  { label: 'agentkit --help', args: [bin, '--help'] },
  { label: 'agentkit traces list (empty store)', args: [bin, 'traces', 'list'], target: 4 },
];

function once(args: string[]): number {
  const started = process.hrtime.bigint();
  const run = spawnSync(process.execPath, args, { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const elapsed = Number(process.hrtime.bigint() - started) / 1e6;
  if (run.status !== 0) throw new Error(`node ${args.join(' ')} exited ${run.status}: ${run.stderr.toString()}`);
  return elapsed;
}

const samples = subjects.map(() => [] as number[]);
for (const subject of subjects) once(subject.args); // warm the file cache
for (let i = 0; i < RUNS; i++) for (const [j, subject] of subjects.entries()) samples[j]!.push(once(subject.args));
await rm(dir, { recursive: true, force: true });

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
const baseline = median(samples[0]!);
console.log(`median of ${RUNS} runs each, interleaved (Node ${process.version})`);
subjects.forEach((subject, j) => {
  const value = median(samples[j]!);
  const ratio = value / baseline;
  const verdict =
    subject.target === undefined ? '' : ratio <= subject.target ? `  target <= ${subject.target}x: met` : `  target <= ${subject.target}x: NOT met`;
  console.log(`${subject.label.padEnd(38)} ${value.toFixed(1).padStart(7)} ms  ${ratio.toFixed(2)}x${verdict}`);
});
