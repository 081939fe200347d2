/**
 * A Supervisor: `editor` delegates research to one worker and writing to another, then answers. Every step is
 * checkpointed in one execution (`supervisor:editor`, `supervisor:editor/worker:<role>/...`), so a crash inside a
 * worker resumes with `supervisor.resume(executionId)`: the editor's model is asked again, the finished worker answers
 * from its record and the stopped one continues where it stopped.
 *
 *   node --conditions=agentkit-source --import tsx examples/multi-agent/research-supervisor.ts
 */
import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import Type from 'typebox';
import { Agent, SQLiteCheckpointer, Supervisor, tool, type Checkpointer } from 'agentkit';
import { FunctionModel } from 'agentkit/testing';

const lookupFacts = tool({
  name: 'lookup_facts',
  description: 'Look up facts about a topic',
  parameters: Type.Object({ topic: Type.String() }),
  replayClass: 'read_only',
  execute: ({ topic }) => ({ topic, facts: ['revenue grew 12%', 'churn fell to 3%'] }),
});

/** The editor delegates research, then writing, then answers with the draft. */
export const editorModel = () =>
  new FunctionModel((messages) => {
    const results = messages.filter((m) => m.role === 'tool');
    if (results.length === 0) return { toolCalls: [{ name: 'delegate_to_researcher', arguments: { task: 'Find the Q3 facts' } }] };
    if (results.length === 1) return { toolCalls: [{ name: 'delegate_to_writer', arguments: { task: `Write a summary of: ${results[0]!.content}` } }] };
    return `Q3 summary: ${results[1]!.content}`;
  });

const researcherModel = () =>
  new FunctionModel((messages) => {
    const last = messages.at(-1)!;
    if (last.role === 'tool') return (JSON.parse(last.content) as { facts: string[] }).facts.join('; ');
    return { toolCalls: [{ name: 'lookup_facts', arguments: { topic: 'Q3' } }] };
  });

/** The workers (docs/agents.md imports them with editorModel): a researcher with a lookup tool, a writer. */
export const researcher = new Agent({ name: 'researcher', llm: researcherModel(), tools: [lookupFacts] });
export const writer = new Agent({ name: 'writer', llm: new FunctionModel((m) => `In Q3, ${String(m.at(-1)!.content).replace('Write a summary of: ', '')}.`) });

export function buildEditor(checkpointer: Checkpointer): Supervisor {
  return new Supervisor({
    name: 'editor',
    llm: editorModel(),
    systemPrompt: 'You edit the quarterly report.',
    workers: [
      { role: 'researcher', description: 'finds facts', agent: researcher },
      { role: 'writer', description: 'writes prose', agent: writer },
    ],
    checkpointer,
  });
}

if (process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) {
  const editor = buildEditor(new SQLiteCheckpointer());
  const result = await editor.run('Prepare the Q3 summary');
  console.log(`status: ${result.status}`);
  console.log(`output: ${result.output}`);
  console.log(`delegations: ${result.tool_calls.map((c) => c.tool_name).join(', ')}`);
  console.log(`execution_id: ${result.execution_id}`);
  await editor.checkpointer?.close();
}
