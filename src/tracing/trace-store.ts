/**
 * Reading traces back from a local store: listings in a time window, one whole trace, a text search, and the
 * self-contained export document. Reads pending in-process writes first, so a trace is visible as soon as its run
 * returns. A store file that does not exist reads as empty (it is not created).
 */
import type Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { localStore, type Where } from '../config/paths.js';
import { parseStoreValue, storeLabel, storeValue, type StoreRef } from '../config/store-value.js';
import { openStore, type Store } from '../store/store-handle.js';
import { PgTraceReader, type AgentSpanRow, type ProcessFilter } from './pg-trace-reader.js';
import { AmbiguousTraceError, ConfigError, NotFoundError } from '../errors.js';
import { CALLER_TRACE_VERSION, schemaVersion, TRACE_KEYS_VERSION } from '../store/migrations.js';
import { openLocalStore } from '../store/open.js';
import type { Span, SpanStatus, Trace, TraceSummary } from '../types.js';
import { flushPendingPg, flushPendingSpans } from './pending-flush.js';
import { annotationStoreOf } from '../annotations/index.js';
import { spanFromRow, type SpanRow } from './span-row.js';
import { resolveMessageDeltas } from './message-deltas.js';
import { keyedHash, REDACTION_KEY_NAME, type KeyedHash } from './redaction-hash.js';
import { durationMs, hoursAgo, pruneCutoff } from './time.js';
import { PAUSED_PATTERN, resumedPattern } from './run-status.js';
import { MAX_ID_CANDIDATES } from '../ids/short-id.js';

/** Traces a prune must leave, whatever their age (the CLI passes those of paused and running executions). */
export interface PruneKeep {
  keep?: ReadonlySet<string>;
}

export interface TraceStoreOptions extends Where {
  /** The store: a file path or a `postgres://...?schema=` URL (default: `AGENTKIT_LOCAL_DB` in `env`, else `./.agentkit/local.db` under `cwd`). */
  dbPath?: string;
  /** An opened store (`openStore`), instead of `dbPath`. */
  store?: Store;
}

/**
 * Access to the traces of one store, SQLite or Postgres (the same answers from either). A trace id given to it names
 * a run's record: its stored trace id, or the trace id of the caller the run was recorded under (docs/adr/0009),
 * which may name several runs.
 */
export class TraceStore {
  /**
   * The store as a trace destination names it: the file, or the Postgres URL with its schema (holds the password:
   * never print it; `label` is for messages). Reruns write their traces here.
   */
  readonly dbPath: string;
  /** How messages name the store: the file, or the URL with its password redacted. */
  readonly label: string;
  readonly #ref: StoreRef;
  #pg: { store: Store; reader: PgTraceReader } | undefined;
  readonly #given: Store | undefined;

