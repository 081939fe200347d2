/**
 * Full states for code that reads local.db's `checkpoints` table with its own SQL (export-trace): delta rows
 * (./delta.ts) resolved through their bases, so what such a reader sees is what the checkpointer returns.
 */
import type Database from 'better-sqlite3';
import { resolveStatesSync, type StoredRow } from './delta.js';

/** The recursive query for rows and every row they are built on (the ids as a JSON array). */
export const SQLITE_CHAINS_SQL = `WITH RECURSIVE chain(checkpoint_id, delta_base, state_snapshot) AS (
    SELECT checkpoint_id, delta_base, state_snapshot FROM checkpoints WHERE checkpoint_id IN (SELECT value FROM json_each(?))
    UNION ALL
    SELECT c.checkpoint_id, c.delta_base, c.state_snapshot FROM checkpoints c JOIN chain ON c.checkpoint_id = chain.delta_base)
  SELECT checkpoint_id, delta_base, state_snapshot FROM chain`;

/**
 * Replace each selected row's `state_snapshot` text by its full state's JSON text (rows selected with `*` or with
 * `delta_base`; rows of a store older than delta checkpoints are left as they are).
 */
export function withFullStates<R extends { checkpoint_id: string; state_snapshot: string; delta_base?: string | null }>(db: Database.Database, rows: R[]): R[] {
  if (!rows.some((row) => row.delta_base != null)) return rows;
  const stored: StoredRow[] = rows.map((row) => ({ checkpoint_id: row.checkpoint_id, delta_base: row.delta_base ?? null, state_snapshot: JSON.parse(row.state_snapshot) as unknown }));
  const chains = db.prepare(SQLITE_CHAINS_SQL);
  const states = resolveStatesSync(stored, (ids) =>
    (chains.all(JSON.stringify(ids)) as Array<{ checkpoint_id: string; delta_base: string | null; state_snapshot: string }>).map((row) => ({
      ...row,
      state_snapshot: JSON.parse(row.state_snapshot) as unknown,
    })),
  );
  return rows.map((row) => (row.delta_base == null ? row : { ...row, state_snapshot: JSON.stringify(states.get(row.checkpoint_id)), delta_base: null }));
}
