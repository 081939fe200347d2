/**
 * For code that reads local.db's `checkpoints` table with its own SQL (the checkpointer, export-trace): how to find
 * one execution's rows, and full states, delta rows (./delta.ts) resolved through their bases, so what such a reader
 * sees is what the checkpointer returns.
 */
import type Database from 'better-sqlite3';
import { outputFromState, resolveStatesSync, type StoredRow } from './delta.js';

/**
 * The condition selecting one execution's rows of `checkpoints` (its one parameter: the execution id): through the
 * execution's integer key and the index on it (local.db v28, ADR 0029), not by scanning for the random id.
 */
export const ROWS_OF_EXECUTION = 'exec_key = (SELECT exec_key FROM executions WHERE execution_id = ?)';

/**
 * `ROWS_OF_EXECUTION` for `db`; a store a read-only connection opened before it was migrated to v28 has no execution
 * keys, and its rows are found by execution id.
 */
export function rowsOfExecution(db: Database.Database): string {
  const keyed = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'executions'").get() !== undefined;
  return keyed ? ROWS_OF_EXECUTION : 'execution_id = ?';
}

/** The recursive query for rows and every row they are built on (the ids as a JSON array). */
export const SQLITE_CHAINS_SQL = `WITH RECURSIVE chain(checkpoint_id, delta_base, state_snapshot) AS (
    SELECT checkpoint_id, delta_base, state_snapshot FROM checkpoints WHERE checkpoint_id IN (SELECT value FROM json_each(?))
    UNION ALL
    SELECT c.checkpoint_id, c.delta_base, c.state_snapshot FROM checkpoints c JOIN chain ON c.checkpoint_id = chain.delta_base)
  SELECT checkpoint_id, delta_base, state_snapshot FROM chain`;

/**
 * Replace each selected row's `state_snapshot` text by its full state's JSON text, and its `node_output` by the
 * output's JSON text when it was stored as state keys (rows selected with `*`; rows of a store older than delta
 * checkpoints are left as they are).
 */
export function withFullStates<
  R extends { checkpoint_id: string; state_snapshot: string; node_output?: string | null; delta_base?: string | null; output_keys?: string | null },
>(db: Database.Database, rows: R[]): R[] {
  if (!rows.some((row) => row.delta_base != null || row.output_keys != null)) return rows;
  const stored: StoredRow[] = rows.map((row) => ({
    checkpoint_id: row.checkpoint_id,
    delta_base: row.delta_base ?? null,
    state_snapshot: JSON.parse(row.state_snapshot) as unknown,
  }));
  const chains = db.prepare(SQLITE_CHAINS_SQL);
  const states = resolveStatesSync(stored, (ids) =>
    (chains.all(JSON.stringify(ids)) as Array<{ checkpoint_id: string; delta_base: string | null; state_snapshot: string }>).map((row) => ({
      ...row,
      state_snapshot: JSON.parse(row.state_snapshot) as unknown,
    })),
  );
  return rows.map((row) => {
    if (row.delta_base == null && row.output_keys == null) return row;
    const state = states.get(row.checkpoint_id)!;
    const output = row.output_keys == null ? row.node_output : JSON.stringify(outputFromState(state, row.output_keys, row.checkpoint_id));
    return { ...row, state_snapshot: JSON.stringify(state), node_output: output, delta_base: null, output_keys: null };
  });
}
