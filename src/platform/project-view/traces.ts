/**
 * A Platform project's traces read as a trace store (issue 42): `agentkit ui --db <platform store> --project <p>`
 * shows what the Platform received under that project's keys (OTLP ingestion, `/v1/traces`), nothing of any other
 * project. The reads go through the Platform store (src/platform/server/, the owner of the `platform_*` tables);
 * the spans come back in the spec's `Span` shape. Read-only: deleting or pruning is refused, and runs recorded under
 * a caller's span are not looked up (the Platform keeps no caller index).
 */
import { ConfigError, NotFoundError } from '../../errors.js';
import { MAX_ID_CANDIDATES } from '../../ids/short-id.js';
import type { ProcessFilter } from '../../tracing/pg-trace-reader.js';
import { durationMs, hoursAgo } from '../../tracing/time.js';
import { TraceStore, type TraceStoreOptions } from '../../tracing/trace-store.js';
import type { Span, TraceSummary } from '../../types.js';
import type { IngestedSpan } from '../server/ingested-span.js';
import type { PlatformStore, PlatformTraceSummary } from '../server/store-types.js';

const TRACE_ID = /^[0-9a-f]{32}$/;

/** The trace store view of one project of a Platform store. `options` name the same store (its forks and favorites). */
export class ProjectTraceStore extends TraceStore {
  readonly project: string;
  readonly #platform: PlatformStore;

  constructor(platform: PlatformStore, project: string, options: TraceStoreOptions) {
    super(options);
    this.#platform = platform;
    this.project = project;
  }

  /** How messages name where this view reads: the project and the store. */
  get where(): string {
    return `project '${this.project}' of the Platform store ${this.#platform.label}`;
  }

  override async listTraces(options: { lastHours?: number; limit?: number } & ProcessFilter = {}): Promise<TraceSummary[]> {
    const lastHours = options.lastHours ?? 24;
    if (!(typeof lastHours === 'number' && Number.isFinite(lastHours) && lastHours > 0)) {
      throw new ConfigError(`lastHours must be a positive number of hours, got ${String(lastHours)}`);
    }
    if (options.process !== undefined) throw new ConfigError('filtering by process needs a trace store: the Platform keeps no process table');
    const since = hoursAgo(lastHours);
    return (await this.#platform.traceSummaries(this.project, { since, ...(options.limit !== undefined ? { limit: options.limit } : {}) })).map(summaryOf);
  }

  override async search(text: string): Promise<TraceSummary[]> {
    return (await this.#platform.traceSummaries(this.project, { since: '', text })).map(summaryOf);
  }

  override async spans(traceId: string): Promise<Span[]> {
    const spans = TRACE_ID.test(traceId) ? await this.#platform.traceSpans(this.project, traceId) : [];
    if (spans.length === 0) throw new NotFoundError('trace_not_found', `trace '${traceId}' not found in ${this.where}`);
    return spans.map(spanOf);
  }

  override async resolve(traceId: string): Promise<string> {
    return (await this.spans(traceId))[0]!.trace_id;
  }

  /** Trace ids that begin with `fragment` (a suffix is not looked up on the Platform). */
  override async matchIds(fragment: string, limit = MAX_ID_CANDIDATES): Promise<string[]> {
    return /^[0-9a-f]*$/.test(fragment) ? this.#platform.traceIdsWithPrefix(this.project, fragment, limit) : [];
  }

  override async runsCalledBy(_callerTraceId: string): Promise<TraceSummary[]> {
    return [];
  }

  override async deleteTrace(_traceId: string): Promise<string> {
    throw new ConfigError(`the traces of ${this.where} are read-only here`);
  }

  override async prune(_olderThan: number | Date): Promise<number> {
    throw new ConfigError(`the traces of ${this.where} are read-only here`);
  }
}

function summaryOf(row: PlatformTraceSummary): TraceSummary {
  return { ...row, span_count: Number(row.span_count), duration_ms: durationMs(row.start_time, row.end_time) };
}

/** An ingested span in the spec's `Span` shape (events keep their name, time and attributes). */
function spanOf(span: IngestedSpan): Span {
  return {
    span_id: span.span_id,
    trace_id: span.trace_id,
    parent_span_id: span.parent_span_id,
    name: span.name,
    start_time: span.start_time,
    end_time: span.end_time,
    status: span.status,
    attributes: span.attributes,
    events: span.events.map((event) => ({ name: event.name, timestamp: event.time, attributes: event.attributes })),
  };
}
