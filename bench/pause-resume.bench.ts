/**
 * Pause/resume latency of a durable Agent, against the claim statement alone, on SQLite and Postgres.
 *
 * One cycle: an agent (deterministic model, tracing off, one tool) runs; its tool calls `interrupt()`; the run returns
 * `paused`; the agent resumes it at once with a Resume value, re-invoking the tool, asking the model for the answer and
 * returning `completed`. The human's wait is left out: interrupt-to-completed is the time from the tool raising
 * the interrupt to the paused result in hand (the interrupted checkpoint and pending row written in one transaction),
 * plus the time of `resume()` (shape detection, the atomic claim, the re-invoked tool's checkpoint, the turn
 * checkpoint, the terminal row). Baseline, measured in the same run, interleaved: the checkpointer's claim of a
 * pending row alone (`deletePendingInterruptAtomic`, one DELETE ... RETURNING on a row seeded untimed).
 *
 *   node scripts/bench.mjs pause-resume
 *
 * Postgres uses AGENTKIT_TEST_PG_URL (default the local test server) in a scratch schema dropped afterwards; it is
 * reported as unavailable when the server does not answer. Figures: median and p99 over CYCLES cycles.
 *
 * Before and after the exactly-once work (claim + recorded decision, execution lease), in the same run, interleaved:
 * "after" is the code as it is; "before" runs the same agent on the same store through a checkpointer view that
 * behaves as the store did before it: no lease (acquire, renew and release are no-ops) and a bare claim
 * (`deletePendingInterruptAtomic`) followed by the separate write of the re-invoked tool's checkpoint, which is what
 * the old resume did; everything else (shape detection, the turn and terminal rows) is the same code.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { withScratchSchema } from './lib/pg-scratch.js';
import Type from 'typebox';
import {
  Agent,
  PostgresCheckpointer,
  SQLiteCheckpointer,
  decisionRow,
  interrupt,
  tool,
  type Checkpointer,
  type CheckpointWrite,
  type PendingInterruptWrite,
} from '../src/index.js';
import type { JsonValue } from '../src/durability/json.js';
import { FunctionModel } from '../src/testing/index.js';

const CYCLES = Number(process.env.BENCH_CYCLES ?? 500);
const WARMUP = 30;

let raisedAt = 0n;

function buildAgent(checkpointer: Checkpointer): Agent {
  const approve = tool({
    name: 'approve_refund',
    description: 'Ask a manager',
    parameters: Type.Object({ amount: Type.Number() }),
    registry: false,
    execute: ({ amount }) => {
      raisedAt = process.hrtime.bigint();
      const decision = interrupt('refund_approval', { amount });
      return decision.approved ? `refunded ${amount}` : 'rejected';
    },
  });
  const llm = new FunctionModel((messages) => {
    const last = messages.at(-1)!;
    return last.role === 'tool' ? `Done: ${last.content}` : { toolCalls: [{ name: 'approve_refund', arguments: { amount: 50 } }] };
  });
  return new Agent({ name: 'bench-refund', systemPrompt: 'You refund.', llm, tools: [approve], checkpointer, trace: false });
}

interface Samples {
  pause: number[];
  resume: number[];
  total: number[];
  claim: number[];
  /** interrupt-to-completed through the view of the store as it was before the exactly-once work. */
  before: number[];
}

/**
 * The store as the resume path used it before claim + lease: no lease, and a claim that is a bare DELETE followed by
 * the re-invoked tool's own checkpoint in a separate write (the old drive wrote it before re-invoking the tool).
 */
