/**
 * The prompt-store contract suite (issue 39): every case a conformant PromptStore passes; local.db's and Postgres's
 * run it unchanged in agentkit's conformance suite (conformance/scenarios/prompts-store-contract.test.ts). Register the
 * cases with any test runner:
 *
 *   import { promptStoreContract, runPromptContractCase } from 'agentkit/testing';
 *   const initializer = { name: 'mine', create: async () => ({ store: new MyPromptStore(freshDb()), reopen }),
 *                         destroy: async ({ store }) => { await store.close(); dropDb(); } };
 *   for (const c of promptStoreContract) test(`${c.group}: ${c.name}`, () => runPromptContractCase(c, initializer));
 */
import { concurrencyCases } from './concurrency.js';
import { fragmentCases } from './fragments.js';
import { labelCases } from './labels.js';
import type { PromptContractCase, PromptContractInitializer } from './types.js';
import { versionCases } from './versions.js';

export type { PromptContractCase, PromptContractInitializer, PromptContractStore } from './types.js';

/** Every case, grouped by what it checks. */
export const promptStoreContract: readonly PromptContractCase[] = [...versionCases, ...labelCases, ...fragmentCases, ...concurrencyCases];

/** Run one case against a fresh store from `initializer`, destroying the store afterwards; rejects on failure. */
export async function runPromptContractCase(contractCase: PromptContractCase, initializer: PromptContractInitializer): Promise<void> {
  const store = await initializer.create();
  try {
    await contractCase.run(store);
  } finally {
    await initializer.destroy(store);
  }
}
