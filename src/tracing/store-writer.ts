/**
 * Writing batches of spans (rows made by span-encoding.ts) and guardrail events into local stores: one transaction per
 * store, connections cached (a few at a time, least recently used closed first), on the thread that ends the spans
 * (writer.ts). Each row's credential-shaped text is masked as its batch is written, with the store's keyed hash.
 *
 * Contract:
 * - A store another connection keeps locked past the busy timeout (SQLITE_BUSY or SQLITE_LOCKED: a long write of
 *   another process, a backup) loses nothing: the rows not yet committed are held, in order, and written before that
 *   store's next rows (its next `write`) or by `retryHeld`. One warning when holding starts, one when
 *   the held rows are written. Held spans are bounded (`maxHeldSpans`, all stores): past it the oldest are dropped,
 *   counted in a warning. Guardrail events are never dropped for the bound (they are the audit trail).
 * - A store that cannot be written for any other reason (not a database, a path that cannot be created, a read-only
 *   file) is reported in one warning per store and its batch is dropped: writing it again would fail the same way.
 * - `close` tries the held rows once more and reports what it still could not write.
 */
import type Database from 'better-sqlite3';
import { DEFAULT_BUSY_TIMEOUT_MS, openLocalStore } from '../store/open.js';
import { retainWalKeeper } from '../store/wal-keeper.js';
import { keyedHash, REDACTION_KEY_NAME, type KeyedHash } from './redaction-hash.js';
import { maskSpanRow } from './span-encoding.js';
import type { SpanRow } from './span-record.js';

/**
 * Spans inserted by one statement: each `run` call has a fixed cost (about 1 us a row of 5 measured alone, in 128-row
 * transactions); eight rows a call save most of it.
 */
const ROWS_PER_STATEMENT = 8;
const SPAN_COLUMNS = 10;
/** One row's placeholders. */
const SPAN_VALUES = '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)';
const INSERT_SPANS =
  'INSERT OR REPLACE INTO spans (span_id, trace_id, parent_span_id, name, start_time, end_time, status, attributes, events, caller_trace_id) VALUES ';

/** A `guardrail_events` row. */
export interface GuardrailEventRow {
  event_id: string;
  trace_id: string | null;
  span_id: string | null;
  agent_name: string | null;
  guardrail_name: string;
  position: string;
  outcome: 'passed' | 'blocked' | 'warned' | 'errored';
  blocking: boolean;
  message: string | null;
  created_at: string;
}

/** What goes to one store. */
export interface StoreBatch {
  dbPath: string;
  /** The spans' rows (span-encoding.ts), not yet masked. */
  spans: SpanRow[];
  events: GuardrailEventRow[];
}

/** What a StoreWriter can be told (all optional). */
export interface StoreWriterOptions {
  /** Connections kept open at once (default 8). */
  maxConnections?: number;
  /** How long one write waits for another connection's lock before its rows are held (default: the store's 5000 ms). */
  busyTimeoutMs?: number;
  /** Spans held for locked stores, all stores together, beyond which the oldest are dropped (default 20 000). */
  maxHeldSpans?: number;
  /**
   * How long `retryHeld` waits for a lock (default: as long as any write). Inline, on the thread that runs the
   * agents, it is 0: a retry that finds the store still locked must not block that event loop.
   */
  retryWaitMs?: number;
}

/** Rows of one store that a lock kept out, oldest first. */
interface Held {
  rows: SpanRow[];
  events: GuardrailEventRow[];
}

interface Connection {
  db: Database.Database;
  /** Gives WAL checkpoints back to the connection (call before closing it). */
  releaseWalKeeper: () => Promise<void>;
  span: Database.Statement;
  /** `ROWS_PER_STATEMENT` spans at once. */
  spans: Database.Statement;
  event: Database.Statement;
  /** Runs its argument in a transaction: built once (each `db.transaction()` call builds four wrapped functions). */
  inTransaction: (write: () => void) => void;
}

export class StoreWriter {
  private readonly connections = new Map<string, Connection>();
  private readonly warned = new Set<string>();
  private readonly held = new Map<string, Held>();
  /** Each store's keyed hash (redaction-hash.ts), read once it is first needed; null when the store has no key. */
  private readonly hashes = new Map<string, KeyedHash | null>();
  private heldSpans = 0;
  private readonly maxConnections: number;
  private readonly busyTimeoutMs: number | undefined;
  private readonly maxHeldSpans: number;
  private readonly retryWaitMs: number | undefined;

  constructor(
    private readonly warn: (message: string) => void,
    options: StoreWriterOptions = {},
  ) {
    this.maxConnections = options.maxConnections ?? 8;
    this.busyTimeoutMs = options.busyTimeoutMs;
    this.maxHeldSpans = options.maxHeldSpans ?? 20_000;
    this.retryWaitMs = options.retryWaitMs;
  }

  /** True while rows are held for a locked store (see the module comment). */
  get holding(): boolean {
    return this.held.size > 0;
  }

