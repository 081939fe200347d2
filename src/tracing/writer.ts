/**
 * The batched writer behind the span processor: ended spans and guardrail events are queued per store file and
 * written in one transaction per store, on a short unref'd timer (so an idle process can exit), when a batch fills,
 * on `flush()`, and at process exit. better-sqlite3 is synchronous, so a flush is complete when `flush()` returns.
 * Connections are cached per store (a few at a time) and closed on `close()`. A store that cannot be written is
 * reported once as a process warning and its batch dropped: tracing never fails a run.
 */
import type Database from 'better-sqlite3';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import { openLocalStore } from '../store/open.js';
import { spanRow } from './span-row.js';

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

export interface WriterOptions {
  /** Delay before queued rows are written (default 200 ms). */
  flushIntervalMs?: number;
  /** Rows queued (all stores) that trigger a write at once (default 512). */
  maxBatch?: number;
  /** Rows queued beyond which new spans are dropped and counted (default 20 000). */
  maxQueued?: number;
  /** Open connections kept (default 8). */
  maxConnections?: number;
}

interface Queue {
  spans: ReadableSpan[];
  events: GuardrailEventRow[];
}

interface Statements {
  span: Database.Statement;
  event: Database.Statement;
}

export class BatchedTraceWriter {
  private readonly queues = new Map<string, Queue>();
  private readonly connections = new Map<string, { db: Database.Database; statements: Statements }>();
  private readonly warned = new Set<string>();
  private readonly flushIntervalMs: number;
  private readonly maxBatch: number;
  private readonly maxQueued: number;
  private readonly maxConnections: number;
  private queued = 0;
  private timer: NodeJS.Timeout | undefined;
  private immediate: NodeJS.Immediate | undefined;
  /** Spans dropped because the queue was full. */
  dropped = 0;

  constructor(options: WriterOptions = {}) {
    this.flushIntervalMs = options.flushIntervalMs ?? 200;
    this.maxBatch = options.maxBatch ?? 512;
    this.maxQueued = options.maxQueued ?? 20_000;
    this.maxConnections = options.maxConnections ?? 8;
  }

  /** Queue an ended span for the store at `dbPath`. */
  enqueueSpan(dbPath: string, span: ReadableSpan): void {
    if (this.queued >= this.maxQueued) {
      this.dropped++;
      this.warnOnce('queue-full', `agentkit tracing: more than ${this.maxQueued} spans waiting to be written; dropping spans`);
      return;
    }
    this.queueFor(dbPath).spans.push(span);
    this.added();
  }

  /** Queue a guardrail event for the store at `dbPath` (never dropped for a full queue: events are the audit trail). */
  enqueueGuardrailEvent(dbPath: string, row: GuardrailEventRow): void {
    this.queueFor(dbPath).events.push(row);
    this.added();
  }

  /** Write everything queued (for one store, or all). Synchronous. */
  flush(dbPath?: string): void {
    const paths = dbPath === undefined ? [...this.queues.keys()] : this.queues.has(dbPath) ? [dbPath] : [];
    for (const file of paths) {
      const queue = this.queues.get(file)!;
      this.queues.delete(file);
      this.queued -= queue.spans.length + queue.events.length;
      this.write(file, queue);
    }
    if (this.queues.size === 0) this.cancelTimers();
  }

  /** Flush, then close every connection. The writer stays usable (connections reopen on demand). */
  close(): void {
    this.flush();
    for (const { db } of this.connections.values()) db.close();
    this.connections.clear();
  }

  /** Rows waiting to be written. */
  get pending(): number {
    return this.queued;
  }

  private queueFor(dbPath: string): Queue {
    let queue = this.queues.get(dbPath);
    if (!queue) {
      queue = { spans: [], events: [] };
      this.queues.set(dbPath, queue);
    }
    return queue;
  }

  private added(): void {
    this.queued++;
    if (this.queued >= this.maxBatch) {
      this.immediate ??= setImmediate(() => {
        this.immediate = undefined;
        this.flush();
      });
      this.immediate.unref();
      return;
    }
    if (!this.timer) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.flush();
      }, this.flushIntervalMs);
      this.timer.unref();
    }
  }

  private cancelTimers(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.immediate) clearImmediate(this.immediate);
    this.immediate = undefined;
  }

  private write(file: string, queue: Queue): void {
    try {
      const { db, statements } = this.connection(file);
      db.transaction(() => {
        for (const span of queue.spans) statements.span.run(spanRow(span));
        for (const event of queue.events) statements.event.run({ ...event, blocking: event.blocking ? 1 : 0 });
      })();
    } catch (error) {
      this.forget(file);
      this.warnOnce(file, `agentkit tracing: could not write ${queue.spans.length} span(s) and ${queue.events.length} guardrail event(s) to ${file}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  private connection(file: string): { db: Database.Database; statements: Statements } {
    const cached = this.connections.get(file);
    if (cached) {
      // Refresh its place in the LRU order.
      this.connections.delete(file);
      this.connections.set(file, cached);
      return cached;
    }
    const db = openLocalStore(file);
    const statements: Statements = {
      span: db.prepare(
        `INSERT OR REPLACE INTO spans (span_id, trace_id, parent_span_id, name, start_time, end_time, status, attributes, events)
         VALUES (@span_id, @trace_id, @parent_span_id, @name, @start_time, @end_time, @status, @attributes, @events)`,
      ),
      event: db.prepare(
        `INSERT INTO guardrail_events (event_id, trace_id, span_id, agent_name, guardrail_name, position, outcome, blocking, message, created_at)
         VALUES (@event_id, @trace_id, @span_id, @agent_name, @guardrail_name, @position, @outcome, @blocking, @message, @created_at)`,
      ),
    };
    this.connections.set(file, { db, statements });
    while (this.connections.size > this.maxConnections) {
      const [oldest] = this.connections.keys();
      this.forget(oldest!);
    }
    return { db, statements };
  }

  private forget(file: string): void {
    const cached = this.connections.get(file);
    this.connections.delete(file);
    try {
      cached?.db.close();
    } catch {
      // Closing a broken connection has nothing left to report.
    }
  }

  private warnOnce(key: string, message: string): void {
    if (this.warned.has(key)) return;
    this.warned.add(key);
    process.emitWarning(message, 'AgentkitTracingWarning');
  }
}
