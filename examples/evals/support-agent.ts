/**
 * The agent the eval docs gate: a one-word answering desk. Without an API key a deterministic model answers from a
 * small table (so the eval is reproducible in CI); with OPENAI_API_KEY set it asks OpenAI (OPENAI_MODEL, default
 * gpt-4o-mini).
 *
 *   npx agentkit eval run --agent examples/evals/support-agent.ts:support --dataset examples/evals/cases.jsonl
 */
import { Agent, OpenAICompatibleModel, type ChatModel, type Message } from 'agentkit';
import { FunctionModel } from 'agentkit/testing';

const KNOWN: Record<string, string> = {
  'What is the capital of France?': 'Paris',
  'What is the capital of Italy?': 'Rome',
  'How many days are in a week?': '7',
  'What colour is a clear daytime sky?': 'Blue',
};

function offlineModel(): ChatModel {
  return new FunctionModel((messages: readonly Message[]) => {
    const question = [...messages].reverse().find((m) => m.role === 'user')?.content ?? '';
    return { text: KNOWN[question] ?? 'I do not know' };
  });
}

export const support = new Agent({
  name: 'support',
  systemPrompt: 'Answer in one word.',
  llm: process.env.OPENAI_API_KEY ? new OpenAICompatibleModel({ model: process.env.OPENAI_MODEL ?? 'gpt-4o-mini' }) : offlineModel(),
});
