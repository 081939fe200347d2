/**
 * The checkpointer contract (agentkit/testing `checkpointerContract`), unchanged, on every backend: each case on a
 * fresh SQLite file and a fresh Postgres schema.
 */
import { checkpointerContract, runContractCase } from '../../src/durability/contract/index.js';
import { conformance, contractInitializer } from '../harness/index.js';

const area = conformance('durability: checkpointer contract');
for (const contractCase of checkpointerContract) {
  area.scenario(`${contractCase.group}: ${contractCase.name}`, {}, async (t) => {
    const outcome = await runContractCase(contractCase, contractInitializer(t.backend));
    if (outcome !== 'passed') throw new Error(`both built-in backends implement '${contractCase.requires}', so the case must run`);
  });
}
area.run();
