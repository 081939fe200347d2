/**
 * An execution's traces as one replay (docs/adr/0059): a run that paused for a person and was resumed left one trace
 * per leg, each root carrying the execution id (`agent.execution_id`, `chain.execution_id`). Given any of them (or
 * the execution id) the replay reads them all, oldest first, and numbers their spans as one sequence. A resume's root
 * (the same agent or chain again) is a continuation of the first root: recorded calls are read under all of them.
 */
import { NotFoundError } from '../errors.js';
import type { TraceStore } from '../tracing/trace-store.js';
import { RESUMED_FROM, RUN_STATUS_ATTR, PAUSED } from '../tracing/run-status.js';
import type { Span, Trace } from '../types.js';
import type { ReplayTrace } from './trace-data.js';

const EXECUTION_KEYS = ['agent.execution_id', 'chain.execution_id', 'agentkit.execution_id'] as const;

/** The root span of a list of one trace's spans (no parent inside it). */
export function rootOf(spans: readonly Span[]): Span | undefined {
  const ids = new Set(spans.map((s) => `${s.trace_id}/${s.span_id}`));
  return spans.find((s) => s.parent_span_id === null || !ids.has(`${s.trace_id}/${s.parent_span_id}`));
}

/** The execution id a root span records, or null. */
export function executionIdOf(span: Span | undefined): string | null {
  if (!span) return null;
  for (const key of EXECUTION_KEYS) {
    const value = span.attributes[key];
    if (typeof value === 'string' && value !== '') return value;
  }
  return null;
}

/** The traces of `executionId` in `store`, oldest first (empty when none). */
export async function executionTraces(store: TraceStore, executionId: string): Promise<Trace[]> {
  const found: Trace[] = [];
  for (const summary of await store.search(executionId)) {
    const trace = await store.getTrace(summary.trace_id);
    if (executionIdOf(rootOf(trace.spans)) === executionId) found.push(trace);
  }
  return found.sort((a, b) => (a.start_time < b.start_time ? -1 : a.start_time > b.start_time ? 1 : 0));
}

/** NotFoundError for an execution with no trace in the store. */
export function executionNotFound(executionId: string, label: string): NotFoundError {
  return new NotFoundError('trace_not_found', `Execution '${executionId}' has no trace in ${label}`);
}

/** The traces of one execution (oldest first) as one ReplayTrace named by `traceId`. */
export function mergedTrace(traces: readonly Trace[], traceId: string, executionId: string): ReplayTrace {
  const first = traces[0]!;
  const last = traces.at(-1)!;
  const lastRoot = rootOf(last.spans);
  const status = lastRoot?.attributes[RUN_STATUS_ATTR] === PAUSED ? 'PAUSED' : last.status;
  return {
    trace_id: traceId,
    name: first.name,
    status,
    start_time: first.start_time,
    end_time: last.end_time,
    spans: traces.flatMap((t) => t.spans),
    trace_ids: traces.map((t) => t.trace_id),
    execution_id: executionId,
  };
}

/** True when a root paused or is a resume: its execution may have other traces. */
export function hasLegs(root: Span): boolean {
  return root.attributes[RUN_STATUS_ATTR] === PAUSED || isContinuationRoot(root);
}

/** True when `span` is the root of a resume (a continuation of an earlier root of its execution). */
export function isContinuationRoot(span: Span): boolean {
  return typeof span.attributes[RESUMED_FROM.traceId] === 'string';
}

/**
 * `agentSpan` and the later roots of the same execution with its name: the legs of one run. The first of them is the
 * run's own start (it holds the reconstruction attributes).
 */
export function runLegs(spans: readonly Span[], agentSpan: Span): Span[] {
  const execution = executionIdOf(agentSpan);
  if (execution === null) return [agentSpan];
  const legs = spans.filter(
    (s) => s.name === agentSpan.name && executionIdOf(s) === execution && (s === agentSpan || s.parent_span_id === null || isContinuationRoot(s)),
  );
  return legs.length > 0 ? legs : [agentSpan];
}

/**
 * The spans of an execution read as one run: a resume's root and the paused call it answered are left out, so the
 * list lines up with a rerun that was not interrupted (what `compare` reads).
 */
export function asOneRun(spans: readonly Span[]): Span[] {
  const traces = new Set(spans.map((s) => s.trace_id));
  if (traces.size < 2) return [...spans];
  const lastTrace = spans.at(-1)!.trace_id;
  return spans.filter((s) => !isContinuationRoot(s) && !(s.attributes[RUN_STATUS_ATTR] === PAUSED && s.parent_span_id !== null && s.trace_id !== lastTrace));
}