  /** Spans held for locked stores, all stores together. */
  get heldSpanCount(): number {
    return this.heldSpans;
  }

  /** Write every batch, each after the rows held for its store; never throws. */
  write(batches: readonly StoreBatch[]): void {
    for (const batch of batches) {
      const hash = () => this.keyedHashOf(batch.dbPath);
      let rows: SpanRow[];
      try {
        rows = batch.spans.map((row) => maskSpanRow(row, hash));
      } catch (error) {
        this.warnOnce(batch.dbPath, batch.spans.length, batch.events.length, error);
        continue;
      }
      this.writeStore(batch.dbPath, rows, batch.events);
    }
  }

  /**
   * Write the rows held for locked stores, except those of `skip` (stores just tried by `write`); never throws.
   * Apart from `write`, so a batch for one store never waits for another store's lock.
   */
  retryHeld(skip?: ReadonlySet<string>): void {
    for (const dbPath of [...this.held.keys()]) if (!skip?.has(dbPath)) this.writeStore(dbPath, [], [], this.retryWaitMs);
  }

  /** One store: its held rows, then `rows` and `events`; `waitMs` replaces the busy timeout for this write. */
  private writeStore(dbPath: string, rows: SpanRow[], events: GuardrailEventRow[], waitMs?: number): void {
    const held = this.held.get(dbPath);
    if (held) {
      this.held.delete(dbPath);
      this.heldSpans -= held.rows.length;
      rows = held.rows.concat(rows);
      events = held.events.concat(events);
    }
    // At most twice: a connection kept from earlier may have lost its file (the store was deleted or replaced
    // since), so a failure on a kept connection is tried once more on a fresh one, which opens the store as it is now.
    for (let pending = rows; ; ) {
      const fresh = !this.connections.has(dbPath);
      const progress = { rows: 0 };
      try {
        this.writeRows(dbPath, pending, events, progress, waitMs);
        break;
      } catch (error) {
        pending = pending.slice(progress.rows);
        if (isLocked(error)) return this.hold(dbPath, pending, events, held !== undefined, error);
        void this.forget(dbPath);
        if (fresh) return this.warnOnce(dbPath, pending.length, events.length, error);
      }
    }
    if (held)
      this.warn(
        `agentkit tracing: ${dbPath} is writable again; the ${held.rows.length} span(s) and ${held.events.length} guardrail event(s) held for it are written`,
      );
  }

  /** Keep `rows` and `events` for the next try; past the bound, drop the oldest spans (this store's) and say so. */
  private hold(dbPath: string, rows: SpanRow[], events: GuardrailEventRow[], already: boolean, error: unknown): void {
    const over = this.heldSpans + rows.length - this.maxHeldSpans;
    const dropped = over > 0 ? Math.min(over, rows.length) : 0;
    const kept = dropped > 0 ? rows.slice(dropped) : rows;
    this.held.set(dbPath, { rows: kept, events });
    this.heldSpans += kept.length;
    if (!already) {
      this.warn(
        `agentkit tracing: ${dbPath} is locked by another connection (${errorText(error)}); ${kept.length} span(s) and ${events.length} guardrail event(s) held and written once it is free`,
      );
    }
    if (dropped > 0)
      this.warn(`agentkit tracing: dropped ${dropped} span(s) for ${dbPath}: more than ${this.maxHeldSpans} span(s) held while stores stay locked`);
  }

  /**
   * One store's rows and guardrail events in one transaction. `progress.rows` counts the rows committed (all of them
   * once it commits; none when it fails).
   */
  private writeRows(dbPath: string, rows: readonly SpanRow[], events: readonly GuardrailEventRow[], progress: { rows: number }, waitMs?: number): void {
    const connection = this.connection(dbPath);
    if (waitMs === undefined) return this.writeRowsOn(connection, rows, events, progress);
    connection.db.pragma(`busy_timeout = ${waitMs}`);
    try {
      this.writeRowsOn(connection, rows, events, progress);
    } finally {
      connection.db.pragma(`busy_timeout = ${this.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS}`);
    }
  }

  private writeRowsOn(connection: Connection, rows: readonly SpanRow[], events: readonly GuardrailEventRow[], progress: { rows: number }): void {
    connection.inTransaction(() => {
      insertSpans(connection, rows, progress.rows);
      for (const e of events) {
        connection.event.run(
          e.event_id,
          e.trace_id,
          e.span_id,
          e.agent_name,
          e.guardrail_name,
          e.position,
          e.outcome,
          e.blocking ? 1 : 0,
          e.message,
          e.created_at,
        );
      }
    });
    progress.rows = rows.length;
  }

  /**
   * The keyed hash of the store at `dbPath` (its `trace_keys` key, made by the migration that added the table), for the
   * hashes beside masked values; undefined when it cannot be read (the rows are then masked without them).
   */
  private keyedHashOf(dbPath: string): KeyedHash | undefined {
    let hash = this.hashes.get(dbPath);
    if (hash === undefined) {
      try {
        const key = this.connection(dbPath).db.prepare('SELECT key FROM trace_keys WHERE name = ?').pluck().get(REDACTION_KEY_NAME);
        hash = key instanceof Uint8Array ? keyedHash(key) : null;
      } catch {
        hash = null;
      }
      this.hashes.set(dbPath, hash);
    }
    return hash ?? undefined;
  }

