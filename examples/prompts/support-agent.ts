/**
 * A support agent whose system prompt lives in the prompt registry: it follows the `production` label, so promoting
 * or rolling back a version (`agentkit prompts label support production --version N`) changes what the next run uses,
 * and every run's `agent.support` span records `agent.prompt.name` and `agent.prompt.version`.
 *
 *   npx agentkit prompts fragment tone --file examples/prompts/tone.txt
 *   npx agentkit prompts add support --file examples/prompts/support.v1.txt
 *   npx agentkit prompts add support --file examples/prompts/support.v2.txt --label production
 *   node --conditions=agentkit-source --import tsx examples/prompts/support-agent.ts "Where is order 42?"
 *
 * Prompts and traces go to the store AGENTKIT_LOCAL_DB names (a file or a `postgres://...?schema=` URL shared by a
 * fleet), else ./.agentkit/local.db. It needs no API key: a deterministic model answers. Run on a store without a 'support' prompt, it registers the files beside it first
 * (the commands above, done once): a fresh checkout runs it as is, and a store you set up is left as it is.
 */
import { readFileSync, realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { Agent, PromptRegistry, shutdownTracing } from 'agentkit';
import { FunctionModel } from 'agentkit/testing';

const registry = new PromptRegistry();

export const support = new Agent({
  name: 'support',
  systemPrompt: registry.ref('support', { label: 'production', variables: { company: 'Acme' } }),
  // Answers with the prompt's last line, so a run shows which version it used.
  llm: new FunctionModel((messages) => ({
    text: `[${String(messages[0]?.content ?? '')
      .trim()
      .split('\n')
      .at(-1)}] Order 42 ships today.`,
  })),
});

/** Registers tone.txt, support.v1.txt and support.v2.txt (labelled production) when the store has no 'support' prompt. */
export async function registerExamplePrompts(): Promise<boolean> {
  if ((await registry.list()).some((prompt) => prompt.name === 'support')) return false;
  const read = (file: string) => readFileSync(new URL(file, import.meta.url), 'utf8');
  await registry.registerFragment('tone', read('tone.txt').trim());
  await registry.register('support', read('support.v1.txt'));
  await registry.register('support', read('support.v2.txt'), { labels: ['production'] });
  return true;
}

if (process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) {
  if (await registerExamplePrompts()) console.log('registered support v1 and v2 [production] from examples/prompts/ (the store had none)');
  const result = await support.run(process.argv[2] ?? 'Where is order 42?');
  console.log(result.output);
  console.log(`trace ${result.trace_id}`);
  // A Postgres store is written in the background: write the run's spans and give the connections back before exiting.
  await shutdownTracing();
  await registry.close();
}
