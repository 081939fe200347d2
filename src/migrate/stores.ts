/**
 * Importing the two legacy SQLite stores: `traces.db` (table `spans`) and `checkpoints.db` (tables `checkpoints`,
 * and when present `pending_interrupts` and `idempotency_cache`). Older files lack later columns (`project_id`,
 * `synced`, `checkpoint_id`, `step_type`...): the target's defaults apply, `checkpoint_id` falls back to the legacy
 * `id`, and rows without `step_type` read as resumable, as pre-v20 rows always did.
 */
import type Database from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import { copyTable, type CopyCounts } from './copy-table.js';
import { LegacySourceError } from './errors.js';

/** Spans copied from a legacy traces.db, marked synced so they are never pushed. */
export function importSpans(source: Database.Database, target: Database.Database, shown: string): Record<string, number> {
  const spans = copyTable(source, target, {
    table: 'spans',
    forced: { synced: 1 },
    derived: { attributes: () => '{}', events: () => '[]', status: () => 'UNSET', name: () => 'unnamed' },
    required: ['span_id', 'trace_id', 'start_time'],
  });
  if (spans === null) throw new LegacySourceError(`${shown} has no spans table: not an agentkit traces store`);
  return { spans: spans.copied, spans_present: spans.present, spans_invalid: spans.invalid };
}

/** Checkpoints, pending interrupts and idempotency records copied from a legacy checkpoints.db, marked synced. */
export function importCheckpoints(source: Database.Database, target: Database.Database, shown: string): Record<string, number> {
  const now = new Date().toISOString();
  const checkpoints = copyTable(source, target, {
    table: 'checkpoints',
    forced: { synced: 1 },
    derived: {
      checkpoint_id: (row) => row.id ?? randomUUID(),
      id: (row) => row.checkpoint_id ?? randomUUID(),
      created_at: () => now,
      node_index: () => 0,
      status: () => 'completed',
      state_snapshot: () => '{}',
      iteration: () => 0,
      iteration_counters: () => '{}',
    },
    required: ['execution_id', 'node_id', 'chain_name'],
  });
  if (checkpoints === null) throw new LegacySourceError(`${shown} has no checkpoints table: not an agentkit checkpoint store`);
  const pending = copyTable(source, target, {
    table: 'pending_interrupts',
    derived: { context: () => '{}', created_at: () => now },
    required: ['execution_id', 'chain_name', 'node_id', 'reason'],
  });
  const idempotency = copyTable(source, target, {
    table: 'idempotency_cache',
    derived: { created_at: () => now },
    required: ['execution_id', 'function_key', 'result'],
  });
  return {
    checkpoints: checkpoints.copied,
    checkpoints_present: checkpoints.present,
    checkpoints_invalid: checkpoints.invalid,
    ...counted('pending_interrupts', pending),
    ...counted('idempotency_records', idempotency),
  };
}

function counted(name: string, counts: CopyCounts | null): Record<string, number> {
  if (counts === null) return {};
  return { [name]: counts.copied, [`${name}_present`]: counts.present };
}
