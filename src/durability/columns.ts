/**
 * The checkpoint row as both SQL backends store it: the column list, the JSON columns serialised for writing, and a
 * stored row read back into a Checkpoint. Backends differ only in how JSON comes back (SQLite: text; Postgres: jsonb,
 * already decoded) and how timestamps are formatted, so those are their callers' part.
 */
import type { Checkpoint } from '../types.js';

/** Every checkpoint column, in insert order. */
export const CHECKPOINT_FIELDS = [
  'checkpoint_id', 'execution_id', 'chain_name', 'node_id', 'node_index', 'status', 'step_type', 'run_status',
  'parent_checkpoint_id', 'state_snapshot', 'node_input', 'node_output', 'iteration', 'iteration_counters',
  'interrupt_reason', 'interrupt_context', 'agent_path', 'created_at',
] as const satisfies readonly (keyof Checkpoint)[];

/** The columns holding JSON (jsonb on Postgres, text on SQLite). */
export const JSON_FIELDS = new Set<string>(['state_snapshot', 'node_input', 'node_output', 'iteration_counters', 'interrupt_context']);

/** The checkpoint columns, comma-separated; `created_at` may be replaced by an expression (Postgres formats it). */
export function checkpointColumns(createdAt = 'created_at'): string {
  return CHECKPOINT_FIELDS.map((field) => (field === 'created_at' ? createdAt : field)).join(', ');
}

/**
 * `row` with its JSON columns serialised (null stays null), keyed by column. `stateText` is the stored form of
 * `state_snapshot` when the caller has it already (a delta row, ./delta.ts); the state is not serialised again.
 */
export function encodeCheckpoint(row: Checkpoint, stateText?: string): Record<(typeof CHECKPOINT_FIELDS)[number], unknown> {
  const encoded = {} as Record<(typeof CHECKPOINT_FIELDS)[number], unknown>;
  for (const field of CHECKPOINT_FIELDS) {
    const value = row[field];
    if (field === 'state_snapshot' && stateText !== undefined) encoded[field] = stateText;
    else encoded[field] = JSON_FIELDS.has(field) && value !== null ? JSON.stringify(value) : value;
  }
  return encoded;
}

/**
 * A stored row to a Checkpoint: only the checkpoint columns (extra selected columns are dropped), JSON columns
 * passed through `decode` unless null, absent `step_type`/`run_status` (rows older than their column) as null.
 */
export function decodeCheckpoint(row: Record<string, unknown>, decode: (stored: unknown) => unknown): Checkpoint {
  const checkpoint: Record<string, unknown> = {};
  for (const field of CHECKPOINT_FIELDS) {
    const value = row[field] ?? null;
    checkpoint[field] = JSON_FIELDS.has(field) && value !== null ? decode(value) : value;
  }
  return checkpoint as unknown as Checkpoint;
}
