/**
 * The batched writer behind the span processor. Ended spans (made into their rows as they end, see
 * span-encoding.ts) and guardrail events are queued per store and written in one transaction per store
 * (store-writer.ts) on a short unref'd timer (so an idle process can exit), as soon as a batch fills, on `flush()`, and
 * at process exit. They are written on the calling thread: a writer thread measured no faster with a model's real
 * latency (ADR 0034, bench/README.md). Nothing here throws into a run: a store that cannot be written is reported as a
 * process warning and its batch dropped; rows for a store another connection keeps locked are held (without waiting
 * for the lock, so the event loop the runs share never blocks on it) and written later, at the next hand-over, which
 * the timer makes while any are held. Postgres stores get their rows through their sink (pg-span-sink.ts).
 */
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import { LeanSpan } from './lean-span.js';
import { isSecretKeyCached } from './redact.js';
import { leanSpanRow, readableSpanRow, type StoredIdentity } from './span-encoding.js';
import type { SpanRow } from './span-record.js';
import { StoreWriter, type GuardrailEventRow, type StoreBatch } from './store-writer.js';
import { isStoreUrl, parseStoreValue } from '../config/store-value.js';
import { PgSpanSink } from './pg-span-sink.js';

export type { GuardrailEventRow } from './store-writer.js';

export interface WriterOptions {
  /** Delay before queued rows are written (default 100 ms). */
  flushIntervalMs?: number;
  /** Rows queued (all stores) that are written at once (default 2048). */
  maxBatch?: number;
  /**
   * Spans waiting to be written (queued here, or held for a locked store) beyond which new spans are dropped and
   * counted (default 20 000). Once dropping, spans are taken again below half of it.
   */
  maxQueued?: number;
  /** How long a write waits for another connection's lock before its rows are held for later (default 5000 ms). */
  busyTimeoutMs?: number;
}

interface Queue {
  /** The spans' rows, made as they end (span-encoding.ts), not yet masked. */
  spans: SpanRow[];
  events: GuardrailEventRow[];
}

const warn = (message: string) => process.emitWarning(message, 'AgentkitTracingWarning');

export class BatchedTraceWriter {
  private queues = new Map<string, Queue>();
  private readonly flushIntervalMs: number;
  private readonly maxBatch: number;
  private readonly maxQueued: number;
  /** The stores' busy timeout when one was given. */
  private readonly waits: { busyTimeoutMs?: number };
  /** Writes the local (SQLite) stores' batches; made on the first one. */
  private local: StoreWriter | undefined;
  private queued = 0;
  /** Spans dropped since the current dropping began (0: not dropping). */
  private dropping = 0;
  private timer: NodeJS.Timeout | undefined;
  /** Spans dropped because the queue was full. */
  dropped = 0;
  /** The sink of each Postgres destination (its URL with `schema`), made on its first spans. */
  private readonly pgSinks = new Map<string, PgSpanSink>();
  /** Destinations that name no store (warned about once). */
  private readonly badDestinations = new Set<string>();

  constructor(options: WriterOptions = {}) {
    this.flushIntervalMs = options.flushIntervalMs ?? 100;
    // Large batches: each transaction has a fixed cost; the timer bounds the wait of a quiet process.
    this.maxBatch = options.maxBatch ?? 2048;
    this.maxQueued = options.maxQueued ?? 20_000;
    this.waits = options.busyTimeoutMs === undefined ? {} : { busyTimeoutMs: options.busyTimeoutMs };
  }

  /**
   * Queue an ended span for the store at `dbPath` (its fields are copied now: the span may be dropped after). An SDK
   * span is stored as `stored` says (its record's trace id; default its own), a lean span as it says itself.
   */
  enqueueSpan(dbPath: string, span: LeanSpan | ReadableSpan, stored?: StoredIdentity): void {
    if (this.full()) return this.drop();
    if (this.dropping > 0) {
      warn(`agentkit tracing: spans are written again; ${this.dropping} span(s) were dropped while too many waited`);
      this.dropping = 0;
    }
    const queue = this.queueFor(dbPath);
    queue.spans.push(span instanceof LeanSpan ? leanSpanRow(span, isSecretKeyCached) : readableSpanRow(span, isSecretKeyCached, stored));
    this.added();
  }

  /** True when too many spans wait: queued here, or held for a locked store. */
  private full(): boolean {
    const limit = this.dropping > 0 ? this.maxQueued >> 1 : this.maxQueued;
    return this.queued + (this.local?.heldSpanCount ?? 0) >= limit;
  }

