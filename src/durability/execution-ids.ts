/**
 * Execution ids by fragment, for the CLI's short ids (docs/adr/0060): the SQLite and Postgres checkpointers answer
 * which execution ids start or end with a given text; a checkpointer without the method answers none (only exact ids
 * then work on it).
 */
import type { Checkpointer } from './checkpointer.js';

/** A checkpointer that can look execution ids up by prefix or suffix. */
export interface IdMatchingCheckpointer {
  /** Execution ids starting or ending with `fragment`, sorted, at most `limit`. */
  matchExecutionIds(fragment: string, limit: number): Promise<string[]>;
}

/** The execution ids of `checkpointer` starting or ending with `fragment` (none when it cannot look them up). */
export async function matchExecutionIds(checkpointer: Checkpointer, fragment: string, limit: number): Promise<string[]> {
  const c = checkpointer as Partial<IdMatchingCheckpointer>;
  return typeof c.matchExecutionIds === 'function' ? c.matchExecutionIds(fragment, limit) : [];
}
