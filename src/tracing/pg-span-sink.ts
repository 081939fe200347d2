/**
 * Spans into a Postgres store (issue 38). The batched writer hands each Postgres destination's rows here; the sink
 * keeps them in a bounded queue and writes them in batches of one statement each (`insertSpanRows`), so a batch
 * retried after a lost reply is harmless.
 *
 * Never in a run's way: `enqueue` only queues (no I/O, never throws). While the database does not answer, rows wait
 * (at most `maxQueued`; beyond that new rows are dropped and counted, except a root span, which takes the place of the
 * newest waiting child span: an answered run's trace stays listed, short of a child) and one warning says so, once per outage; a
 * second one says how many were dropped when writing resumes, and a third how many more were dropped while the backlog
 * was written (the queue still full), if any. `flush()` (graceful stop) writes what waits, trying
 * once. Each row references the writing process (`processes`: service name, host, pid, instance id).
 *
 * Spans arrive unmasked (`enqueueUnmasked`) and have credential-shaped text masked, with the store's keyed hash
 * (`trace_keys`) beside each masked value, as the SQLite writer does, so a recorded rerun still matches a masked call
 * (redaction-hash.ts, docs/adr/0010). The key is read once, after the schema is migrated; spans that arrive before
 * then wait unmasked (bounded by the same `maxQueued`).
 */
import type pg from 'pg';
import { redactStoreValue, storeValue, type StoreRef } from '../config/store-value.js';
import { isUniqueViolation } from '../store/pg-sqlstate.js';
import { encodePgString } from '../store/pg-text.js';
import { openStore, type Store } from '../store/store-handle.js';
import { registerProcess } from './pg-processes.js';
import { migrateTraceSchema } from './pg-schema.js';
import { keyedHash, REDACTION_KEY_NAME, type KeyedHash } from './redaction-hash.js';
import { maskSpanRow } from './span-encoding.js';
import type { SpanRow } from './span-record.js';

export interface PgSinkOptions {
  /** Rows waiting beyond which new rows are dropped and counted (default 20 000). */
  maxQueued?: number;
  /** Rows per statement (default 1000). */
  batchRows?: number;
  /** Delay before writing again after a failure, in ms (default 1000). */
  retryMs?: number;
  /** Span attributes longer than this (JSON text, in characters) are cut (default 1 MiB): see `capAttributes`. */
  maxAttributesChars?: number;
  /** The project rows are written under (default ''). */
  project?: string;
}

type Warn = (message: string) => void;

const INSERT_COLUMNS = [
  'trace_id',
  'span_id',
  'parent_span_id',
  'name',
  'start_time',
  'end_time',
  'status',
  'attributes',
  'events',
  'caller_trace_id',
] as const;
const COLUMN_TYPES = ['text', 'text', 'text', 'text', 'timestamptz', 'timestamptz', 'text', 'text', 'text', 'text'] as const;

export class PgSpanSink {
  readonly #store: Store;
  readonly #label: string;
  readonly #warn: Warn;
  readonly #maxQueued: number;
  readonly #batchRows: number;
  readonly #retryMs: number;
  readonly #maxAttributesChars: number;
  readonly #project: string;
  #queue: SpanRow[] = [];
  /** Rows at the head of the queue in the statement being written (never evicted: they are removed once written). */
  #inFlight = 0;
  #writing: Promise<void> | undefined;
  #retryTimer: NodeJS.Timeout | undefined;
  #ready: Promise<number> | undefined;
  /** The `processes` row of this process, once registered. */
  #processId: number | undefined;
  /** The store's keyed hash once read (null: the store has no key); undefined until then. */
  #hash: KeyedHash | null | undefined;
  /** Spans waiting for the key, unmasked. */
  #unmasked: SpanRow[] = [];
  /** True from the first failed write to the next successful one. */
  #down = false;
  /** Rows dropped in the current outage (queue full). */
  #droppedNow = 0;
  /** Rows dropped since the sink was made. */
  dropped = 0;
  /** Warnings given about the store being unavailable (one per outage). */
  outageWarnings = 0;

  constructor(ref: Extract<StoreRef, { engine: 'postgres' }>, warn: Warn, options: PgSinkOptions = {}) {
    this.#store = openStore(ref, { min: 0 });
    this.#label = redactStoreValue(storeValue(ref));
    this.#warn = warn;
    this.#maxQueued = options.maxQueued ?? 20_000;
    this.#batchRows = options.batchRows ?? 1000;
    this.#retryMs = options.retryMs ?? 1000;
    this.#maxAttributesChars = options.maxAttributesChars ?? 1024 * 1024;
    this.#project = options.project ?? '';
  }

