/**
 * The annotation-store contract (agentkit/testing `annotationStoreContract`), unchanged, on both engines: each case on
 * a fresh SQLite file and a fresh Postgres schema (issue 39).
 */
import { annotationStoreContract, annotationStoreOf, runAnnotationContractCase, type AnnotationContractInitializer } from '../../src/annotations/index.js';
import { conformance } from '../harness/index.js';

const area = conformance('annotations: annotation-store contract');

function initializer(store: string): AnnotationContractInitializer {
  return {
    name: store.startsWith('postgres') ? 'postgres' : 'sqlite',
    create: async () => ({ store: annotationStoreOf(store), reopen: async () => annotationStoreOf(store) }),
    destroy: async ({ store: handle }) => handle.close(),
  };
}

for (const contractCase of annotationStoreContract) {
  area.scenario(`${contractCase.group}: ${contractCase.name}`, { timeoutMs: 30_000 }, async (t) => {
    await runAnnotationContractCase(contractCase, initializer(t.store!));
  });
}
area.run();
