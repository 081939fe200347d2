/**
 * The exactly-once soak: the conformance scenarios of conformance/scenarios/durability-exactly-once.test.ts at the
 * issue's full size, on SQLite and Postgres: 8 and then 32 concurrent `agentkit resume` processes (the built binary,
 * no `--value`) racing each paused Agent, Chain, Swarm and Supervisor (500 ms approved body), 20 trials each, plus the
 * SIGKILL and lease scenarios. Every trial asserts: one process exits 0, the body ran once, one terminal row, no
 * pending row left. Prints each size's outcome and wall time. The full soak takes tens of minutes on 2 cores, so
 * the default (what `make bench` runs) is 8 racers x 2 trials; ask for the full size explicitly:
 *
 *   SOAK_SIZES=8,32 SOAK_TRIALS=20 node scripts/bench.mjs exactly-once     # the issue's full size
 *   node scripts/bench.mjs exactly-once                                    # 8 racers, 2 trials
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const sizes = (process.env.SOAK_SIZES ?? '8').split(',').map(Number);
const trials = Number(process.env.SOAK_TRIALS ?? 2);

console.log(`exactly-once soak: ${sizes.join(' and ')} racers x ${trials} trials per runner (agent, chain, swarm, supervisor) and backend`);
for (const size of sizes) {
  const started = Date.now();
  const run = spawnSync(process.execPath, ['scripts/test.mjs', 'durability-exactly-once'], {
    cwd: root,
    env: { ...process.env, AGENTKIT_RACE_PROCESSES: String(size), AGENTKIT_RACE_TRIALS: String(trials) },
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  const summary = /(\d+) passed, (\d+) failed/.exec(run.stdout ?? '');
  const seconds = ((Date.now() - started) / 1000).toFixed(0);
  console.log(
    `  ${String(size).padStart(2)} racers: ${summary ? `${summary[1]} scenario variants passed, ${summary[2]} failed` : 'no summary (see output)'}; ${seconds} s; ${4 * trials * 2} races of ${size} processes`,
  );
  if (run.status !== 0) {
    process.stdout.write(run.stdout ?? '');
    process.stderr.write(run.stderr ?? '');
    process.exitCode = 1;
  }
}
