/**
 * The Platform store contract suite (issue 42): every case a conformant PlatformStore passes; the SQLite and Postgres
 * stores run it unchanged (src/platform/server/store-contract.test.ts). Register the cases with any test runner:
 *
 *   import { platformStoreContract, runPlatformContractCase } from 'agentkit/testing';
 *   for (const c of platformStoreContract) test(`${c.group}: ${c.name}`, () => runPlatformContractCase(c, initializer));
 */
import { platformCases } from './cases.js';
import type { PlatformContractCase, PlatformContractInitializer } from './types.js';

export type { PlatformContractCase, PlatformContractInitializer, PlatformContractStore } from './types.js';

export const platformStoreContract: readonly PlatformContractCase[] = platformCases;

/** Run one case against a fresh store from `initializer`, destroying it afterwards; rejects on failure. */
export async function runPlatformContractCase(contractCase: PlatformContractCase, initializer: PlatformContractInitializer): Promise<void> {
  const store = await initializer.create();
  try {
    await contractCase.run(store);
  } finally {
    await initializer.destroy(store);
  }
}
