/**
 * The prompt-store contract (agentkit/testing `promptStoreContract`), unchanged, on both engines: each case on a fresh
 * SQLite file and a fresh Postgres schema (issue 39).
 */
import { promptStoreContract, runPromptContractCase, type PromptContractInitializer } from '../../src/prompts/contract/index.js';
import { parseStoreValue } from '../../src/config/store-value.js';
import { promptStoreOf } from '../../src/prompts/store/index.js';
import { conformance } from '../harness/index.js';

const area = conformance('prompts: prompt-store contract');

function initializer(store: string): PromptContractInitializer {
  const open = () => promptStoreOf(parseStoreValue(store));
  return {
    name: store.startsWith('postgres') ? 'postgres' : 'sqlite',
    create: async () => ({ store: open(), reopen: async () => open() }),
    destroy: async ({ store: handle }) => handle.close(),
  };
}

for (const contractCase of promptStoreContract) {
  area.scenario(`${contractCase.group}: ${contractCase.name}`, { timeoutMs: 30_000 }, async (t) => {
    await runPromptContractCase(contractCase, initializer(t.store!));
  });
}
area.run();
