/** A `ui_forks` row as both engines read it (JSON columns as text, times as agentkit's ISO text), and its conversion. */
import type { StoredFork } from './types.js';

export interface ForkRow {
  fork_id: string;
  trace_id: string;
  step: number;
  modifications: string;
  rerun: string | null;
  created_at: string;
  updated_at: string;
}

/** The stored fork a row holds. */
export function fromRow(row: ForkRow): StoredFork {
  return {
    fork_id: row.fork_id,
    trace_id: row.trace_id,
    step: row.step,
    modifications: JSON.parse(row.modifications) as StoredFork['modifications'],
    rerun: row.rerun === null ? null : (JSON.parse(row.rerun) as StoredFork['rerun']),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}