  private warnOnce(dbPath: string, spans: number, events: number, error: unknown): void {
    if (this.warned.has(dbPath)) return;
    this.warned.add(dbPath);
    this.warn(`agentkit tracing: could not write ${spans} span(s) and ${events} guardrail event(s) to ${dbPath}: ${errorText(error)}`);
  }

  /**
   * Try the held rows once more (waiting as any write does), report what is still held (it is lost), and close every
   * connection. The rows are settled when it returns; the promise settles once the stores' WAL keeper threads have
   * closed their connections too (await it before removing a store's files).
   */
  close(): Promise<void> {
    for (const dbPath of [...this.held.keys()]) this.writeStore(dbPath, [], []);
    for (const [dbPath, held] of this.held) {
      this.warn(
        `agentkit tracing: dropped ${held.rows.length} span(s) and ${held.events.length} guardrail event(s) for ${dbPath}: it was still locked when the writer closed`,
      );
    }
    this.held.clear();
    this.heldSpans = 0;
    return Promise.all([...this.connections.keys()].map((file) => this.forget(file))).then(() => undefined);
  }

  private connection(file: string): Connection {
    const cached = this.connections.get(file);
    if (cached) {
      // Refresh its place in the LRU order.
      this.connections.delete(file);
      this.connections.set(file, cached);
      return cached;
    }
    const db = openLocalStore(file, this.busyTimeoutMs === undefined ? {} : { busyTimeoutMs: this.busyTimeoutMs });
    const connection: Connection = {
      db,
      // SQLite's automatic checkpoint runs inside the commit that crosses its threshold and fsyncs there, stalling the
      // thread that writes inline: a keeper thread checkpoints instead (ADR 0031).
      releaseWalKeeper: retainWalKeeper(db, file),
      span: db.prepare(INSERT_SPANS + SPAN_VALUES),
      spans: db.prepare(INSERT_SPANS + Array<string>(ROWS_PER_STATEMENT).fill(SPAN_VALUES).join(', ')),
      inTransaction: db.transaction((write: () => void) => write()),
      event: db.prepare(
        `INSERT INTO guardrail_events (event_id, trace_id, span_id, agent_name, guardrail_name, position, outcome, blocking, message, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
    };
    this.connections.set(file, connection);
    while (this.connections.size > this.maxConnections) void this.forget(this.connections.keys().next().value!);
    return connection;
  }

  /** Close the connection to `file`; the promise settles once its WAL keeper thread is gone too (if this stopped it). */
  private forget(file: string): Promise<void> {
    const cached = this.connections.get(file);
    this.connections.delete(file);
    // The store may have been replaced (another key): read it again with the next connection.
    this.hashes.delete(file);
    let keeperStopped = Promise.resolve();
    try {
      if (cached) keeperStopped = cached.releaseWalKeeper();
      cached?.db.close();
    } catch {
      // Closing a broken connection has nothing left to report.
    }
    return keeperStopped;
  }
}

/** Another connection holds the lock (past the busy timeout): the rows can be written later. */
function isLocked(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^SQLITE_(?:BUSY|LOCKED)/.test(code);
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Insert `rows` from `from` on, `ROWS_PER_STATEMENT` a statement while that many are left. */
function insertSpans(connection: Connection, rows: readonly SpanRow[], from: number): void {
  let i = from;
  if (rows.length - i >= ROWS_PER_STATEMENT) {
    const values: unknown[] = new Array<unknown>(ROWS_PER_STATEMENT * SPAN_COLUMNS);
    for (; i + ROWS_PER_STATEMENT <= rows.length; i += ROWS_PER_STATEMENT) {
      for (let j = 0; j < ROWS_PER_STATEMENT; j++) putRow(values, j * SPAN_COLUMNS, rows[i + j]!);
      connection.spans.run(values);
    }
  }
  for (; i < rows.length; i++) {
    const r = rows[i]!;
    connection.span.run(r.span_id, r.trace_id, r.parent_span_id, r.name, r.start_time, r.end_time, r.status, r.attributes, r.events, r.caller_trace_id ?? null);
  }
}

/** A row's columns at `at` in `values`, in the order of `SPAN_VALUES`. */
function putRow(values: unknown[], at: number, r: SpanRow): void {
  values[at] = r.span_id;
  values[at + 1] = r.trace_id;
  values[at + 2] = r.parent_span_id;
  values[at + 3] = r.name;
  values[at + 4] = r.start_time;
  values[at + 5] = r.end_time;
  values[at + 6] = r.status;
  values[at + 7] = r.attributes;
  values[at + 8] = r.events;
  values[at + 9] = r.caller_trace_id ?? null;
}
