/**
 * Reading traces from a Postgres store (issue 38): the same answers as the SQLite reads in trace-store.ts, from the
 * tables of pg-schema.ts. A schema without the trace tables reads as empty and is not created (a read-only command
 * never provisions a schema named by a typo). Prunes delete in batches of whole traces, each batch its own short
 * statement, so no lock is held for long.
 */
import type pg from 'pg';
import { AmbiguousTraceError } from '../errors.js';
import { decodePgString, encodePgString, pgIsoText } from '../store/pg-text.js';
import { asStorageError } from '../store/storage-errors.js';
import type { Store } from '../store/store-handle.js';
import type { SpanStatus, TraceSummary } from '../types.js';
import { traceSchemaVersion } from './pg-schema.js';
import { idFragmentPatterns } from '../ids/short-id.js';
import type { SpanRow } from './span-record.js';
import { durationMs } from './time.js';
import { PAUSED_PATTERN, resumedPattern } from './run-status.js';

const ISO = pgIsoText;
const SPAN_COLUMNS = `trace_id, span_id, parent_span_id, name, ${ISO('start_time')} AS start_time, ${ISO('end_time')} AS end_time, status, attributes, events, caller_trace_id`;

/** An agent run's span as `eval curate` reads it. */
export interface AgentSpanRow {
  trace_id: string;
  span_id: string;
  name: string;
  status: string;
  start_time: string;
  attributes: string;
}

/** Which process wrote a trace: a `processes` row matched by instance id, service name, or host (exactly). */
export interface ProcessFilter {
  process?: string;
}

export class PgTraceReader {
  readonly #store: Store;
  readonly #s: string;
  readonly #project: string;

  constructor(store: Store, project = '') {
    this.#store = store;
    this.#s = `"${store.schema}"`;
    this.#project = project;
  }