  private drop(): void {
    this.dropped++;
    if (this.dropping++ === 0)
      warn(
        `agentkit tracing: more than ${this.maxQueued} spans waiting to be written (a store locked, or the writer behind); dropping new spans until half of them are written`,
      );
  }

  /** Queue a guardrail event for the store at `dbPath` (never dropped for a full queue: events are the audit trail). */
  enqueueGuardrailEvent(dbPath: string, row: GuardrailEventRow): void {
    this.queueFor(dbPath).events.push(row);
    this.added();
  }

  /** Write everything queued so far (rows held for a locked store stay held). Synchronous. */
  flush(): void {
    this.handOver();
  }

  /** Write everything queued so far; resolves once it is in the stores (Postgres ones: one attempt each). */
  async flushAsync(): Promise<void> {
    this.handOver();
    await Promise.all([...this.pgSinks.values()].map((sink) => sink.flush()));
  }

  /** Hand over what is queued, then count the spans still waiting for a Postgres store (0 without one). */
  pendingPostgres(): number {
    this.handOver();
    let pending = 0;
    for (const sink of this.pgSinks.values()) pending += sink.pending;
    return pending;
  }

  /** The sink of a Postgres destination (made on first use); undefined, with a warning, for a value naming no store. */
  private pgSinkFor(destination: string): PgSpanSink | undefined {
    let sink = this.pgSinks.get(destination);
    if (sink || this.badDestinations.has(destination)) return sink;
    try {
      const ref = parseStoreValue(destination);
      if (ref.engine !== 'postgres') return undefined;
      sink = new PgSpanSink(ref, warn, { maxQueued: this.maxQueued });
    } catch (error) {
      this.badDestinations.add(destination);
      warn(`agentkit tracing: spans dropped: ${error instanceof Error ? error.message : String(error)}`);
      return undefined;
    }
    this.pgSinks.set(destination, sink);
    return sink;
  }

  /** Spans a Postgres store's sink dropped (its queue full while the database did not answer). */
  get pgDropped(): number {
    let dropped = 0;
    for (const sink of this.pgSinks.values()) dropped += sink.dropped;
    return dropped;
  }

  /** Flush, then close every connection. The writer stays usable (it opens them again on demand). */
  close(): void {
    void this.closeAsync();
  }

  /**
   * Close, and wait until each Postgres sink has written what waits (one attempt) and given its pool back: a process
   * that stops right after a run (agent serve on SIGTERM) must not exit with that run's spans still queued.
   */
  async closeAsync(): Promise<void> {
    this.flush();
    this.local?.close();
    this.local = undefined;
    const sinks = [...this.pgSinks.values()];
    this.pgSinks.clear();
    await Promise.all(sinks.map((sink) => sink.close().catch(() => undefined)));
  }

  /** Rows queued and not yet handed over. */
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
    // At once, not on a later tick: code that never yields to the event loop (a run on a model that answers
    // without I/O) would otherwise keep every span queued until it awaits something real.
    if (this.queued >= this.maxBatch) {
      this.handOver();
      return;
    }
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      this.handOver();
    }, this.flushIntervalMs).unref();
  }

  /** Move the queues out and write them (Postgres stores: give them to their sinks). */
  private handOver(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.queued === 0 && this.local?.holding !== true) return;
    const batches: StoreBatch[] = [];
    // The queues stay for the next batch: most processes write one store.
    for (const [dbPath, queue] of this.queues) {
      if (queue.spans.length === 0 && queue.events.length === 0) continue;
      const spans = queue.spans;
      queue.spans = [];
      if (isStoreUrl(dbPath)) {
        // A Postgres store: rows go to its sink (async, bounded, never in a run's way). Guardrail events are kept in
        // SQLite stores only for now (issue 38 leaves them to the guardrail family's Postgres tables).
        // Masked with the store's keyed hash by the sink, which reads the key from the store.
        if (spans.length > 0) this.pgSinkFor(dbPath)?.enqueueUnmasked(spans);
        queue.events = [];
        continue;
      }
      batches.push({ dbPath, spans, events: queue.events });
      queue.events = [];
    }
    if (this.queues.size > 64) this.queues = new Map();
    this.queued = 0;
    // A retry of held rows here must not block the event loop the runs share: it does not wait for the lock.
    this.local ??= new StoreWriter(warn, { retryWaitMs: 0, ...this.waits });
    if (batches.length > 0) this.local.write(batches);
    this.local.retryHeld(new Set(batches.map((batch) => batch.dbPath)));
    if (this.local.holding) this.timer = setTimeout(() => this.handOver(), this.flushIntervalMs).unref();
  }
}