  /** Rows waiting to be written. */
  get pending(): number {
    return this.#queue.length + this.#unmasked.length;
  }

  /** Queue rows (already masked) and start writing if idle. Never throws, never waits. */
  enqueue(rows: readonly SpanRow[]): void {
    this.#push(rows);
    if (!this.#writing && !this.#retryTimer) this.#kick();
  }

  /**
   * Queue spans as the batched writer holds them (span-encoding.ts), to be masked with the store's keyed hash. Never
   * waits, never throws.
   */
  enqueueUnmasked(rows: readonly SpanRow[]): void {
    if (this.#hash !== undefined) return this.enqueue(this.#masked(rows));
    if (this.pending + rows.length > this.#maxQueued) {
      this.dropped += rows.length;
      this.#droppedNow += rows.length;
    } else for (const row of rows) this.#unmasked.push(row);
    if (!this.#writing && !this.#retryTimer) this.#kick();
  }

  #masked(rows: readonly SpanRow[]): SpanRow[] {
    const hash = () => this.#hash ?? undefined;
    return rows.map((row) => maskSpanRow(row, hash));
  }

  #push(rows: readonly SpanRow[]): void {
    for (const row of rows) {
      if (this.pending >= this.#maxQueued && !(row.parent_span_id === null && this.#evictChild())) {
        this.dropped++;
        this.#droppedNow++;
        continue;
      }
      this.#queue.push(row);
    }
  }

  /**
   * Make room for a root span: the newest waiting child span gives up its place (counted as dropped). A run's root
   * ends last, after its children, so in an outage it is the row that arrives to a full queue; without it the trace
   * would be missing from every list. False when no child waits outside the statement being written.
   */
  #evictChild(): boolean {
    for (let i = this.#queue.length - 1; i >= this.#inFlight; i--) {
      if (this.#queue[i]!.parent_span_id === null) continue;
      this.#queue.splice(i, 1);
      this.dropped++;
      this.#droppedNow++;
      return true;
    }
    return false;
  }

  /** Write what waits now (one attempt if the store fails); resolves when done. Never rejects. */
  async flush(): Promise<void> {
    clearTimeout(this.#retryTimer);
    this.#retryTimer = undefined;
    await this.#writing;
    if (this.pending > 0) {
      this.#kick();
      await this.#writing;
    }
  }

  /** Flush, then give the pool back. */
  async close(): Promise<void> {
    await this.flush();
    clearTimeout(this.#retryTimer);
    this.#retryTimer = undefined;
    await this.#store.close();
  }

  #kick(): void {
    this.#writing = this.#drain().finally(() => {
      this.#writing = undefined;
    });
  }

  async #drain(): Promise<void> {
    while (this.pending > 0) {
      try {
        await this.#prepare();
      } catch (error) {
        this.#failed(error);
        return;
      }
      this.#maskWaiting();
      const batch = this.#queue.slice(0, this.#batchRows);
      if (batch.length === 0) continue;
      this.#inFlight = batch.length;
      try {
        await insertSpanRows(
          this.#store.pool(),
          this.#store.schema!,
          { project: this.#project, processId: this.#processId!, maxAttributesChars: this.#maxAttributesChars },
          batch,
        );
      } catch (error) {
        this.#inFlight = 0;
        this.#failed(error);
        return;
      }
      this.#inFlight = 0;
      this.#queue.splice(0, batch.length);
      if (this.#down) this.#recovered();
    }
    // Spans that arrived while the queue was still full after an outage (the backlog draining) are lost too: say how
    // many once the backlog is written, so no span is ever dropped without a count.
    if (!this.#down && this.#droppedNow > 0) {
      this.#warn(`agentkit tracing: ${this.#droppedNow} more span(s) were dropped for the Postgres store ${this.#label} while its backlog was written`);
      this.#droppedNow = 0;
    }
  }

  /** Migrate the schema, register this process and read the store's key, each once. */
  async #prepare(): Promise<void> {
    const pool = this.#store.pool();
    this.#ready ??= migrateTraceSchema(pool, this.#store.schema!).catch((error: unknown) => {
      this.#ready = undefined;
      throw error;
    });
    await this.#ready;
    this.#processId ??= await registerProcess(pool, this.#store.schema!, this.#project);
    if (this.#hash === undefined) {
      const result = await pool.query<{ key: Buffer }>(`SELECT key FROM "${this.#store.schema}".trace_keys WHERE project = $1 AND name = $2`, [
        this.#project,
        REDACTION_KEY_NAME,
      ]);
      const key = result.rows[0]?.key;
      this.#hash = key ? keyedHash(key) : null;
    }
  }

  /** Mask the spans that waited for the key into the queue. */
  #maskWaiting(): void {
    if (this.#unmasked.length === 0) return;
    const rows = this.#unmasked;
    this.#unmasked = [];
    this.#push(this.#masked(rows));
  }

  #failed(error: unknown): void {
    if (!this.#down) {
      this.#down = true;
      this.outageWarnings++;
      const reason = error instanceof Error ? error.message.split('\n')[0] : String(error);
      this.#warn(
        `agentkit tracing: the Postgres store ${this.#label} cannot be written (${reason}); spans wait in memory (at most ${this.#maxQueued}) and are written when it answers`,
      );
    }
    this.#retryTimer = setTimeout(() => {
      this.#retryTimer = undefined;
      this.#kick();
    }, this.#retryMs).unref();
  }

  #recovered(): void {
    this.#down = false;
    this.#warn(`agentkit tracing: the Postgres store ${this.#label} is written again; ${this.#droppedNow} span(s) were dropped while it was unavailable`);
    this.#droppedNow = 0;
  }
}

