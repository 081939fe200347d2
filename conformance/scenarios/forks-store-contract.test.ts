/**
 * The fork-store contract (agentkit/testing `forkStoreContract`), unchanged, on both engines: each case on a fresh
 * SQLite file and a fresh Postgres schema (issue 39).
 */
import { forkStoreContract, forkStoreOf, runForkContractCase, type ForkContractInitializer } from '../../src/forks/index.js';
import { conformance } from '../harness/index.js';

const area = conformance('forks: fork-store contract');

function initializer(store: string): ForkContractInitializer {
  return {
    name: store.startsWith('postgres') ? 'postgres' : 'sqlite',
    create: async () => ({ store: forkStoreOf(store), reopen: async () => forkStoreOf(store) }),
    destroy: async ({ store: handle }) => handle.close(),
  };
}

for (const contractCase of forkStoreContract) {
  area.scenario(`${contractCase.group}: ${contractCase.name}`, { timeoutMs: 30_000 }, async (t) => {
    await runForkContractCase(contractCase, initializer(t.store!));
  });
}
area.run();
