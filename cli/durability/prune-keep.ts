/**
 * What `traces prune` must leave (issue 38): the traces of executions that are not over. A paused execution (a
 * pending interrupt) is resumed and replayed from its trace; one holding a lease (running, or its holder died before
 * it ended: recovery takes it over) is still writing. Their trace ids are read from their checkpoint rows (ADR 0015).
 */
import { executionTraceIds } from '../../src/durability/run-end.js';
import { supportsRecovery } from '../../src/durability/recovery-store.js';
import type { AgentkitContext } from '../context.js';
import { readExistingStore } from './store.js';

const ALL = 1_000_000;

/** The trace ids of the paused and unfinished executions in the store `db` names (or the configured one). */
export async function unfinishedExecutionTraces(db: string | undefined, context: AgentkitContext): Promise<Set<string>> {
  return readExistingStore(
    { dbPath: db },
    context,
    async (checkpointer) => {
      const executions = new Set<string>();
      for (const pending of await checkpointer.listPendingInterrupts({ limit: ALL })) executions.add(pending.execution_id);
      if (supportsRecovery(checkpointer)) for (const lease of await checkpointer.activeLeases({ limit: ALL })) executions.add(lease.execution_id);
      const keep = new Set<string>();
      for (const id of executions) for (const traceId of executionTraceIds(await checkpointer.list(id, { limit: ALL }))) keep.add(traceId);
      return keep;
    },
    new Set<string>(),
  );
}
