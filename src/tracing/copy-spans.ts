/**
 * Copying a SQLite store's spans into a Postgres store (`agentkit store copy`, issue 38). The traces module owns both
 * `spans` tables, so both sides of the copy are here. Rows move unchanged (the two engines hold the same row format,
 * message deltas included), in pages of `batch` by rowid, each page one `INSERT ... ON CONFLICT DO NOTHING`: a copy
 * run again, or resumed after a stop, adds only what is missing. Copied rows name no writing process (`process_id`
 * NULL): no process of the fleet wrote them.
 *
 * The redaction key (the HMAC key of the hashes stored beside masked values, docs/adr/0010) decides whether a replay
 * of a copied trace still matches masked arguments. A target that holds no spans yet takes the source's key; one that
 * already has spans keeps its own, and the result says the keys differ.
 */
import { openLocalStore } from '../store/open.js';
import type { Store } from '../store/store-handle.js';
import { insertSpanRows } from './pg-span-sink.js';
import { migrateTraceSchema } from './pg-schema.js';
import { REDACTION_KEY_NAME } from './redaction-hash.js';
import type { SpanRow } from './span-record.js';

export interface SpanCopyResult {
  /** Span rows read from the source. */
  read: number;
  /** Span rows the target did not hold yet. */
  written: number;
  /** Distinct traces read. */
  traces: number;
  /** The redaction key: `adopted` (the target took the source's), `same`, `differs`, or `none` (the source has none). */
  redaction_key: 'adopted' | 'same' | 'differs' | 'none';
}

/** Copy every span of the SQLite store `from` into `to` (a Postgres store handle); see the module comment. */
export async function copySpans(from: string, to: Store, options: { batch?: number; onProgress?: (read: number) => void } = {}): Promise<SpanCopyResult> {
  const batch = options.batch ?? 1000;
  const schema = to.schema!;
  const pool = to.pool();
  await migrateTraceSchema(pool, schema);
  const db = openLocalStore(from);
  try {
    const redaction_key = await adoptKey(db.prepare('SELECT key FROM trace_keys WHERE name = ?').pluck().get(REDACTION_KEY_NAME) as Buffer | undefined, to);
    const page = db.prepare(`SELECT rowid, span_id, trace_id, parent_span_id, name, start_time, end_time, status, attributes, events, caller_trace_id
      FROM spans WHERE rowid > ? ORDER BY rowid LIMIT ?`);
    const traces = new Set<string>();
    let after = 0;
    let read = 0;
    let written = 0;
    for (;;) {
      const rows = page.all(after, batch) as Array<SpanRow & { rowid: number }>;
      if (rows.length === 0) break;
      for (const row of rows) traces.add(row.trace_id);
      written += await insertSpanRows(pool, schema, { project: '', processId: null, maxAttributesChars: Number.MAX_SAFE_INTEGER }, rows);
      read += rows.length;
      after = rows.at(-1)!.rowid;
      options.onProgress?.(read);
    }
    return { read, written, traces: traces.size, redaction_key };
  } finally {
    db.close();
  }
}

/** Give the target the source's redaction key when the target holds no spans yet (see the module comment). */
async function adoptKey(key: Buffer | undefined, to: Store): Promise<SpanCopyResult['redaction_key']> {
  if (!key) return 'none';
  const s = `"${to.schema}"`;
  const result = await to.pool().query<{ outcome: string }>(
    `WITH current AS (SELECT key FROM ${s}.trace_keys WHERE project = '' AND name = $1),
          adopted AS (UPDATE ${s}.trace_keys SET key = $2 WHERE project = '' AND name = $1 AND key <> $2
                        AND NOT EXISTS (SELECT 1 FROM ${s}.spans WHERE project = '') RETURNING 1)
     SELECT CASE WHEN EXISTS (SELECT 1 FROM adopted) THEN 'adopted'
                 WHEN (SELECT key FROM current) = $2 THEN 'same' ELSE 'differs' END AS outcome`,
    [REDACTION_KEY_NAME, key],
  );
  return result.rows[0]!.outcome as SpanCopyResult['redaction_key'];
}
