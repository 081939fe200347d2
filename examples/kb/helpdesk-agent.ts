/**
 * A helpdesk agent that answers from a knowledge base. It ingests examples/kb/docs/ into the base `helpdesk`
 * (unchanged files are skipped on later runs) and gives the agent the base's retrieval tool. It works offline with no
 * key: keyword search needs none, and a deterministic model calls the tool, then answers with the best passage.
 *
 *   node --conditions=agentkit-source --import tsx examples/kb/helpdesk-agent.ts "Can I refund a gift card?"
 *   npx agentkit kb search "gift card" --name helpdesk          # the same base from the CLI
 *
 * The base lives in .agentkit/kb/helpdesk/ beside the local store (AGENTKIT_LOCAL_DB, else ./.agentkit/local.db).
 */
import { realpathSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Agent, KnowledgeBase } from 'agentkit';
import { FunctionModel } from 'agentkit/testing';

export const kb = new KnowledgeBase('helpdesk');

export const helpdesk = new Agent({
  name: 'helpdesk',
  systemPrompt: 'Answer from the knowledge base only.',
  tools: [kb.asTool({ topK: 2 })],
  // Turn 1: search with the question. Turn 2: answer with the best passage's last line and its source.
  llm: new FunctionModel((messages) => {
    const result = messages.find((m) => m.role === 'tool');
    if (!result) return { toolCalls: [{ name: 'search_helpdesk', arguments: { query: String(messages.at(-1)?.content ?? '') } }] };
    const [best] = JSON.parse(String(result.content)) as Array<{ source: string; content: string }>;
    return { text: best ? `${best.content.trim().split('\n').at(-1)} (source: ${best.source})` : 'I could not find that.' };
  }),
});

if (process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) {
  const report = await kb.add(path.join(path.dirname(fileURLToPath(import.meta.url)), 'docs'));
  console.log(`ingested: ${report.added} added, ${report.unchanged} unchanged, ${report.chunks} chunks`);
  const result = await helpdesk.run(process.argv[2] ?? 'Can I refund a gift card?');
  console.log(result.output);
  kb.close();
}