  /** True when the schema holds the trace tables. */
  async exists(): Promise<boolean> {
    return (await traceSchemaVersion(this.#pool, this.#store.schema!)) > 0;
  }

  /**
   * The store's pool for queries; a refused or lost connection becomes a StorageUnavailableError naming the store
   * (redacted), so `traces list` says which store is down instead of `connect ECONNREFUSED`.
   */
  get #pool(): Pick<pg.Pool, 'query'> {
    const pool = this.#store.pool();
    const name = `the Postgres store ${this.#store.label}`;
    return {
      query: (async (...args: Parameters<pg.Pool['query']>) => {
        try {
          return await (pool.query as (...a: unknown[]) => Promise<unknown>)(...args);
        } catch (error) {
          throw asStorageError(error, name);
        }
      }) as pg.Pool['query'],
    };
  }

  /** Traces whose first span started at or after `cutoff` (ISO), newest first, optionally of one writing process. */
  async summariesSince(cutoff: string, filter: ProcessFilter = {}, limit?: number): Promise<TraceSummary[]> {
    if (!(await this.exists())) return [];
    const params: unknown[] = [this.#project, cutoff];
    let byProcess = '';
    if (filter.process !== undefined) {
      params.push(filter.process);
      byProcess = `AND process_id IN (SELECT process_id FROM ${this.#s}.processes WHERE project = $1 AND (instance_id = $3 OR service_name = $3 OR host = $3))`;
    }
    // Candidates are the records whose root (parentless row, written by the record's process) started in the window,
    // through spans_root_start_idx; the HAVING keeps the definition (the earliest span in the window).
    return this.#summaries(
      `SELECT DISTINCT trace_id FROM ${this.#s}.spans WHERE project = $1 AND parent_span_id IS NULL AND start_time >= $2 ${byProcess}`,
      params,
      'AND a.min_start >= $2',
      limit,
    );
  }

  /** Summaries of the given traces (oldest first). */
  async summariesOf(traceIds: readonly string[]): Promise<TraceSummary[]> {
    if (traceIds.length === 0) return [];
    return (await this.#summaries('SELECT DISTINCT unnest($2::text[]) AS trace_id', [this.#project, traceIds], '')).reverse();
  }

  /** Traces having a span whose name or attributes contain `text` (case-insensitive), newest first. */
  async search(text: string): Promise<TraceSummary[]> {
    if (!(await this.exists())) return [];
    const pattern = `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    return this.#summaries(
      `SELECT DISTINCT trace_id FROM ${this.#s}.spans WHERE project = $1 AND (name ILIKE $2 OR attributes ILIKE $2)`,
      [this.#project, pattern],
      '',
    );
  }

  /**
   * Summaries of the traces `candidates` selects (a query yielding `trace_id`), newest first; `filter` is a further
   * condition on the aggregate `a` (`a.min_start`). Each candidate's spans are aggregated through the primary key, one
   * probe a trace (LATERAL): the cost follows the traces listed, not the size of the table.
   */
  async #summaries(candidates: string, params: unknown[], filter: string, limit?: number): Promise<TraceSummary[]> {
    const cap = limit === undefined ? '' : ` LIMIT ${Math.max(0, Math.floor(limit))}`;
    const rows = await this.#pool.query<{ trace_id: string; span_count: number; start_time: string; end_time: string | null; any_error: boolean }>(
      `SELECT c.trace_id, a.span_count, ${ISO('a.min_start')} AS start_time, ${ISO('a.max_end')} AS end_time, a.any_error
       FROM (${candidates}) c
       CROSS JOIN LATERAL (
         SELECT count(*)::int AS span_count, min(s.start_time) AS min_start,
                CASE WHEN count(s.end_time) = count(*) THEN max(s.end_time) END AS max_end,
                bool_or(s.status = 'ERROR') AS any_error
         FROM ${this.#s}.spans s WHERE s.project = $1 AND s.trace_id = c.trace_id) a
       WHERE a.span_count > 0 ${filter}
       ORDER BY a.min_start DESC${cap}`,
      params,
    );
    if (rows.rows.length === 0) return [];
    const roots = await this.#roots(rows.rows.map((r) => r.trace_id));
    const waiting = await this.#paused(rows.rows.map((r) => r.trace_id));
    return rows.rows.map((row) => {
      const root = roots.get(row.trace_id);
      return {
        trace_id: row.trace_id,
        name: root?.name ?? '',
        status: row.any_error ? 'ERROR' : (root?.status ?? 'UNSET'),
        ...(waiting.has(row.trace_id) ? { run_status: 'paused' as const } : {}),
        span_count: row.span_count,
        start_time: row.start_time,
        end_time: row.end_time,
        duration_ms: durationMs(row.start_time, row.end_time),
      };
    });
  }

  /** Of `traceIds`, the runs still waiting for a person (see trace-store.ts `pausedIn`). */
  async #paused(traceIds: string[]): Promise<Set<string>> {
    const marked = await this.#pool.query<{ trace_id: string }>(
      `SELECT DISTINCT trace_id FROM ${this.#s}.spans WHERE project = $1 AND trace_id = ANY($2::text[]) AND parent_span_id IS NULL AND attributes LIKE $3`,
      [this.#project, traceIds, PAUSED_PATTERN],
    );
    const paused = new Set<string>();
    for (const { trace_id: id } of marked.rows) {
      const resumed = await this.#pool.query(`SELECT 1 FROM ${this.#s}.spans WHERE project = $1 AND parent_span_id IS NULL AND attributes LIKE $2 LIMIT 1`, [
        this.#project,
        resumedPattern(id),
      ]);
      if (resumed.rowCount === 0) paused.add(id);
    }
    return paused;
  }

  /** The root span (no parent inside its trace; the earliest if several) of each trace. */
  async #roots(traceIds: string[]): Promise<Map<string, { name: string; status: SpanStatus }>> {
    // Parentless rows first (every record's root is one, docs/adr/0009): one index probe a trace, no anti-join.
    const parentless = await this.#pool.query<{ trace_id: string; name: string; status: SpanStatus }>(
      `SELECT DISTINCT ON (trace_id) trace_id, name, status FROM ${this.#s}.spans
       WHERE project = $1 AND trace_id = ANY($2::text[]) AND parent_span_id IS NULL ORDER BY trace_id, start_time, seq`,
      [this.#project, traceIds],
    );
    const roots = new Map(parentless.rows.map((row) => [row.trace_id, { name: decodePgString(row.name), status: row.status }]));
    const rest = traceIds.filter((id) => !roots.has(id));
    if (rest.length === 0) return roots;
    const result = await this.#pool.query<{ trace_id: string; name: string; status: SpanStatus }>(
      `SELECT DISTINCT ON (s.trace_id) s.trace_id, s.name, s.status FROM ${this.#s}.spans s
       WHERE s.project = $1 AND s.trace_id = ANY($2::text[])
         AND (s.parent_span_id IS NULL OR NOT EXISTS (
           SELECT 1 FROM ${this.#s}.spans p WHERE p.project = s.project AND p.trace_id = s.trace_id AND p.span_id = s.parent_span_id))
       ORDER BY s.trace_id, s.start_time, s.seq`,
      [this.#project, rest],
    );
    for (const row of result.rows) roots.set(row.trace_id, { name: decodePgString(row.name), status: row.status });
    return roots;
  }

  /** The rows of one stored trace, in start order (then write order). */
  async spanRows(traceId: string): Promise<SpanRow[]> {
    if (!(await this.exists())) return [];
    const result = await this.#pool.query<SpanRow>(
      `SELECT ${SPAN_COLUMNS} FROM ${this.#s}.spans WHERE project = $1 AND trace_id = $2 ORDER BY start_time, seq`,
      [this.#project, traceId],
    );
    return result.rows.map(decodeRow);
  }

  /** The stored id `traceId` names (its own, else the one run recorded under that caller's trace), or null. */
  async resolve(traceId: string, label: string): Promise<string | null> {
    if (!(await this.exists())) return null;
    const own = await this.#pool.query(`SELECT 1 FROM ${this.#s}.spans WHERE project = $1 AND trace_id = $2 LIMIT 1`, [this.#project, traceId]);
    if ((own.rowCount ?? 0) > 0) return traceId;
    const runs = await this.callerRuns(traceId);
    if (runs.length <= 1) return runs[0]?.trace_id ?? null;
    const listed = runs.map((run) => `${run.trace_id} (${run.name}, ${run.start_time})`).join(', ');
    throw new AmbiguousTraceError(
      `trace id '${traceId}' is the caller's trace of ${runs.length} runs in ${label}: ${listed}; name one run by its own trace id`,
      runs.map((run) => run.trace_id),
    );
  }

  /** Stored trace ids starting or ending with `fragment`, at most `limit`, sorted (TraceStore.matchIds). */
  async matchIds(fragment: string, limit: number): Promise<string[]> {
    if (!(await this.exists())) return [];
    const { prefix, suffix } = idFragmentPatterns(fragment);
    const result = await this.#pool.query<{ trace_id: string }>(
      `SELECT trace_id FROM (
         SELECT DISTINCT trace_id FROM ${this.#s}.spans WHERE project = $1 AND trace_id LIKE $2
         UNION
         SELECT trace_id FROM ${this.#s}.spans WHERE project = $1 AND parent_span_id IS NULL AND trace_id LIKE $3
       ) AS matched ORDER BY trace_id LIMIT $4`,
      [this.#project, prefix, suffix, limit],
    );
    return result.rows.map((row) => row.trace_id);
  }

  /** Root rows of the runs recorded under a caller's span of `callerTraceId`, oldest first. */
  async callerRuns(callerTraceId: string): Promise<Array<{ trace_id: string; name: string; start_time: string }>> {
    if (!(await this.exists())) return [];
    const result = await this.#pool.query<{ trace_id: string; name: string; start_time: string }>(
      `SELECT trace_id, name, ${ISO('start_time')} AS start_time FROM ${this.#s}.spans WHERE project = $1 AND caller_trace_id = $2 ORDER BY start_time, seq`,
      [this.#project, callerTraceId],
    );
    return result.rows.map((row) => ({ ...row, name: decodePgString(row.name) }));
  }

  /**
   * The newest `limit` spans of agent runs (`agent.<name>`), oldest first: optionally of one agent, started at or after
   * `cutoff` (ISO), or only in traces having a span with status ERROR. What `eval curate` reads.
   */
  async agentSpans(options: { agent?: string; cutoff?: string; failedOnly?: boolean; traceIds?: readonly string[]; limit: number }): Promise<AgentSpanRow[]> {
    if (!(await this.exists())) return [];
    const params: unknown[] = [this.#project, options.limit];
    const where = ["s.name LIKE 'agent.%'"];
    if (options.agent !== undefined) where.push(`s.name = $${params.push(encodePgString(`agent.${options.agent}`))}`);
    if (options.cutoff !== undefined) where.push(`s.start_time >= $${params.push(options.cutoff)}`);
    if (options.failedOnly) where.push(`s.trace_id IN (SELECT trace_id FROM ${this.#s}.spans WHERE project = $1 AND status = 'ERROR')`);
    if (options.traceIds !== undefined) where.push(`s.trace_id = ANY($${params.push([...options.traceIds])}::text[])`);
    const result = await this.#pool.query<AgentSpanRow>(
      `SELECT s.trace_id, s.span_id, s.name, s.status, ${ISO('s.start_time')} AS start_time, s.attributes FROM ${this.#s}.spans s
       WHERE s.project = $1 AND ${where.join(' AND ')} ORDER BY s.start_time DESC, s.seq DESC LIMIT $2`,
      params,
    );
    return result.rows.reverse().map((row) => ({ ...row, name: decodePgString(row.name), attributes: decodePgString(row.attributes) }));
  }

  /** The names of a trace's spans with status ERROR, in start order. */
  async errorSpanNames(traceId: string): Promise<string[]> {
    const result = await this.#pool.query<{ name: string }>(
      `SELECT name FROM ${this.#s}.spans WHERE project = $1 AND trace_id = $2 AND status = 'ERROR' ORDER BY start_time, seq`,
      [this.#project, traceId],
    );
    return result.rows.map((row) => decodePgString(row.name));
  }

  /** Delete the spans of `traceIds`. */
  async deleteTraces(traceIds: readonly string[]): Promise<void> {
    if (traceIds.length === 0) return;
    await this.#pool.query(`DELETE FROM ${this.#s}.spans WHERE project = $1 AND trace_id = ANY($2::text[])`, [this.#project, traceIds]);
  }

  /**
   * Delete, `batch` traces per statement, every trace whose first span started before `cutoff` (ISO), optionally only
   * those written by one process. Returns the number of traces deleted.
   */
  async pruneBefore(cutoff: string, filter: ProcessFilter = {}, keep: ReadonlySet<string> = new Set(), batch = 500): Promise<number> {
    if (!(await this.exists())) return 0;
    let pruned = 0;
    const params: unknown[] = [this.#project, cutoff, batch, [...keep]];
    let byProcess = '';
    if (filter.process !== undefined) {
      params.push(filter.process);
      byProcess = `AND process_id IN (SELECT process_id FROM ${this.#s}.processes WHERE project = $1 AND (instance_id = $5 OR service_name = $5 OR host = $5))`;
    }
    for (;;) {
      // A trace is judged by its first span, as on SQLite: any span older than the cutoff makes the trace older too.
      // Candidates come from the start-time index, `batch` traces per statement.
      const result = await this.#pool.query<{ trace_id: string }>(
        `WITH doomed AS (
           SELECT DISTINCT trace_id FROM ${this.#s}.spans WHERE project = $1 AND start_time < $2 AND trace_id <> ALL($4::text[]) ${byProcess} LIMIT $3
         ), gone AS (
           DELETE FROM ${this.#s}.spans s USING doomed d WHERE s.project = $1 AND s.trace_id = d.trace_id RETURNING s.trace_id
         )
         SELECT DISTINCT trace_id FROM gone`,
        params,
      );
      pruned += result.rows.length;
      if (result.rows.length === 0) return pruned;
    }
  }

  /** The store's redaction hash key, if the trace tables exist. */
  async redactionKey(): Promise<Uint8Array | undefined> {
    if (!(await this.exists())) return undefined;
    const result = await this.#pool.query<{ key: Buffer }>(`SELECT key FROM ${this.#s}.trace_keys WHERE project = $1 AND name = $2`, [
      this.#project,
      'redaction_hmac',
    ]);
    return result.rows[0]?.key;
  }
}

function decodeRow(row: SpanRow): SpanRow {
  return {
    ...row,
    name: decodePgString(row.name),
    attributes: decodePgString(row.attributes),
    events: decodePgString(row.events),
  };
}
