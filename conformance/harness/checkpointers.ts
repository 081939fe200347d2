/**
 * Checkpointers for a scenario's backend: a fresh handle on the variant's own SQLite file or Postgres schema, and the
 * initializer the checkpointer contract suite runs with.
 */
import { PostgresCheckpointer } from '../../src/durability/postgres-checkpointer.js';
import { SQLiteCheckpointer } from '../../src/durability/sqlite-checkpointer.js';
import type { Checkpointer } from '../../src/durability/checkpointer.js';
import type { CheckpointerContractInitializer } from '../../src/durability/contract/index.js';
import type { Backend } from './backends.js';

/** A new, independent checkpointer on the backend's store (its own connection or pool). The caller closes it. */
export function checkpointerFor(backend: Backend): SQLiteCheckpointer | PostgresCheckpointer {
  if (backend.kind === 'sqlite') return new SQLiteCheckpointer(backend.dbPath);
  if (backend.kind === 'postgres') return new PostgresCheckpointer(backend.url, { schema: backend.schema });
  throw new Error('a checkpointer needs a storage backend (sqlite or postgres), not none');
}

/** Plain-data description of the backend, for child processes and generated runner files. */
export function backendConfig(backend: Backend): Record<string, string> {
  if (backend.kind === 'sqlite') return { kind: 'sqlite', dbPath: backend.dbPath };
  if (backend.kind === 'postgres') return { kind: 'postgres', url: backend.url, schema: backend.schema };
  throw new Error('no storage backend');
}

/** The contract suite's initializer for one scenario variant: its store is the variant's (dropped by the harness). */
export function contractInitializer(backend: Backend): CheckpointerContractInitializer {
  return {
    name: backend.kind,
    create: async () => ({ checkpointer: checkpointerFor(backend), reopen: async (): Promise<Checkpointer> => checkpointerFor(backend) }),
    destroy: async (store) => store.checkpointer.close(),
  };
}
