/**
 * Writing batches of spans (rows encoded by span-encoding.ts) and guardrail events into local stores: one transaction per store, connections
 * cached (a few at a time, least recently used closed first). Runs on the writer thread (or inline when no thread
 * can be started). Decoding a span (span-encoding.ts) slices its columns out of the batch's buffer and masks
 * credential-shaped text, so that scan stays off the run's thread. A store that cannot be written reports a warning once and its batch is dropped.
 */
import type Database from 'better-sqlite3';
import { openLocalStore } from '../store/open.js';
import { retainWalKeeper } from '../store/wal-keeper.js';
import { MIN_ROWS_AFTER_YIELD, type WritePriority } from '../store/write-priority.js';
import { decodeEncodedSpanRows, type EncodedSpanRow } from './span-encoding.js';

/**
 * Spans inserted by one statement: each `run` call has a fixed cost (about 1 us a row of 5 measured alone, in 128-row
 * transactions); eight rows a call save most of it.
 */
const ROWS_PER_STATEMENT = 8;
const SPAN_COLUMNS = 9;
/** One row's placeholders: the attributes arrive as UTF-8 bytes and are stored as the text they are. */
const SPAN_VALUES = '(?, ?, ?, ?, ?, ?, ?, CAST(? AS TEXT), ?)';
const INSERT_SPANS = 'INSERT OR REPLACE INTO spans (span_id, trace_id, parent_span_id, name, start_time, end_time, status, attributes, events) VALUES ';

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
  /** The spans' rows, encoded (span-encoding.ts): one buffer per hand-over, several once batches are merged. */
  spans: Uint8Array[];
  spanCount: number;
  events: GuardrailEventRow[];
}

interface Connection {
  db: Database.Database;
  /** Gives WAL checkpoints back to the connection (call before closing it). */
  releaseWalKeeper: () => void;
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

  /**
   * `priority`: on a writer thread, the process's write-priority counters (../store/write-priority.ts): a
   * transaction ends early while a checkpoint commit waits for the lock. Inline (on the main thread) there is none:
   * waiting there would block the event loop the commit runs on.
   */
  constructor(
    private readonly warn: (message: string) => void,
    private readonly maxConnections = 8,
    private readonly priority?: WritePriority,
  ) {}

  /** Write every batch; never throws. */
  write(batches: readonly StoreBatch[]): void {
    for (const batch of batches) {
      const cached = this.connections.has(batch.dbPath);
      try {
        this.writeBatch(batch);
      } catch (error) {
        this.forget(batch.dbPath);
        if (!cached) this.warnOnce(batch, error);
        // A connection kept from earlier may have lost its file (the store was deleted or replaced since): once
        // more on a fresh one, which opens (or creates) the store as it is now.
        else this.retry(batch);
      }
    }
  }

  /**
   * One batch: its spans in one transaction, or, when a checkpoint commit comes to wait for the lock meanwhile, in
   * several, the writer waiting between them until the commit is done (../store/write-priority.ts). The guardrail
   * events go with the last.
   */
  private writeBatch(batch: StoreBatch): void {
    const connection = this.connection(batch.dbPath);
    const rows = decodeEncodedSpanRows(batch.spans);
    let next = 0;
    let yielded = false;
    for (;;) {
      connection.inTransaction(() => {
        next = insertSpans(connection, rows, next, yielded ? MIN_ROWS_AFTER_YIELD : 1, this.priority);
        if (next < rows.length) return;
        for (const e of batch.events) {
          connection.event.run(e.event_id, e.trace_id, e.span_id, e.agent_name, e.guardrail_name, e.position, e.outcome, e.blocking ? 1 : 0, e.message, e.created_at);
        }
      });
      if (next >= rows.length) return;
      // Ended early for a waiting checkpoint commit: wake it, and go on once it is done.
      this.priority!.yielded();
      this.priority!.waitForCommits();
      yielded = true;
    }
  }

  private retry(batch: StoreBatch): void {
    try {
      this.writeBatch(batch);
    } catch (error) {
      this.forget(batch.dbPath);
      this.warnOnce(batch, error);
    }
  }

  private warnOnce(batch: StoreBatch, error: unknown): void {
    if (this.warned.has(batch.dbPath)) return;
    this.warned.add(batch.dbPath);
    this.warn(`agentkit tracing: could not write ${batch.spanCount} span(s) and ${batch.events.length} guardrail event(s) to ${batch.dbPath}: ${error instanceof Error ? error.message : String(error)}`);
  }

  /** Close every connection. */
  close(): void {
    for (const file of [...this.connections.keys()]) this.forget(file);
  }

  private connection(file: string): Connection {
    const cached = this.connections.get(file);
    if (cached) {
      // Refresh its place in the LRU order.
      this.connections.delete(file);
      this.connections.set(file, cached);
      return cached;
    }
    const db = openLocalStore(file);
    const connection: Connection = {
      db,
      // SQLite's automatic checkpoint runs inside the commit that crosses its threshold and fsyncs there: it doubled
      // the cost of writing spans. A keeper thread checkpoints instead (decision 62), so writes never wait for it.
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
    while (this.connections.size > this.maxConnections) this.forget(this.connections.keys().next().value!);
    return connection;
  }

  private forget(file: string): void {
    const cached = this.connections.get(file);
    this.connections.delete(file);
    try {
      cached?.releaseWalKeeper();
      cached?.db.close();
    } catch {
      // Closing a broken connection has nothing left to report.
    }
  }
}

/**
 * Insert `rows` from `from` on; returns where it stopped: the end, or earlier when `priority` says a checkpoint
 * commit waits for the lock (checked after each statement, once `atLeast` rows are written).
 */
function insertSpans(connection: Connection, rows: readonly EncodedSpanRow[], from: number, atLeast: number, priority: WritePriority | undefined): number {
  let i = from;
  const yieldable = () => priority !== undefined && i - from >= atLeast && i < rows.length && priority.contended;
  if (rows.length - i >= ROWS_PER_STATEMENT) {
    const values: unknown[] = new Array<unknown>(ROWS_PER_STATEMENT * SPAN_COLUMNS);
    for (; i + ROWS_PER_STATEMENT <= rows.length; i += ROWS_PER_STATEMENT) {
      if (yieldable()) return i;
      for (let j = 0; j < ROWS_PER_STATEMENT; j++) putRow(values, j * SPAN_COLUMNS, rows[i + j]!);
      connection.spans.run(values);
    }
  }
  for (; i < rows.length; i++) {
    if (yieldable()) return i;
    const r = rows[i]!;
    connection.span.run(r.span_id, r.trace_id, r.parent_span_id, r.name, r.start_time, r.end_time, r.status, r.attributes, r.events);
  }
  return i;
}

/** A row's columns at `at` in `values`, in the order of `SPAN_VALUES`. */
function putRow(values: unknown[], at: number, r: EncodedSpanRow): void {
  values[at] = r.span_id;
  values[at + 1] = r.trace_id;
  values[at + 2] = r.parent_span_id;
  values[at + 3] = r.name;
  values[at + 4] = r.start_time;
  values[at + 5] = r.end_time;
  values[at + 6] = r.status;
  values[at + 7] = r.attributes;
  values[at + 8] = r.events;
}
