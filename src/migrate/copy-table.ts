/**
 * Copying rows of one table from a legacy SQLite file into local.db: only the columns both sides have, extra values
 * forced (`synced = 1`: imported history is never pushed to a Platform), `INSERT OR IGNORE` so a row already present
 * (same primary key) is left as it is and a second run copies nothing twice.
 */
import type Database from 'better-sqlite3';

/** The column names of `table` in `db`, or null when it has no such table. */
export function columnsOf(db: Database.Database, table: string): string[] | null {
  const rows = db.prepare('SELECT name FROM pragma_table_info(?)').all(table) as Array<{ name: string }>;
  return rows.length === 0 ? null : rows.map((r) => r.name);
}

export interface CopySpec {
  table: string;
  /** Columns the target needs a value for, computed from the source row when the source lacks them. */
  derived?: Record<string, (row: Record<string, unknown>) => unknown>;
  /** Values forced on every copied row. */
  forced?: Record<string, unknown>;
  /** Source rows without a usable value here are counted as `invalid` and not copied. */
  required?: readonly string[];
}

export interface CopyCounts {
  /** Rows written. */
  copied: number;
  /** Rows already in the target (same key). */
  present: number;
  /** Rows missing a required value. */
  invalid: number;
}

/** Copy `spec.table` from `source` to `target` (call inside a target transaction). Null when the source lacks the table. */
export function copyTable(source: Database.Database, target: Database.Database, spec: CopySpec): CopyCounts | null {
  const sourceColumns = columnsOf(source, spec.table);
  if (sourceColumns === null) return null;
  const targetColumns = columnsOf(target, spec.table)!;
  const forced = spec.forced ?? {};
  const derived = spec.derived ?? {};
  const columns = targetColumns.filter((c) => c in forced || sourceColumns.includes(c) || c in derived);
  const insert = target.prepare(`INSERT OR IGNORE INTO ${spec.table} (${columns.map(quote).join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`);
  const counts: CopyCounts = { copied: 0, present: 0, invalid: 0 };
  for (const row of source.prepare(`SELECT * FROM ${quote(spec.table)}`).iterate() as IterableIterator<Record<string, unknown>>) {
    const values = columns.map((c) => {
      if (c in forced) return forced[c];
      const value = sourceColumns.includes(c) ? row[c] : undefined;
      if ((value === undefined || value === null) && c in derived) return derived[c]!(row);
      return value;
    });
    if (
      (spec.required ?? []).some((c) => {
        const v = values[columns.indexOf(c)];
        return v === undefined || v === null || v === '';
      })
    ) {
      counts.invalid++;
      continue;
    }
    if (insert.run(...values.map(sqlValue)).changes > 0) counts.copied++;
    else counts.present++;
  }
  return counts;
}

function quote(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** SQLite accepts numbers, strings, bigints, buffers and null; objects (a JSON column read as text stays text) as JSON. */
function sqlValue(value: unknown): unknown {
  if (value === undefined) return null;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (value !== null && typeof value === 'object' && !Buffer.isBuffer(value)) return JSON.stringify(value);
  return value;
}
