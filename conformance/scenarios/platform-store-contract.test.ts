/**
 * The Platform store contract (agentkit/testing `platformStoreContract`), unchanged, on both engines: each case on a
 * fresh SQLite file and a fresh Postgres schema (issue 42).
 */
import { platformStoreContract, runPlatformContractCase, type PlatformContractInitializer } from '../../src/platform/server/contract/index.js';
import { openPlatformStore } from '../../src/platform/server/open-platform-store.js';
import { conformance } from '../harness/index.js';

const area = conformance('platform: Platform store contract');

function initializer(store: string): PlatformContractInitializer {
  const open = () => openPlatformStore(store);
  return {
    name: store.startsWith('postgres') ? 'postgres' : 'sqlite',
    create: async () => ({ store: open(), reopen: async () => open() }),
    destroy: async ({ store: handle }) => handle.close(),
  };
}

for (const contractCase of platformStoreContract) {
  area.scenario(`${contractCase.group}: ${contractCase.name}`, { timeoutMs: 30_000 }, async (t) => {
    await runPlatformContractCase(contractCase, initializer(t.store!));
  });
}
area.run();
