/**
 * Tracing overhead: runs per second of an agent with the scripted model and three tool calls per run (four model
 * turns, eight spans), tracing on (spans written to a real local.db, flushes included in the timing) versus tracing
 * off, in the same process. Rounds alternate between the two so drift hits both alike. Target: tracing costs at most
 * 10% (the Python SDK measured 19.5%).
 *
 *   node scripts/bench.mjs tracing-overhead
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import Type from 'typebox';
import { Agent, flushTraces, shutdownTracing, tool, TraceStore } from 'agentkit';
import { ScriptedModel, type Turn } from 'agentkit/testing';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 10);
const RUNS_PER_ROUND = Number(process.env.BENCH_RUNS ?? 400);

const dir = await mkdtemp(path.join(tmpdir(), 'agentkit-bench-'));
const traceDb = path.join(dir, 'local.db');

const tools = [
  tool({ name: 'get_rate', registry: false, parameters: Type.Object({ from: Type.String(), to: Type.String() }), replayClass: 'read_only', execute: () => 1.08 }),
  tool({ name: 'convert', registry: false, parameters: Type.Object({ amount: Type.Number(), rate: Type.Number() }), execute: ({ amount, rate }) => ({ amount: amount * rate }) }),
  tool({ name: 'format_money', registry: false, parameters: Type.Object({ amount: Type.Number(), currency: Type.String() }), execute: ({ amount, currency }) => `${amount.toFixed(2)} ${currency}` }),
];

const conversation: Turn[] = [
  { toolCalls: [{ name: 'get_rate', arguments: { from: 'EUR', to: 'USD' } }] },
  { toolCalls: [{ name: 'convert', arguments: { amount: 250, rate: 1.08 } }] },
  { toolCalls: [{ name: 'format_money', arguments: { amount: 270, currency: 'USD' } }] },
  'That is 270.00 USD.',
];

/** An agent whose script holds `runs` conversations (a fresh model per batch keeps its request log small). */
function agentFor(runs: number, trace: boolean): Agent {
  const turns = Array.from({ length: runs }, () => conversation).flat();
  return new Agent({ name: 'fx', systemPrompt: 'Convert currencies with the tools.', llm: new ScriptedModel(turns), tools, traceDb, trace });
}

async function batch(trace: boolean, runs: number): Promise<number> {
  const agent = agentFor(runs, trace);
  const started = performance.now();
  for (let i = 0; i < runs; i++) {
    const result = await agent.run('Convert 250 EUR to USD');
    if (result.tool_calls.length !== 3) throw new Error('the scripted conversation did not make three tool calls');
  }
  // Writing the spans is part of what tracing costs: flush inside the timed section.
  if (trace) await flushTraces();
  return performance.now() - started;
}

await batch(true, 200);
await batch(false, 200);

let onMs = 0;
let offMs = 0;
for (let round = 0; round < ROUNDS; round++) {
  if (round % 2 === 0) {
    offMs += await batch(false, RUNS_PER_ROUND);
    onMs += await batch(true, RUNS_PER_ROUND);
  } else {
    onMs += await batch(true, RUNS_PER_ROUND);
    offMs += await batch(false, RUNS_PER_ROUND);
  }
}

const total = ROUNDS * RUNS_PER_ROUND;
const offRate = (total / offMs) * 1000;
const onRate = (total / onMs) * 1000;
const overhead = (onMs / offMs - 1) * 100;
const traces = (await new TraceStore({ dbPath: traceDb }).listTraces()).length;
console.log(`runs per round: ${RUNS_PER_ROUND}, rounds: ${ROUNDS} (alternating), 3 tool calls and 8 spans per traced run`);
console.log(`tracing off (baseline): ${offRate.toFixed(0)} runs/s`);
console.log(`tracing on:             ${onRate.toFixed(0)} runs/s (${traces} traces written to ${path.basename(traceDb)})`);
console.log(`ratio on/off: ${(onRate / offRate).toFixed(3)}; tracing overhead ${overhead.toFixed(1)}% (target <= 10%: ${overhead <= 10 ? 'met' : 'NOT met'})`);
await shutdownTracing();
await rm(dir, { recursive: true, force: true });
