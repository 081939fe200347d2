/**
 * Row counts of the table families of a local store that a Postgres store does not hold yet (issue 39 brings them;
 * prompts came first, ADR 0062, then eval runs, ADR 0064):
 * what `agentkit store copy` reports as left in the file. The store module owns local.db's schema ladder, so the
 * table names live here.
 */
import type Database from 'better-sqlite3';

/** Family name -> its tables in local.db (the first one counted: one row per item of the family). */
export const FILE_ONLY_FAMILIES: Readonly<Record<string, string>> = {
  'guardrail events': 'guardrail_events',
  attachments: 'attachments',
};

/** Families of `FILE_ONLY_FAMILIES` with at least one row in `db`, with their counts. */
export function fileOnlyRows(db: Database.Database): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const [family, table] of Object.entries(FILE_ONLY_FAMILIES)) {
    const n = db.prepare(`SELECT count(*) FROM ${table}`).pluck().get() as number;
    if (n > 0) counts[family] = n;
  }
  return counts;
}
