/**
 * Reading traces back from a local store: listings in a time window, one whole trace, a text search, and the
 * self-contained export document. Reads pending in-process writes first, so a trace is visible as soon as its run
 * returns. A store file that does not exist reads as empty (it is not created).
 */
import type Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { localDbPath, type Where } from '../config/paths.js';
import { ConfigError, NotFoundError } from '../errors.js';
import { openLocalStore } from '../store/open.js';
import type { Span, SpanStatus, Trace, TraceSummary } from '../types.js';
import { flushPendingSpans } from './pending-flush.js';
import { spanFromRow, type SpanRow } from './span-row.js';
import { resolveMessageDeltas } from './message-deltas.js';
import { durationMs, hoursAgo } from './time.js';

export interface TraceStoreOptions extends Where {
  /** The store file (default: `AGENTKIT_LOCAL_DB` in `env`, else `./.agentkit/local.db` under `cwd`). */
  dbPath?: string;
}

/** Read access to the traces of one local store. */
export class TraceStore {
  /** The store file read. */
  readonly dbPath: string;

  constructor(options: TraceStoreOptions = {}) {
    this.dbPath = options.dbPath ?? localDbPath(options);
  }

  /**
   * Traces started in the last `lastHours` hours (default 24), newest first, every one of them (no row cap).
   * Throws ConfigError for a window that is not a positive number.
   */
  async listTraces(options: { lastHours?: number } = {}): Promise<TraceSummary[]> {
    const lastHours = options.lastHours ?? 24;
    if (!(typeof lastHours === 'number' && Number.isFinite(lastHours) && lastHours > 0)) {
      throw new ConfigError(`lastHours must be a positive number of hours, got ${String(lastHours)}`);
    }
    return this.read((db) => summaries(db, 'HAVING min(start_time) >= @cutoff', { cutoff: hoursAgo(lastHours) }), []);
  }

  /** One trace with every span ordered by start time. Throws NotFoundError (`trace_not_found`) for an unknown id. */
  async getTrace(traceId: string): Promise<Trace> {
    const spans = await this.spans(traceId);
    const summary = summarise(traceId, spans);
    return {
      trace_id: traceId,
      name: summary.name,
      status: summary.status,
      start_time: summary.start_time,
      end_time: summary.end_time,
      metadata: { span_count: spans.length, duration_ms: summary.duration_ms },
      spans,
    };
  }

