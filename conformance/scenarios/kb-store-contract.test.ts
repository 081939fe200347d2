/**
 * The knowledge-base store contract (agentkit/testing `kbStoreContract`), unchanged, on both engines: each case on
 * fresh files beside a fresh SQLite store and on a fresh Postgres schema (issue 39).
 */
import { kbCatalogOf } from '../../src/kb/index.js';
import { kbStoreContract, runKbContractCase, type KbContractInitializer } from '../../src/testing/index.js';
import { conformance } from '../harness/index.js';

const area = conformance('knowledge bases: kb-store contract');

function initializer(store: string): KbContractInitializer {
  return {
    name: store.startsWith('postgres') ? 'postgres' : 'sqlite',
    create: async () => ({ catalog: kbCatalogOf({ dbPath: store }), reopen: async () => kbCatalogOf({ dbPath: store }) }),
    destroy: async ({ catalog }) => catalog.close(),
  };
}

for (const contractCase of kbStoreContract) {
  area.scenario(`${contractCase.group}: ${contractCase.name}`, { timeoutMs: 30_000 }, async (t) => {
    await runKbContractCase(contractCase, initializer(t.store!));
  });
}
area.run();
