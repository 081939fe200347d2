/**
 * A served agent whose model is reached over HTTP, for the soak, memory and realistic serving benchmarks: one model
 * call a run against the OpenAI-compatible server at BENCH_MODEL_URL (bench/lib/slow-openai-server.ts), traced in the
 * local store (AGENTKIT_LOCAL_DB) and checkpointed there, or in Postgres when BENCH_PG_URL is set (schema
 * BENCH_PG_SCHEMA, default pool), as a served agent in production is. To see what each layer costs:
 * BENCH_TRACE=0 turns tracing off, BENCH_CHECKPOINTS=0 leaves the checkpointer out.
 */
import { Agent, OpenAICompatibleModel, PostgresCheckpointer, SQLiteCheckpointer } from '../../src/index.js';

const baseUrl = process.env.BENCH_MODEL_URL;
if (!baseUrl) throw new Error('BENCH_MODEL_URL must name the fake model server (bench/lib/slow-openai-server.ts)');
const pgUrl = process.env.BENCH_PG_URL;

export const agent = new Agent({
  name: 'http-model',
  systemPrompt: 'Answer briefly.',
  llm: new OpenAICompatibleModel({ provider: 'custom', model: 'bench', baseUrl }),
  trace: process.env.BENCH_TRACE !== '0',
  ...(process.env.BENCH_CHECKPOINTS === '0'
    ? {}
    : { checkpointer: pgUrl ? new PostgresCheckpointer(pgUrl, { schema: process.env.BENCH_PG_SCHEMA ?? 'agentkit' }) : new SQLiteCheckpointer() }),
});
