/**
 * A served agent whose model is reached over HTTP, for the soak and memory benchmarks: one model call a run against
 * the OpenAI-compatible server at BENCH_MODEL_URL (bench/lib/slow-openai-server.ts), traced and checkpointed in the
 * local store (AGENTKIT_LOCAL_DB), as a served agent in production is.
 */
import { Agent, OpenAICompatibleModel, SQLiteCheckpointer } from '../../src/index.js';

const baseUrl = process.env.BENCH_MODEL_URL;
if (!baseUrl) throw new Error('BENCH_MODEL_URL must name the fake model server (bench/lib/slow-openai-server.ts)');

export const agent = new Agent({
  name: 'http-model',
  systemPrompt: 'Answer briefly.',
  llm: new OpenAICompatibleModel({ provider: 'custom', model: 'bench', baseUrl }),
  checkpointer: new SQLiteCheckpointer(),
});
