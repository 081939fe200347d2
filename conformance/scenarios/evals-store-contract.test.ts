/**
 * The eval-store contract (agentkit/testing `evalStoreContract`), unchanged, on both engines: each case on a fresh
 * SQLite file and a fresh Postgres schema (issue 39).
 */
import { evalRunStoreOf } from '../../src/eval/store.js';
import { evalStoreContract, runEvalContractCase, type EvalContractInitializer } from '../../src/eval/store-contract.js';
import { conformance } from '../harness/index.js';

const area = conformance('evals: eval-store contract');

function initializer(store: string): EvalContractInitializer {
  return {
    name: store.startsWith('postgres') ? 'postgres' : 'sqlite',
    create: async () => ({ store: evalRunStoreOf(store), reopen: async () => evalRunStoreOf(store) }),
    destroy: async ({ store: handle }) => handle.close(),
  };
}

for (const contractCase of evalStoreContract) {
  area.scenario(`${contractCase.group}: ${contractCase.name}`, { timeoutMs: 30_000 }, async (t) => {
    await runEvalContractCase(contractCase, initializer(t.store!));
  });
}
area.run();
