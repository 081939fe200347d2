/**
 * Stored cost per span on each engine (issue 38): the agent of tracing-overhead (four model turns, three tool calls,
 * eight spans a run, payloads and a masked credential) with tracing off, into a SQLite local.db, and into a Postgres
 * store, in alternating rounds so drift hits all three alike; medians over rounds.
 *
 * The cost of a span is what tracing adds to a run, until every span is stored, divided by the run's spans: wall
 * time, and CPU of the client (this process, every thread) plus the server (every `postgres` process; SQLite has
 * none). Target: Postgres at most 2x SQLite, CPU client plus server.
 *
 *   node scripts/bench.mjs trace-store-cost      BENCH_ROUNDS (default 8), BENCH_RUNS per round (default 3000)
 *
 * CPU is read from /proc in 10 ms ticks: with 3000 runs (24,000 spans) a round, one tick is 0.4 us a span; with 300
 * it was 4 us, a third of SQLite's whole figure on a fast machine.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import Type from 'typebox';
import { Agent, flushTraces, shutdownTracing, tool, TraceStore } from 'agentkit';
import { ScriptedModel, type Turn } from 'agentkit/testing';
import { cpuSince, sampleCpu } from './lib/cpu-probe.js';
import { withScratchSchema } from './lib/pg-scratch.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 8);
const RUNS = Number(process.env.BENCH_RUNS ?? 3000);
const SPANS = 8;

const tools = [
  tool({
    name: 'get_rate',
    registry: false,
    parameters: Type.Object({ from: Type.String(), to: Type.String() }),
    replayClass: 'read_only',
    execute: () => 1.08,
  }),
  tool({
    name: 'convert',
    registry: false,
    parameters: Type.Object({ amount: Type.Number(), rate: Type.Number() }),
    execute: ({ amount, rate }) => ({ amount: amount * rate }),
  }),
  tool({
    name: 'format_money',
    registry: false,
    parameters: Type.Object({ amount: Type.Number(), currency: Type.String() }),
    execute: ({ amount, currency }) => `${amount.toFixed(2)} ${currency} (quote ref sk-quote-0123456789abcdef)`,
  }),
];
const conversation: Turn[] = [
  { toolCalls: [{ name: 'get_rate', arguments: { from: 'EUR', to: 'USD' } }] },
  { toolCalls: [{ name: 'convert', arguments: { amount: 250, rate: 1.08 } }] },
  { toolCalls: [{ name: 'format_money', arguments: { amount: 270, currency: 'USD' } }] },
  'That is 270.00 USD.',
];

type Mode = 'off' | 'sqlite' | 'postgres';

/** One round in `mode`: [wall ms until stored, CPU ms of this process plus the Postgres server, of the server alone]. */
async function round(mode: Mode, runs: number, stores: { sqlite: string; postgres: string }): Promise<[number, number, number]> {
  const turns = Array.from({ length: runs }, () => conversation).flat();
  const agent = new Agent({
    name: 'fx',
    systemPrompt: 'Convert currencies with the tools.',
    llm: new ScriptedModel(turns),
    tools,
    trace: mode !== 'off',
    traceDb: mode === 'postgres' ? stores.postgres : stores.sqlite,
  });
  const before = sampleCpu();
  const started = performance.now();
  for (let i = 0; i < runs; i++) await agent.run('Convert 250 EUR to USD');
  await flushTraces();
  const wall = performance.now() - started;
  const cpu = cpuSince(before, sampleCpu());
  return [wall, cpu ? cpu.main + cpu.threads + cpu.postgres : Number.NaN, cpu ? cpu.postgres : Number.NaN];
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;

const dir = await mkdtemp(path.join(tmpdir(), 'agentkit-bench-'));
const outcome = await withScratchSchema(async (url, schema) => {
  const pgUrl = new URL(url);
  pgUrl.searchParams.set('schema', schema);
  const stores = { sqlite: path.join(dir, 'local.db'), postgres: pgUrl.toString() };
  for (const mode of ['off', 'sqlite', 'postgres'] as const) await round(mode, 100, stores);
  const wall: Record<Mode, number[]> = { off: [], sqlite: [], postgres: [] };
  const cpu: Record<Mode, number[]> = { off: [], sqlite: [], postgres: [] };
  const server: Record<Mode, number[]> = { off: [], sqlite: [], postgres: [] };
  const orders: Mode[][] = [
    ['off', 'sqlite', 'postgres'],
    ['postgres', 'off', 'sqlite'],
    ['sqlite', 'postgres', 'off'],
  ];
  for (let r = 0; r < ROUNDS; r++) {
    for (const mode of orders[r % orders.length]!) {
      const [w, c, s] = await round(mode, RUNS, stores);
      wall[mode].push(w);
      cpu[mode].push(c);
      server[mode].push(s);
    }
  }
  const perSpanUs = (values: number[], base: number[]) => ((median(values) - median(base)) / RUNS / SPANS) * 1000;
  const stored = async (value: string) => {
    const store = new TraceStore({ dbPath: value });
    try {
      return (await store.listTraces({ lastHours: 24 })).length;
    } finally {
      await store.close();
    }
  };
  const [sqliteTraces, pgTraces] = [await stored(stores.sqlite), await stored(stores.postgres)];
  const wallSqlite = perSpanUs(wall.sqlite, wall.off);
  const wallPg = perSpanUs(wall.postgres, wall.off);
  const cpuSqlite = perSpanUs(cpu.sqlite, cpu.off);
  const cpuPg = perSpanUs(cpu.postgres, cpu.off);
  console.log(`${ROUNDS} rounds of ${RUNS} runs per mode, ${SPANS} spans a run; traces stored: SQLite ${sqliteTraces}, Postgres ${pgTraces}`);
  console.log(
    `stored cost per span, wall:               SQLite ${wallSqlite.toFixed(1)} us, Postgres ${wallPg.toFixed(1)} us (ratio ${(wallPg / wallSqlite).toFixed(2)}x)`,
  );
  console.log(
    `stored cost per span, CPU client+server:  SQLite ${cpuSqlite.toFixed(1)} us, Postgres ${cpuPg.toFixed(1)} us (ratio ${(cpuPg / cpuSqlite).toFixed(2)}x)`,
  );
  const serverPg = perSpanUs(server.postgres, server.off);
  console.log(`of which the Postgres server:              ${serverPg.toFixed(1)} us, this process ${(cpuPg - serverPg).toFixed(1)} us`);
  console.log(`target: Postgres at most 2x SQLite (CPU client+server): ${cpuPg / cpuSqlite <= 2 ? 'met' : 'NOT met'}`);
  return undefined;
});
if (typeof outcome === 'string') console.log(`Postgres ${outcome}: skipped`);
await shutdownTracing();
await rm(dir, { recursive: true, force: true });
