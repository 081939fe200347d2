/**
 * Heap growth per run of an Agent whose model is reached over HTTP: an OpenAI-compatible provider on loopback with
 * a real model's timing (bench/lib/slow-openai-server.ts, in a process of its own), runs traced to a temporary
 * store, `--concurrency` runs in flight. After a warm-up, `--batches` batches of `--runs` runs each; after each
 * batch the heap is measured after a full GC. Prints each batch's growth in bytes per run and, as the figure to
 * judge by, the last batch's (target: at most 40 B per run). The baseline is the heap after the warm-up.
 *
 *   node --expose-gc --conditions=agentkit-source --import tsx bench/memory-http-model.bench.ts [--runs 20000] [--batches 5] [--concurrency 128]
 *
 * Model timing: BENCH_MODEL_FIRST_TOKEN_MS (default here 20), BENCH_MODEL_TOKENS (10), BENCH_MODEL_TOKEN_GAP_MS (2).
 * `scripts/bench.mjs` runs it with --expose-gc.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Agent, OpenAICompatibleModel } from '../src/index.js';
import { flushTraces, shutdownTracing } from '../src/tracing/setup.js';
import { spawnSlowOpenAI } from './lib/slow-openai-server.js';

const { values } = parseArgs({
  options: { runs: { type: 'string', default: '20000' }, batches: { type: 'string', default: '5' }, concurrency: { type: 'string', default: '128' } },
});
const runsPerBatch = Number(values.runs);
const batches = Number(values.batches);
const concurrency = Number(values.concurrency);
for (const [name, value] of [
  ['--runs', runsPerBatch],
  ['--batches', batches],
  ['--concurrency', concurrency],
] as const) {
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a whole number of 1 or more`);
}
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');

const dir = await mkdtemp(path.join(tmpdir(), 'agentkit-memory-'));
process.env.AGENTKIT_LOCAL_DB = path.join(dir, 'local.db');
const model = await spawnSlowOpenAI({
  ...process.env,
  BENCH_MODEL_FIRST_TOKEN_MS: process.env.BENCH_MODEL_FIRST_TOKEN_MS ?? '20',
  BENCH_MODEL_TOKENS: process.env.BENCH_MODEL_TOKENS ?? '10',
  BENCH_MODEL_TOKEN_GAP_MS: process.env.BENCH_MODEL_TOKEN_GAP_MS ?? '2',
});
const agent = new Agent({
  name: 'memory',
  systemPrompt: 'Answer briefly.',
  llm: new OpenAICompatibleModel({ provider: 'custom', model: 'bench', baseUrl: model.baseUrl }),
});

/** `count` runs, `concurrency` at a time; throws on the first that does not complete. */
async function runMany(count: number): Promise<void> {
  let started = 0;
  const worker = async () => {
    while (started < count) {
      started++;
      const result = await agent.run('How are you?');
      if (result.status !== 'completed') throw new Error(`a run ended ${result.status}`);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
}

/** The heap after a full collection, once the traces written so far are stored. */
async function settledHeap(): Promise<number> {
  await flushTraces();
  // Idle keep-alive sockets, span batches and timers of the last runs settle first; then several full collections
  // (a pass can leave finalizers whose memory the next frees).
  await new Promise((resolve) => setTimeout(resolve, 500));
  for (let i = 0; i < 4; i++) {
    gc!();
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return process.memoryUsage().heapUsed;
}

console.log(`memory-http-model: Node ${process.version}, ${batches} batches of ${runsPerBatch} runs, ${concurrency} in flight, model on loopback over HTTP`);
const warmStarted = performance.now();
await runMany(Math.min(2000, runsPerBatch));
let before = await settledHeap();
const baseline = before;
console.log(`  after warm-up (${((performance.now() - warmStarted) / 1000).toFixed(1)} s): heap after GC ${(before / 2 ** 20).toFixed(1)} MB`);
const growth: number[] = [];
for (let batch = 1; batch <= batches; batch++) {
  const started = performance.now();
  await runMany(runsPerBatch);
  const seconds = (performance.now() - started) / 1000;
  const after = await settledHeap();
  growth.push((after - before) / runsPerBatch);
  console.log(
    `  batch ${batch}: ${(runsPerBatch / seconds).toFixed(0)} runs/s; heap after GC ${(after / 2 ** 20).toFixed(1)} MB (${(after / baseline).toFixed(3)}x warm); growth ${growth.at(-1)!.toFixed(1)} B per run`,
  );
  before = after;
}
const last = growth.at(-1)!;
const total = (before - baseline) / (runsPerBatch * batches);
console.log(
  `  over all ${runsPerBatch * batches} runs: ${total.toFixed(1)} B per run; last batch ${last.toFixed(1)} B per run (target at most 40: ${last <= 40 ? 'met' : 'NOT met'})`,
);
model.stop();
await shutdownTracing();
await rm(dir, { recursive: true, force: true });
