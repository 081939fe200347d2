/**
 * Replay on a large trace: `Replay.load` + `steps()` of a synthetic 10,000-span agent trace in the local store, and
 * `compare` of two such traces, next to the floor: the raw SQL read of the same rows (a prepared
 * `SELECT * ... WHERE trace_id = ? ORDER BY start_time, rowid`, rows fetched, nothing decoded). Target: under 50 ms
 * each. Medians of interleaved rounds, after a warm-up.
 *
 *   node scripts/bench.mjs replay-load
 *
 * The trace: one `agent.bench` root with its reconstruction attributes, then 3,333 turns of an `llm.chat_completion`
 * span (a short message history and a response as payloads) and two `tool.*` spans (arguments and result), the
 * way an agent run records them. The second trace is the same with the last model answer changed.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { compareSteps, Replay, TraceStore } from '../src/index.js';
import { openLocalStore } from '../src/store/index.js';

const SPANS = 10_000;
const ROUNDS = 9;

function iso(base: number, offsetMicros: number): string {
  const micros = base * 1000 + offsetMicros;
  return new Date(Math.floor(micros / 1000)).toISOString().replace('Z', `${String(micros % 1000).padStart(3, '0')}Z`);
}

function insertTrace(file: string, lastAnswer: string): string {
  const traceId = randomBytes(16).toString('hex');
  const db = openLocalStore(file);
  const insert = db.prepare(
    'INSERT INTO spans (span_id, trace_id, parent_span_id, name, start_time, end_time, status, attributes) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const base = Date.now();
  const rootId = randomBytes(8).toString('hex');
  db.transaction(() => {
    insert.run(
      rootId,
      traceId,
      null,
      'agent.bench',
      iso(base, 0),
      iso(base, SPANS * 10),
      'OK',
      JSON.stringify({
        'agent.name': 'bench',
        'agent.input': 'Reconcile every open order.',
        'agent.output': lastAnswer,
        'agent.config': JSON.stringify({
          max_iterations: 100,
          tool_choice: null,
          temperature: 0,
          max_tokens: null,
          top_p: null,
          seed: null,
          stop: null,
          parallel_tool_calls: null,
        }),
        'agent.tools': JSON.stringify([
          {
            name: 'lookup_order',
            description: 'Look an order up',
            tool_type: 'function',
            origin: 'function',
            parameters: { type: 'object', properties: { id: { type: 'string' } } },
            replay_class: 'read_only',
            config: {},
          },
        ]),
        'agent.guardrails': '[]',
        'agent.llm.config': JSON.stringify({ provider: 'openai', model: 'gpt-4o-mini' }),
        'agent.system_prompt': 'You reconcile orders.',
      }),
    );
    for (let i = 1; i < SPANS; i++) {
      const turn = Math.floor((i - 1) / 3);
      const kind = (i - 1) % 3;
      const start = iso(base, i * 10);
      const end = iso(base, i * 10 + 8);
      const id = randomBytes(8).toString('hex');
      if (kind === 0) {
        const answer = i >= SPANS - 3 ? lastAnswer : `Checking order ${turn}.`;
        insert.run(
          id,
          traceId,
          rootId,
          'llm.chat_completion',
          start,
          end,
          'OK',
          JSON.stringify({
            'gen_ai.system': 'openai',
            'gen_ai.request.model': 'gpt-4o-mini',
            'gen_ai.request.messages': JSON.stringify([
              { role: 'system', content: 'You reconcile orders.' },
              { role: 'user', content: `Order ${turn}?` },
            ]),
            'gen_ai.response.content': answer,
            'gen_ai.response.tool_calls': JSON.stringify([{ id: `call_${turn}`, name: 'lookup_order', arguments: { id: String(turn) } }]),
            'gen_ai.usage.input_tokens': 40,
            'gen_ai.usage.output_tokens': 12,
          }),
        );
      } else {
        insert.run(
          id,
          traceId,
          rootId,
          'tool.lookup_order',
          start,
          end,
          'OK',
          JSON.stringify({
            'tool.name': 'lookup_order',
            'agentkit.tool.name': 'lookup_order',
            'agentkit.tool.replay_class': 'read_only',
            'tool.args': JSON.stringify({ id: String(turn) }),
            'tool.result': JSON.stringify({ id: String(turn), total: 50, status: 'delivered' }),
            'tool.status': 'ok',
          }),
        );
      }
    }
  })();
  db.close();
  return traceId;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function ms(work: () => unknown): Promise<number> {
  const start = process.hrtime.bigint();
  await work();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

const dir = await mkdtemp(path.join(tmpdir(), 'agentkit-bench-replay-'));
try {
  const file = path.join(dir, 'local.db');
  const a = insertTrace(file, 'All orders reconciled.');
  const b = insertTrace(file, 'Most orders reconciled.');
  const store = new TraceStore({ dbPath: file });
  if (process.env.KEEP) {
    console.log(file, a);
    process.exit(0);
  }
  const rawRead = () => {
    const db = openLocalStore(file, { readonly: true });
    try {
      return db.prepare('SELECT * FROM spans WHERE trace_id = ? ORDER BY start_time, rowid').all(a).length;
    } finally {
      db.close();
    }
  };
  const loaded = { a: await Replay.load(a, { store }), b: await Replay.load(b, { store }) };
  const times = { raw: [] as number[], load: [] as number[], compare: [] as number[], compareWithLoad: [] as number[] };
  for (let round = -2; round < ROUNDS; round++) {
    const raw = await ms(rawRead);
    const load = await ms(async () => (await Replay.load(a, { store })).steps());
    const compare = await ms(() => compareSteps(loaded.a.steps(), loaded.b.steps()));
    const compareWithLoad = await ms(() => loaded.a.forkAt(0).compare({ trace_id: b }));
    if (round < 0) continue;
    times.raw.push(raw);
    times.load.push(load);
    times.compare.push(compare);
    times.compareWithLoad.push(compareWithLoad);
  }
  const result = compareSteps(loaded.a.steps(), loaded.b.steps());
  if (result.diverged_at !== SPANS - 3 || loaded.a.length !== SPANS) throw new Error(`unexpected: ${loaded.a.length} steps, diverged_at ${result.diverged_at}`);
  const floor = median(times.raw);
  const row = (label: string, values: number[]) =>
    console.log(
      `${label.padEnd(44)} ${median(values).toFixed(1).padStart(7)} ms   ${(median(values) / floor).toFixed(1).padStart(5)}x the raw read   (target < 50 ms)`,
    );
  console.log(`replay on a ${SPANS.toLocaleString('en-US')}-span trace, medians of ${ROUNDS} rounds`);
  console.log(`${'raw SQL read of the rows (floor)'.padEnd(44)} ${floor.toFixed(1).padStart(7)} ms`);
  row('Replay.load + steps()', times.load);
  row('compare of two loaded traces', times.compare);
  row('fork.compare (loads the rerun trace too)', times.compareWithLoad);
  console.log(`diverged_at ${result.diverged_at} (the changed last model answer)`);
} finally {
  await rm(dir, { recursive: true, force: true });
}