/**
 * Insert span rows into the store's `spans` table in one statement, each column one JSON array read side by side
 * (`ROWS FROM (json_array_elements_text(...))`). When a row of the batch is stored already (same project, trace and
 * span id) the statement runs again with `ON CONFLICT DO NOTHING`, which leaves stored rows as they are: a retried or
 * repeated batch is harmless. Returns how many rows were new. The trace schema must be migrated
 * (`migrateTraceSchema`). docs/adr/0074-span-writes-on-postgres.md.
 */
export async function insertSpanRows(
  pool: pg.Pool,
  schema: string,
  options: { project: string; processId: number | null; maxAttributesChars: number },
  rows: readonly SpanRow[],
): Promise<number> {
  // Each column as one JSON array: JSON.stringify runs natively, where pg escapes every element of an array literal
  // in JavaScript; the server reads the arrays side by side (ROWS FROM) as cheaply as it reads array literals.
  const value = (row: SpanRow, column: (typeof INSERT_COLUMNS)[number]): string | null => {
    if (column === 'attributes') return encodePgString(capAttributes(row.attributes, options.maxAttributesChars));
    const v = column === 'caller_trace_id' ? (row.caller_trace_id ?? null) : row[column];
    return v === null ? null : encodePgString(v);
  };
  const columns = INSERT_COLUMNS.map((column) => JSON.stringify(rows.map((row) => value(row, column))));
  const arrays = INSERT_COLUMNS.map((_, i) => `json_array_elements_text($${i + 3}::json)`).join(', ');
  const selected = INSERT_COLUMNS.map((c, i) => (COLUMN_TYPES[i] === 'text' ? `t.${c}` : `t.${c}::${COLUMN_TYPES[i]}`)).join(', ');
  const insert = (onConflict: string) =>
    pool.query(
      `INSERT INTO "${schema}".spans (project, process_id, ${INSERT_COLUMNS.join(', ')})
       SELECT $1, $2, ${selected} FROM ROWS FROM (${arrays}) AS t(${INSERT_COLUMNS.join(', ')}) ${onConflict}`,
      [options.project, options.processId, ...columns],
    );
  try {
    // A plain insert first: `ON CONFLICT` costs about a third more a row on the server (bench trace-store-cost), and
    // a conflict is rare.
    return (await insert('')).rowCount ?? 0;
  } catch (error) {
    // A batch written before (a retry after a lost reply, a copy run again): the rows not stored yet are added.
    if (!isUniqueViolation(error)) throw error;
    return (await insert('ON CONFLICT DO NOTHING')).rowCount ?? 0;
  }
}

/** A marker key: the span's attributes were larger than the payload cap and their long values were cut. */
export const TRUNCATED_ATTR = 'agentkit.truncated_chars';

/**
 * The span payload cap: attributes (JSON text) over `max` characters keep every key, but each string value longer than
 * 4096 characters is cut to that length, and `agentkit.truncated_chars` records the original text's length.
 */
export function capAttributes(json: string, max: number): string {
  if (json.length <= max) return json;
  try {
    const attributes = JSON.parse(json) as Record<string, unknown>;
    for (const [key, value] of Object.entries(attributes)) {
      if (typeof value === 'string' && value.length > 4096) attributes[key] = `${value.slice(0, 4096)}...`;
    }
    attributes[TRUNCATED_ATTR] = json.length;
    return JSON.stringify(attributes);
  } catch {
    return JSON.stringify({ [TRUNCATED_ATTR]: json.length });
  }
}