function beforeExactlyOnce(checkpointer: Checkpointer): Checkpointer {
  return new Proxy(checkpointer, {
    get(target, property, receiver) {
      // No lease and no fencing: the first row is written as a plain put, fences are dropped.
      if (property === 'acquireLease') {
        return async (_id: string, _owner: string, _ttl: number, options?: { first?: CheckpointWrite }) => {
          if (options?.first) await target.put(options.first);
          return 1;
        };
      }
      if (property === 'renewLease') return async () => true;
      if (property === 'releaseLease') return async () => undefined;
      if (property === 'put') return (row: CheckpointWrite) => target.put(row);
      if (property === 'putWrites') return (rows: CheckpointWrite[]) => target.putWrites(rows);
      if (property === 'recordInterrupt') return (row: CheckpointWrite, pending: PendingInterruptWrite) => target.recordInterrupt(row, pending);
      if (property === 'putIdempotent') return (id: string, key: string, value: JsonValue) => target.putIdempotent(id, key, value);
      if (property === 'claimPendingInterrupt') {
        return async (executionId: string, claim: Parameters<Checkpointer['claimPendingInterrupt']>[1]) => {
          const pending = await target.deletePendingInterruptAtomic(executionId);
          if (!pending) return null;
          // The old tool row (its content does not change the cycle's work: the run goes on in this process).
          const row = { ...decisionRow(pending, null, claim), step_type: 'tool_call' as const, node_output: null };
          return { pending, checkpoint: await target.put(row) };
        };
      }
      const value = Reflect.get(target, property, receiver) as unknown;
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

const us = (from: bigint, to: bigint) => Number(to - from) / 1000;

async function cycle(agent: Agent, samples: Samples | null, into: 'after' | 'before' = 'after'): Promise<void> {
  const paused = await agent.run('refund 50');
  const pausedAt = process.hrtime.bigint();
  // Read now: the resumed tool sets it again when it re-runs.
  const raised = raisedAt;
  if (paused.status !== 'paused') throw new Error(`expected a pause, got ${paused.status}`);
  const resumeStart = process.hrtime.bigint();
  const done = await agent.resume(paused.execution_id, { resumeValue: { approved: true } });
  const doneAt = process.hrtime.bigint();
  if (done.status !== 'completed' || done.output !== 'Done: refunded 50') throw new Error(`unexpected resume result ${JSON.stringify(done)}`);
  if (samples && into === 'before') samples.before.push(us(raised, pausedAt) + us(resumeStart, doneAt));
  else if (samples) {
    samples.pause.push(us(raised, pausedAt));
    samples.resume.push(us(resumeStart, doneAt));
    samples.total.push(us(raised, pausedAt) + us(resumeStart, doneAt));
  }
}

async function claim(checkpointer: Checkpointer, n: number, samples: Samples | null): Promise<void> {
  const executionId = `claim-${n}-${randomBytes(4).toString('hex')}`;
  await checkpointer.recordInterrupt(
    {
      execution_id: executionId,
      chain_name: 'bench',
      node_id: 'turn:0/tool:approve_refund',
      status: 'interrupted',
      step_type: 'hitl_pause',
      state_snapshot: { turn: 0 },
    },
    { reason: 'refund_approval', context: { amount: 50 } },
  );
  const start = process.hrtime.bigint();
  const claimed = await checkpointer.deletePendingInterruptAtomic(executionId);
  const end = process.hrtime.bigint();
  if (!claimed) throw new Error('the seeded pending row was not claimed');
  samples?.claim.push(us(start, end));
}

async function measure(checkpointer: Checkpointer): Promise<Samples> {
  const agent = buildAgent(checkpointer);
  const before = buildAgent(beforeExactlyOnce(checkpointer));
  for (let i = 0; i < WARMUP; i++) {
    await cycle(agent, null);
    await cycle(before, null);
    await claim(checkpointer, -i, null);
  }
  const samples: Samples = { pause: [], resume: [], total: [], claim: [], before: [] };
  for (let i = 0; i < CYCLES; i++) {
    // Alternate which goes first, so neither always runs right after the other's writes.
    if (i % 2 === 0) {
      await cycle(agent, samples);
      await cycle(before, samples, 'before');
    } else {
      await cycle(before, samples, 'before');
      await cycle(agent, samples);
    }
    await claim(checkpointer, i, samples);
  }
  return samples;
}

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
}

function report(backend: string, s: Samples): void {
  const claimMedian = quantile(s.claim, 0.5);
  const claimP99 = quantile(s.claim, 0.99);
  const line = (label: string, values: number[]) => {
    const med = quantile(values, 0.5);
    const p99 = quantile(values, 0.99);
    console.log(
      `  ${label.padEnd(34)} median ${med.toFixed(0).padStart(6)} us  p99 ${p99.toFixed(0).padStart(6)} us   (x claim: ${(med / claimMedian).toFixed(1)} median, ${(p99 / claimP99).toFixed(1)} p99)`,
    );
  };
  console.log(`${backend}:`);
  line('interrupt -> paused result', s.pause);
  line('resume() -> completed result', s.resume);
  line('interrupt-to-completed (no wait)', s.total);
  console.log(`  ${'claim statement alone (baseline)'.padEnd(34)} median ${claimMedian.toFixed(0).padStart(6)} us  p99 ${claimP99.toFixed(0).padStart(6)} us`);
  const beforeMedian = quantile(s.before, 0.5);
  const afterMedian = quantile(s.total, 0.5);
  console.log(
    `  ${'before exactly-once (no lease, bare claim)'.padEnd(34)} median ${beforeMedian.toFixed(0).padStart(6)} us  p99 ${quantile(s.before, 0.99).toFixed(0).padStart(6)} us`,
  );
  console.log(
    `  after / before: ${(afterMedian / beforeMedian).toFixed(2)}x median, ${(quantile(s.total, 0.99) / quantile(s.before, 0.99)).toFixed(2)}x p99 (target: at most 1.2x)`,
  );
  const max = Math.max(...s.total);
  console.log(
    `  slowest cycle ${max.toFixed(0)} us; cycles over 3x the median: ${s.total.filter((v) => v > 3 * quantile(s.total, 0.5)).length} of ${s.total.length}`,
  );
}

async function sqlite(): Promise<void> {
  const dir = await mkdtemp(path.join(tmpdir(), 'agentkit-bench-'));
  const checkpointer = new SQLiteCheckpointer(path.join(dir, 'local.db'));
  try {
    report('SQLite', await measure(checkpointer));
  } finally {
    await checkpointer.close();
    await rm(dir, { recursive: true, force: true });
  }
}

async function postgres(): Promise<void> {
  const outcome = await withScratchSchema(async (url, schema) => {
    const checkpointer = new PostgresCheckpointer(url, { schema });
    try {
      report('Postgres', await measure(checkpointer));
    } finally {
      await checkpointer.close();
    }
  });
  if (typeof outcome === 'string') console.log(`Postgres: ${outcome}`);
}

console.log(`pause/resume: one tool, deterministic model, tracing off; ${CYCLES} cycles per backend after ${WARMUP} warm-up cycles`);
await sqlite();
await postgres();
