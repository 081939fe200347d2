/**
 * Trace storage growth: one traced Agent run receiving N tool results of 1 KB (four tool calls a turn, a scripted
 * model), N = 50, 100 and 200. Figures: the bytes of span attributes stored in local.db, and the same spans' attributes
 * as every reader gets them back (each model span with its whole conversation: what the store held before model spans
 * stored only the messages they add, ADR 0034), both against the payload. Linear storage keeps the stored ratio
 * flat as N grows; the whole-conversation form grows with N.
 *
 *   node scripts/bench.mjs trace-growth
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Type from 'typebox';
import Database from 'better-sqlite3';
import { Agent, TraceStore, tool } from '../src/index.js';
import { FunctionModel } from '../src/testing/index.js';
import { chunk } from './lib/payload.js';
import { flushTraces } from '../src/tracing/index.js';

const KB = 1024;
const CALLS_PER_TURN = 4;

async function measure(results: number): Promise<{ stored: number; whole: number }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'agentkit-trace-growth-'));
  const dbPath = path.join(dir, 'local.db');
  try {
    let n = 0;
    const fetchDoc = tool({
      name: 'fetch_doc',
      description: 'Fetch 1 KB',
      parameters: Type.Object({ i: Type.Number() }),
      registry: false,
      execute: async ({ i }) => chunk(i),
    });
    const llm = new FunctionModel(() => {
      if (n >= results) return 'done';
      const calls = Array.from({ length: CALLS_PER_TURN }, (_, k) => ({ id: `call_${n + k}`, name: 'fetch_doc', arguments: { i: n + k } }));
      n += CALLS_PER_TURN;
      return { toolCalls: calls };
    });
    const agent = new Agent({ name: 'reader', systemPrompt: 'You read.', llm, tools: [fetchDoc], traceDb: dbPath, config: { maxIterations: 100 } });
    const run = await agent.run('read everything');
    await flushTraces();
    const db = new Database(dbPath, { readonly: true });
    const stored = (db.prepare('SELECT sum(length(attributes)) AS n FROM spans WHERE trace_id = ?').get(run.trace_id) as { n: number }).n;
    db.close();
    const spans = await new TraceStore({ dbPath }).spans(run.trace_id!);
    const whole = spans.reduce((sum, span) => sum + JSON.stringify(span.attributes).length, 0);
    return { stored, whole };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

await measure(20);
console.log(`trace growth: one traced Agent run, N tool results of 1 KB (${CALLS_PER_TURN} a turn); span attribute bytes against the payload`);
for (const results of [50, 100, 200]) {
  const { stored, whole } = await measure(results);
  const payload = results * KB;
  console.log(
    `  N = ${String(results).padStart(3)}: stored ${(stored / KB).toFixed(0).padStart(5)} KB = ${(stored / payload).toFixed(2)}x payload` +
      `   whole-conversation form (baseline) ${(whole / KB).toFixed(0).padStart(5)} KB = ${(whole / payload).toFixed(2)}x   stored / baseline ${(stored / whole).toFixed(3)}`,
  );
}
