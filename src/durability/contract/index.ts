/**
 * The checkpointer contract suite: every case a conformant backend passes, SQLite and Postgres included (they run it
 * unchanged in agentkit's own conformance suite). Register the cases with any test runner:
 *
 *   import { checkpointerContract, runContractCase } from 'agentkit/testing';
 *   const initializer = { name: 'mine', create: async () => ({ checkpointer: new MyCheckpointer(freshDb()), reopen }),
 *                         destroy: async (store) => { await store.checkpointer.close(); dropDb(); } };
 *   for (const c of checkpointerContract) test(`${c.group}: ${c.name}`, () => runContractCase(c, initializer));
 */
import { supportsQuarantine, supportsReplication } from '../checkpointer.js';
import { supportsRecovery } from '../recovery-store.js';
import { claimCases, claimRecordCases } from './claim.js';
import { deleteExecutionCases } from './delete-execution.js';
import { handoverCases } from './handover.js';
import { idempotencyCases } from './idempotency.js';
import { leaseCases } from './lease.js';
import { listCases } from './list.js';
import { pendingCases } from './pending.js';
import { pruneCases } from './prune.js';
import { putCases } from './put.js';
import { replicationCases } from './replication.js';
import { setupCases } from './setup.js';
import type { CheckpointerContractInitializer, ContractCase } from './types.js';

export type { CheckpointerContractInitializer, ContractCase, ContractStore } from './types.js';

/** Every case, grouped by method. */
export const checkpointerContract: readonly ContractCase[] = [
  ...setupCases,
  ...putCases,
  ...listCases,
  ...pendingCases,
  ...claimCases,
  ...claimRecordCases,
  ...leaseCases,
  ...handoverCases,
  ...deleteExecutionCases,
  ...idempotencyCases,
  ...pruneCases,
  ...replicationCases,
];

/**
 * Run one case against a fresh store from `initializer`, destroying the store afterwards. Resolves to `'skipped'`
 * when the case needs an optional protocol the backend does not implement, else `'passed'`; rejects on failure.
 */
export async function runContractCase(contractCase: ContractCase, initializer: CheckpointerContractInitializer): Promise<'passed' | 'skipped'> {
  const store = await initializer.create();
  try {
    const supported =
      contractCase.requires === undefined ||
      (contractCase.requires === 'replication'
        ? supportsReplication(store.checkpointer)
        : contractCase.requires === 'recovery'
          ? supportsRecovery(store.checkpointer)
          : supportsQuarantine(store.checkpointer));
    if (!supported) return 'skipped';
    await contractCase.run(store);
    return 'passed';
  } finally {
    await initializer.destroy(store);
  }
}