  /** Traces having a span whose name or attributes contain `text` (case-insensitive), newest first. */
  async search(text: string): Promise<TraceSummary[]> {
    const pattern = `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    return this.read(
      (db) =>
        summaries(db, '', {}, `WHERE trace_id IN (SELECT trace_id FROM spans WHERE name LIKE @pattern ESCAPE '\\' OR attributes LIKE @pattern ESCAPE '\\')`, {
          pattern,
        }),
      [],
    );
  }

  /** The spans of one trace in start order, model spans' messages whole (message-deltas.ts). Throws NotFoundError for an unknown id. */
  async spans(traceId: string): Promise<Span[]> {
    const rows = await this.read((db) => db.prepare('SELECT * FROM spans WHERE trace_id = ? ORDER BY start_time, rowid').all(traceId) as SpanRow[], []);
    if (rows.length === 0) throw new NotFoundError('trace_not_found', `trace '${traceId}' not found in ${this.dbPath}`);
    const spans = inStartOrder(rows.map(spanFromRow));
    resolveMessageDeltas(spans);
    return spans;
  }

  /** Run `fn` on a read-only connection, after flushing this process's pending spans; `empty` when no store exists. */
  async read<T>(fn: (db: Database.Database) => T, empty: T): Promise<T> {
    flushPendingSpans();
    if (!existsSync(this.dbPath)) return empty;
    const db = openLocalStore(this.dbPath, { readonly: true });
    try {
      return fn(db);
    } finally {
      db.close();
    }
  }
}

/**
 * Spans by start time. Spans that start at the same recorded instant (other instrumentation may record milliseconds
 * only) keep their stored order, except that a span never comes before its own ancestor.
 */
export function inStartOrder(spans: Span[]): Span[] {
  // Rows read back `ORDER BY start_time` with no two at the same instant need nothing more (the common case).
  let strictlyAscending = true;
  for (let i = 1; i < spans.length && strictlyAscending; i++) strictlyAscending = spans[i - 1]!.start_time < spans[i]!.start_time;
  if (strictlyAscending) return spans;
  const parents = new Map(spans.map((s) => [s.span_id, s.parent_span_id]));
  const sorted = spans
    .map((span, index) => ({ span, index }))
    .sort((a, b) => (a.span.start_time < b.span.start_time ? -1 : a.span.start_time > b.span.start_time ? 1 : a.index - b.index));
  const out: Span[] = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j < sorted.length && sorted[j]!.span.start_time === sorted[i]!.span.start_time) j++;
    out.push(
      ...ancestorsFirst(
        sorted.slice(i, j).map((e) => e.span),
        parents,
      ),
    );
    i = j;
  }
  return out;
}

/** `group` in its order, each span moved after any of its ancestors that are in the group. */
function ancestorsFirst(group: Span[], parents: Map<string, string | null>): Span[] {
  if (group.length === 1) return group;
  const inGroup = new Set(group.map((s) => s.span_id));
  const placed = new Set<string>();
  const out: Span[] = [];
  const ancestorsInGroup = (span: Span) => {
    const found: string[] = [];
    for (let p = span.parent_span_id, hops = 0; p !== null && hops < parents.size; p = parents.get(p) ?? null, hops++) if (inGroup.has(p)) found.push(p);
    return found;
  };
  while (out.length < group.length) {
    const next = group.find((span) => !placed.has(span.span_id) && ancestorsInGroup(span).every((a) => placed.has(a)));
    // Parent links that loop (a corrupt store) leave nothing placeable: keep the rest as stored.
    if (!next) return [...out, ...group.filter((span) => !placed.has(span.span_id))];
    placed.add(next.span_id);
    out.push(next);
  }
  return out;
}

interface SummaryRow {
  trace_id: string;
  span_count: number;
  start_time: string;
  end_time: string | null;
  any_error: number;
}

function summaries(
  db: Database.Database,
  having: string,
  havingParams: Record<string, unknown>,
  where = '',
  whereParams: Record<string, unknown> = {},
): TraceSummary[] {
  const rows = db
    .prepare(
      `SELECT trace_id, count(*) AS span_count, min(start_time) AS start_time,
              CASE WHEN count(end_time) = count(*) THEN max(end_time) END AS end_time,
              max(status = 'ERROR') AS any_error
       FROM spans ${where} GROUP BY trace_id ${having} ORDER BY min(start_time) DESC`,
    )
    .all({ ...havingParams, ...whereParams }) as SummaryRow[];
  if (rows.length === 0) return [];
  const roots = rootsOf(
    db,
    rows.map((r) => r.trace_id),
  );
  return rows.map((row) => {
    const root = roots.get(row.trace_id);
    return {
      trace_id: row.trace_id,
      name: root?.name ?? '',
      status: row.any_error ? 'ERROR' : (root?.status ?? 'UNSET'),
      span_count: row.span_count,
      start_time: row.start_time,
      end_time: row.end_time,
      duration_ms: durationMs(row.start_time, row.end_time),
    };
  });
}

/**
 * The root span (no parent inside its trace; the earliest if several) of each trace. A few traces are looked up one
 * by one through the trace index; many (a listing) in one pass over the parentless spans, which is about 20 times
 * cheaper for 10,000 traces than 10,000 lookups.
 */
function rootsOf(db: Database.Database, traceIds: string[]): Map<string, { name: string; status: SpanStatus }> {
  const roots = new Map<string, { name: string; status: SpanStatus }>();
  if (traceIds.length > 64) {
    const wanted = new Set(traceIds);
    const rows = db
      .prepare(
        // NOT INDEXED: a scan of the table beats walking the trace index for every span when all traces are wanted.
        `SELECT s.trace_id, s.name, s.status FROM spans s NOT INDEXED
         LEFT JOIN spans p ON p.span_id = s.parent_span_id AND p.trace_id = s.trace_id
         WHERE p.span_id IS NULL
         ORDER BY s.trace_id, s.start_time, s.rowid`,
      )
      .all() as Array<{ trace_id: string; name: string; status: SpanStatus }>;
    for (const row of rows) {
      if (wanted.has(row.trace_id) && !roots.has(row.trace_id)) roots.set(row.trace_id, { name: row.name, status: row.status });
    }
    return roots;
  }
  const query = db.prepare(
    `SELECT s.trace_id, s.name, s.status FROM spans s
     WHERE s.trace_id = ? AND (s.parent_span_id IS NULL OR NOT EXISTS (SELECT 1 FROM spans p WHERE p.trace_id = s.trace_id AND p.span_id = s.parent_span_id))
     ORDER BY s.start_time, s.rowid LIMIT 1`,
  );
  for (const id of traceIds) {
    const root = query.get(id) as { trace_id: string; name: string; status: SpanStatus } | undefined;
    if (root) roots.set(id, { name: root.name, status: root.status });
  }
  return roots;
}

/** The summary of a trace from its spans (which must not be empty). */
export function summarise(traceId: string, spans: Span[]): TraceSummary {
  const ids = new Set(spans.map((s) => s.span_id));
  const root = spans.find((s) => s.parent_span_id === null || !ids.has(s.parent_span_id)) ?? spans[0]!;
  const start = spans.reduce((min, s) => (s.start_time < min ? s.start_time : min), spans[0]!.start_time);
  const end = spans.some((s) => s.end_time === null) ? null : spans.reduce((max, s) => (s.end_time! > max ? s.end_time! : max), spans[0]!.end_time!);
  return {
    trace_id: traceId,
    name: root.name,
    status: spans.some((s) => s.status === 'ERROR') ? 'ERROR' : root.status,
    span_count: spans.length,
    start_time: start,
    end_time: end,
    duration_ms: durationMs(start, end),
  };
}