  constructor(options: TraceStoreOptions = {}) {
    this.#given = options.store;
    this.#ref = options.store?.ref ?? (options.dbPath !== undefined ? parseStoreValue(options.dbPath, options.cwd ?? process.cwd()) : localStore(options));
    this.dbPath = this.#ref.engine === 'sqlite' ? this.#ref.path : storeValue(this.#ref);
    this.label = storeLabel(this.#ref);
  }

  /** Which engine the store is on. */
  get engine(): StoreRef['engine'] {
    return this.#ref.engine;
  }

  /** The Postgres reader (made on first use), or undefined for a SQLite store. */
  private pg(): PgTraceReader | undefined {
    if (this.#ref.engine !== 'postgres') return undefined;
    if (!this.#pg) {
      const store = this.#given ?? openStore(this.#ref, { min: 0, max: 4 });
      this.#pg = { store, reader: new PgTraceReader(store) };
    }
    return this.#pg.reader;
  }

  /** Give back the Postgres pool this store opened (nothing to do for SQLite, whose reads open and close). */
  async close(): Promise<void> {
    const opened = this.#pg;
    this.#pg = undefined;
    if (opened && opened.store !== this.#given) await opened.store.close();
  }

  /**
   * Traces started in the last `lastHours` hours (default 24), newest first, every one of them (no row cap) unless
   * `limit` caps them (the newest `limit`); with `process`, only traces with spans written by that process (Postgres
   * stores: its instance id, service name or host). Throws ConfigError for a window that is not a positive number.
   */
  async listTraces(options: { lastHours?: number; limit?: number } & ProcessFilter = {}): Promise<TraceSummary[]> {
    const lastHours = options.lastHours ?? 24;
    if (!(typeof lastHours === 'number' && Number.isFinite(lastHours) && lastHours > 0)) {
      throw new ConfigError(`lastHours must be a positive number of hours, got ${String(lastHours)}`);
    }
    const pg = this.pg();
    if (pg) {
      flushPendingSpans();
      await flushPendingPg();
      return pg.summariesSince(hoursAgo(lastHours), options, options.limit);
    }
    if (options.process !== undefined) throw new ConfigError('filtering traces by process needs a Postgres store (a SQLite store is written by one host)');
    // Candidates are the records whose root (parentless row) started in the window: the partial index of local.db v37
    // finds them without grouping every span; the HAVING keeps the definition (the earliest span in the window).
    const cutoff = hoursAgo(lastHours);
    return this.read(
      (db) =>
        summaries(
          db,
          'HAVING min(start_time) >= @cutoff',
          { cutoff },
          'WHERE trace_id IN (SELECT trace_id FROM spans WHERE parent_span_id IS NULL AND start_time >= @cutoff)',
          {},
          cutoff,
          options.limit,
        ),
      [],
    );
  }

  /**
   * Traces started in the last `lastHours` hours (default 24), newest first, every one of them (no row cap).
   * Throws ConfigError for a window that is not a positive number.
   */
  /**
   * One trace with every span ordered by start time; `trace_id` is its stored id (see `resolve`). Throws NotFoundError
   * (`trace_not_found`) for an unknown id, AmbiguousTraceError (`trace_ambiguous`) for a caller's trace of several runs.
   */
  async getTrace(traceId: string): Promise<Trace> {
    const spans = await this.spans(traceId);
    const id = spans[0]!.trace_id;
    const summary = summarise(id, spans);
    return {
      trace_id: id,
      name: summary.name,
      status: summary.status,
      start_time: summary.start_time,
      end_time: summary.end_time,
      metadata: { span_count: spans.length, duration_ms: summary.duration_ms },
      spans,
    };
  }

  /**
   * The stored trace id `traceId` names: itself when the store holds spans of that trace; otherwise the run recorded
   * under a caller's span of that trace id, when there is exactly one. A stored id always wins, so a caller that forged
   * a stored run's trace id never shadows that run. Throws NotFoundError when it names nothing, AmbiguousTraceError
   * (listing each run's stored id, root name and start time) when it names several runs.
   */
  async resolve(traceId: string): Promise<string> {
    const pg = this.pg();
    if (pg) await flushPendingPg();
    const id = pg ? await pg.resolve(traceId, this.label) : await this.read((db) => resolveIn(db, traceId, this.label), null);
    if (id === null) throw notFound(traceId, this.label);
    return id;
  }

  /**
   * Stored trace ids that start or end with `fragment` (the CLI's short ids, docs/adr/0060), at most `limit`, sorted.
   * A prefix is found through the trace id index; a suffix reads the root span of every run (one row per trace, no
   * span payloads), so its cost grows with the number of traces in the store.
   */
  async matchIds(fragment: string, limit = MAX_ID_CANDIDATES): Promise<string[]> {
    const pg = this.pg();
    if (pg) {
      await flushPendingPg();
      return pg.matchIds(fragment, limit);
    }
    return this.read((db) => matchIdsIn(db, fragment, limit), []);
  }

  /** The runs recorded under a caller's span of trace `callerTraceId`, oldest first (empty when none, or in a store older than v31). */
  async runsCalledBy(callerTraceId: string): Promise<TraceSummary[]> {
    const pg = this.pg();
    if (pg) {
      await flushPendingPg();
      return pg.summariesOf((await pg.callerRuns(callerTraceId)).map((run) => run.trace_id));
    }
    return this.read((db) => {
      const ids = callerRuns(db, callerTraceId).map((run) => run.trace_id);
      return ids.length === 0
        ? []
        : summaries(db, '', {}, `WHERE trace_id IN (${ids.map(() => '?').join(', ')})`, ids).sort((a, b) => (a.start_time < b.start_time ? -1 : 1));
    }, []);
  }

  /**
   * Delete one run's record: its spans, guardrail events, attachments and annotation. `traceId` resolves as in
   * `resolve` (NotFoundError, AmbiguousTraceError). Returns the stored id deleted.
   */
  async deleteTrace(traceId: string): Promise<string> {
    const pg = this.pg();
    if (pg) {
      const id = await this.resolve(traceId);
      await pg.deleteTraces([id]);
      return id;
    }
    const deleted = await this.write((db) => {
      const id = resolveIn(db, traceId, this.label);
      if (id !== null) deleteRecords(db, [id]);
      return id;
    }, null);
    if (deleted === null) throw notFound(traceId, this.label);
    return deleted;
  }

  /**
   * Delete every run's record (spans, guardrail events, attachments, annotations) whose run started before
   * `olderThan` (an age in milliseconds, or a Date). Each run is judged by its own start: two runs under one caller's
   * trace are pruned separately. Returns the number of runs deleted. Throws ConfigError for a bad `olderThan`.
   */
  async prune(olderThan: number | Date, filter: ProcessFilter & PruneKeep = {}): Promise<number> {
    const cutoff = pruneCutoff(olderThan);
    const pg = this.pg();
    if (!pg && filter.process !== undefined) throw new ConfigError('pruning by process needs a Postgres store (a SQLite store is written by one host)');
    // Traces a person marked (a favorite, a note: the annotations owner says which) stay, as do the ones the caller keeps.
    const keep = new Set([...(filter.keep ?? []), ...(await this.#marked())]);
    if (pg) {
      flushPendingSpans();
      await flushPendingPg();
      return pg.pruneBefore(cutoff, filter, keep);
    }
    // An eval case's trace stays too (the eval family is read here until it has an owner of its own).
    const ids = (
      await this.read(
        (db) =>
          db
            .prepare(`SELECT trace_id FROM spans WHERE trace_id NOT IN (${referencedByEvalCases(db)}) GROUP BY trace_id HAVING min(start_time) < ?`)
            .all(cutoff) as Array<{ trace_id: string }>,
        [],
      )
    )
      .map((row) => row.trace_id)
      .filter((id) => !keep.has(id));
    return this.deleteInBatches(ids);
  }

  /** The traces a person marked (favorite or noted), from the annotations owner of this store. */
  async #marked(): Promise<Set<string>> {
    const annotations = annotationStoreOf(this.#given ?? this.dbPath);
    try {
      return await annotations.marked();
    } finally {
      // A given store is the caller's to close: only a handle opened here is given back.
      if (!this.#given) await annotations.close();
    }
  }

  /**
   * Delete the records of `ids` a batch per write transaction, each kept short (the batch halves when one took over
   * PRUNE_BATCH_TARGET_MS, doubles when it was quick), with the event loop given back between them: another writer
   * of the file waits for at most one short batch, never for the whole prune.
   */
  private async deleteInBatches(ids: readonly string[]): Promise<number> {
    if (ids.length === 0 || this.#ref.engine !== 'sqlite' || !existsSync(this.dbPath)) return 0;
    const db = openLocalStore(this.dbPath);
    try {
      let size = 256;
      let done = 0;
      while (done < ids.length) {
        const slice = ids.slice(done, done + size);
        const started = performance.now();
        db.transaction(() => deleteRecords(db, slice)).immediate();
        const took = performance.now() - started;
        done += slice.length;
        if (took > PRUNE_BATCH_TARGET_MS && size > 1) size = Math.max(1, size >> 1);
        else if (took < PRUNE_BATCH_TARGET_MS / 4 && size < 8192) size *= 2;
        await new Promise((resolve) => setImmediate(resolve));
      }
      return done;
    } finally {
      db.close();
    }
  }

  /** Traces having a span whose name or attributes contain `text` (case-insensitive), newest first. */
  async search(text: string): Promise<TraceSummary[]> {
    const pg = this.pg();
    if (pg) {
      await flushPendingPg();
      return pg.search(text);
    }
    const pattern = `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    return this.read(
      (db) =>
        summaries(db, '', {}, `WHERE trace_id IN (SELECT trace_id FROM spans WHERE name LIKE @pattern ESCAPE '\\' OR attributes LIKE @pattern ESCAPE '\\')`, {
          pattern,
        }),
      [],
    );
  }

  /**
   * The spans of one trace in start order, model spans' messages whole (message-deltas.ts). `traceId` resolves as in
   * `resolve`: every span returned carries the stored id. Throws NotFoundError for an unknown id, AmbiguousTraceError.
   */
  async spans(traceId: string): Promise<Span[]> {
    const pg = this.pg();
    const rows = pg
      ? await this.pgSpanRows(pg, traceId)
      : await this.read((db) => {
          const found = spanRows(db, traceId);
          if (found.length > 0) return found;
          const id = resolveIn(db, traceId, this.label);
          return id === null ? [] : spanRows(db, id);
        }, []);
    if (rows.length === 0) throw notFound(traceId, this.label);
    const spans = inStartOrder(rows.map(spanFromRow));
    resolveMessageDeltas(spans);
    return spans;
  }

  /**
   * Postgres stores only (a SQLite store's curation reads its file, eval/curate.ts): the newest `limit` agent-run spans,
   * oldest first, as `PgTraceReader.agentSpans`, and the ERROR span names of a trace. ConfigError on a SQLite store.
   */
  async pgAgentSpans(options: { agent?: string; cutoff?: string; failedOnly?: boolean; traceIds?: readonly string[]; limit: number }): Promise<AgentSpanRow[]> {
    const pg = this.pg();
    if (!pg) throw new ConfigError(`${this.label} is a SQLite store: read its agent spans with read()`);
    flushPendingSpans();
    await flushPendingPg();
    return pg.agentSpans(options);
  }

  /** The names of a Postgres store's ERROR spans of one trace, in start order (see `pgAgentSpans`). */
  async pgErrorSpanNames(traceId: string): Promise<string[]> {
    const pg = this.pg();
    if (!pg) throw new ConfigError(`${this.label} is a SQLite store: read its spans with read()`);
    return pg.errorSpanNames(traceId);
  }

  /**
   * The store's keyed hash of masked values (redaction-hash.ts): what replay compares a rerun's unmasked value with.
   * Undefined for a store without the key (older than v32, or missing).
   */
  async redactionHash(): Promise<KeyedHash | undefined> {
    const pg = this.pg();
    if (pg) {
      const pgKey = await pg.redactionKey();
      return pgKey ? keyedHash(pgKey) : undefined;
    }
    const key = await this.read((db) => {
      if (schemaVersion(db) < TRACE_KEYS_VERSION) return undefined;
      return db.prepare('SELECT key FROM trace_keys WHERE name = ?').pluck().get(REDACTION_KEY_NAME) as unknown;
    }, undefined);
    return key instanceof Uint8Array ? keyedHash(key) : undefined;
  }

  /** The rows of a Postgres store's trace `traceId` names (resolved as in `resolve`). */
  private async pgSpanRows(pg: PgTraceReader, traceId: string): Promise<SpanRow[]> {
    flushPendingSpans();
    await flushPendingPg();
    const found = await pg.spanRows(traceId);
    if (found.length > 0) return found;
    const id = await pg.resolve(traceId, this.label);
    return id === null ? [] : pg.spanRows(id);
  }

  /**
   * Run `fn` on a read-only SQLite connection, after flushing this process's pending spans; `empty` when no store
   * exists, and for a Postgres store (what only SQLite holds yet: attachments, guardrail events, favorites).
   */
  async read<T>(fn: (db: Database.Database) => T, empty: T): Promise<T> {
    flushPendingSpans();
    if (this.#ref.engine !== 'sqlite' || !existsSync(this.dbPath)) return empty;
    const db = openLocalStore(this.dbPath, { readonly: true });
    try {
      return fn(db);
    } finally {
      db.close();
    }
  }

  /** Run `fn` in one write transaction, after flushing this process's pending spans; `empty` when no store exists. */
  private async write<T>(fn: (db: Database.Database) => T, empty: T): Promise<T> {
    flushPendingSpans();
    if (this.#ref.engine !== 'sqlite' || !existsSync(this.dbPath)) return empty;
    const db = openLocalStore(this.dbPath);
    try {
      return db.transaction(() => fn(db)).immediate();
    } finally {
      db.close();
    }
  }
}

/** How long one prune transaction of a SQLite store aims to hold the write lock (well under the 1 s bound of issue 38). */
const PRUNE_BATCH_TARGET_MS = 200;

/** The trace ids eval cases cite (a subquery; none in a store without the eval tables). */
function referencedByEvalCases(db: Database.Database): string {
  const has = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'eval_cases'").get();
  return has ? 'SELECT trace_id FROM eval_cases WHERE trace_id IS NOT NULL' : 'SELECT NULL WHERE 0';
}

function notFound(traceId: string, label: string): NotFoundError {
  return new NotFoundError('trace_not_found', `trace '${traceId}' not found in ${label}`);
}

function spanRows(db: Database.Database, traceId: string): SpanRow[] {
  return db.prepare('SELECT * FROM spans WHERE trace_id = ? ORDER BY start_time, rowid').all(traceId) as SpanRow[];
}

/** Root rows of the runs recorded under a caller's span of `callerTraceId` (none before v31: no such column). */
function callerRuns(db: Database.Database, callerTraceId: string): Array<{ trace_id: string; name: string; start_time: string }> {
  if (schemaVersion(db) < CALLER_TRACE_VERSION) return [];
  return db.prepare('SELECT trace_id, name, start_time FROM spans WHERE caller_trace_id = ? ORDER BY start_time, rowid').all(callerTraceId) as Array<{
    trace_id: string;
    name: string;
    start_time: string;
  }>;
}

/** The stored id `traceId` names (TraceStore.resolve), null when it names nothing; AmbiguousTraceError for several runs. */
export function resolveIn(db: Database.Database, traceId: string, dbPath: string): string | null {
  if (db.prepare('SELECT 1 FROM spans WHERE trace_id = ? LIMIT 1').get(traceId)) return traceId;
  const runs = callerRuns(db, traceId);
  if (runs.length <= 1) return runs[0]?.trace_id ?? null;
  const listed = runs.map((run) => `${run.trace_id} (${run.name}, ${run.start_time})`).join(', ');
  throw new AmbiguousTraceError(
    `trace id '${traceId}' is the caller's trace of ${runs.length} runs in ${dbPath}: ${listed}; name one run by its own trace id`,
    runs.map((run) => run.trace_id),
  );
}

/** SQLite side of `TraceStore.matchIds`: a range on the trace id index for the prefix, a scan of root spans for the suffix. */
function matchIdsIn(db: Database.Database, fragment: string, limit: number): string[] {
  const rows = db
    .prepare(
      `SELECT trace_id FROM (
         SELECT DISTINCT trace_id FROM spans WHERE trace_id >= @fragment AND trace_id < @fragment || char(1114111)
         UNION
         SELECT trace_id FROM spans WHERE parent_span_id IS NULL AND substr(trace_id, -length(@fragment)) = @fragment
       ) ORDER BY trace_id LIMIT @limit`,
    )
    .all({ fragment, limit }) as Array<{ trace_id: string }>;
  return rows.map((row) => row.trace_id);
}

/** Delete the records of `traceIds` (spans, guardrail events, attachments, annotations), inside the caller's transaction. */
function deleteRecords(db: Database.Database, traceIds: readonly string[]): void {
  const statements = ['spans', 'guardrail_events', 'attachments', 'trace_annotations'].map((table) => db.prepare(`DELETE FROM ${table} WHERE trace_id = ?`));
  for (const id of traceIds) for (const statement of statements) statement.run(id);
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
  whereParams: Record<string, unknown> | unknown[] = {},
  since?: string,
  limit?: number,
): TraceSummary[] {
  const cap = limit === undefined ? '' : ` LIMIT ${Math.max(0, Math.floor(limit))}`;
  const rows = db
    .prepare(
      `SELECT trace_id, count(*) AS span_count, min(start_time) AS start_time,
              CASE WHEN count(end_time) = count(*) THEN max(end_time) END AS end_time,
              max(status = 'ERROR') AS any_error
       FROM spans ${where} GROUP BY trace_id ${having} ORDER BY min(start_time) DESC${cap}`,
    )
    .all(Array.isArray(whereParams) ? whereParams : { ...havingParams, ...whereParams }) as SummaryRow[];
  if (rows.length === 0) return [];
  const roots = rootsOf(
    db,
    rows.map((r) => r.trace_id),
    since,
  );
  const waiting = pausedIn(
    db,
    rows.map((r) => r.trace_id),
    since,
  );
  return rows.map((row) => {
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

/**
 * Of `traceIds`, the runs still waiting for a person: a parentless span marked paused (docs/adr/0059) and no resume
 * root naming the trace as the one it resumed. Paused runs are few: the second look-up is per paused trace.
 */
function pausedIn(db: Database.Database, traceIds: readonly string[], since?: string): Set<string> {
  const paused = new Set<string>();
  let candidates: string[];
  if (traceIds.length > 64) {
    // A listing: one pass over the parentless rows beats a probe per trace. A listing by time (`since`: every span of
    // a listed trace started then or later) reads only the window's through the partial index of local.db v37, not
    // every parentless row of the store (1,000,000 spans: 900 ms down to the window's share).
    const wanted = new Set(traceIds);
    const window = since === undefined ? '' : ' AND start_time >= ?';
    candidates = (
      db
        .prepare(`SELECT DISTINCT trace_id FROM spans WHERE parent_span_id IS NULL${window} AND attributes LIKE ?`)
        .all(...(since === undefined ? [] : [since]), PAUSED_PATTERN) as Array<{ trace_id: string }>
    )
      .map((r) => r.trace_id)
      .filter((id) => wanted.has(id));
  } else {
    const marked = db.prepare(`SELECT 1 FROM spans WHERE trace_id = ? AND parent_span_id IS NULL AND attributes LIKE ? LIMIT 1`);
    candidates = traceIds.filter((id) => marked.get(id, PAUSED_PATTERN) !== undefined);
  }
  const resumed = db.prepare(`SELECT 1 FROM spans WHERE parent_span_id IS NULL AND attributes LIKE ? LIMIT 1`);
  for (const id of candidates) if (resumed.get(resumedPattern(id)) === undefined) paused.add(id);
  return paused;
}

/**
 * The root span (no parent inside its trace; the earliest if several) of each trace. A few traces are looked up one
 * by one through the trace index; many (a listing) in one pass over the parentless spans, which is about 20 times
 * cheaper for 10,000 traces than 10,000 lookups.
 */
function rootsOf(db: Database.Database, traceIds: string[], since?: string): Map<string, { name: string; status: SpanStatus }> {
  const roots = new Map<string, { name: string; status: SpanStatus }>();
  if (since !== undefined && traceIds.length > 64) {
    // A listing by time: the parentless rows started since then, through the partial index of local.db v37 (every
    // record's root is one, docs/adr/0009); a trace whose root has a parent outside it is looked up on its own below.
    const wanted = new Set(traceIds);
    const rows = db
      .prepare(`SELECT trace_id, name, status FROM spans WHERE parent_span_id IS NULL AND start_time >= ? ORDER BY trace_id, start_time, rowid`)
      .all(since) as Array<{ trace_id: string; name: string; status: SpanStatus }>;
    for (const row of rows) {
      if (wanted.has(row.trace_id) && !roots.has(row.trace_id)) roots.set(row.trace_id, { name: row.name, status: row.status });
    }
    const rest = traceIds.filter((id) => !roots.has(id));
    if (rest.length > 0) for (const [id, root] of rootsOf(db, rest)) roots.set(id, root);
    return roots;
  }
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
