/**
 * The checkpoint row as both SQL backends store it: the column list, how each column becomes an insert parameter, and a
 * stored row read back into a Checkpoint. Backends differ only in how JSON comes back (SQLite: text; Postgres: jsonb,
 * already decoded) and how timestamps are formatted, so those are their callers' part.
 */
import type { Checkpoint } from '../types.js';

/** Every checkpoint column, in insert order. */
export const CHECKPOINT_FIELDS = [
  'checkpoint_id',
  'execution_id',
  'chain_name',
  'node_id',
  'node_index',
  'status',
  'step_type',
  'run_status',
  'parent_checkpoint_id',
  'state_snapshot',
  'node_input',
  'node_output',
  'iteration',
  'iteration_counters',
  'interrupt_reason',
  'interrupt_context',
  'agent_path',
  'created_at',
] as const satisfies readonly (keyof Checkpoint)[];

/** The columns holding JSON (jsonb on Postgres, text on SQLite). */
export const JSON_FIELDS = new Set<string>(['state_snapshot', 'node_input', 'node_output', 'iteration_counters', 'interrupt_context']);

/** The checkpoint columns, comma-separated; `created_at` may be replaced by an expression (Postgres formats it). */
export function checkpointColumns(createdAt = 'created_at'): string {
  return CHECKPOINT_FIELDS.map((field) => (field === 'created_at' ? createdAt : field)).join(', ');
}

/**
 * How each checkpoint column becomes its insert parameter, in `CHECKPOINT_FIELDS` order, built once per backend
 * (it runs for every row): `json` serialises a JSON column's value (never called with null), `freeText` encodes the
 * interrupt reason (Postgres escapes what its text type refuses); identifiers and numbers go as given. The state and
 * the node output are left null: the caller sets them per row (`STATE_PARAM`, `OUTPUT_PARAM`: a delta, an output
 * stored as state keys).
 */
export function fieldParams(
  json: (value: unknown) => unknown,
  freeText: (value: string) => unknown = (value) => value,
): ReadonlyArray<(row: Checkpoint) => unknown> {
  return CHECKPOINT_FIELDS.map((field) => {
    if (field === 'state_snapshot' || field === 'node_output') return () => null;
    if (JSON_FIELDS.has(field)) return (row: Checkpoint) => (row[field] === null || row[field] === undefined ? null : json(row[field]));
    if (field === 'interrupt_reason')
      return (row: Checkpoint) => (typeof row.interrupt_reason === 'string' ? freeText(row.interrupt_reason) : row.interrupt_reason);
    return (row: Checkpoint) => row[field];
  });
}
export const STATE_PARAM = CHECKPOINT_FIELDS.indexOf('state_snapshot');
export const OUTPUT_PARAM = CHECKPOINT_FIELDS.indexOf('node_output');
export const EXECUTION_PARAM = CHECKPOINT_FIELDS.indexOf('execution_id');

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
  // Only the first row of each run carries its trace id; the others leave the key out (as rows written before it).
  if (typeof row.trace_id === 'string') checkpoint.trace_id = row.trace_id;
  return checkpoint as unknown as Checkpoint;
}
