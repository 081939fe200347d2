/**
 * What a resume's root span says about the run it continues (docs/adr/0059): the decision it resumes with, as the
 * trace records it, and the link to the paused run's root span (the execution's previous trace, read from its rows;
 * the root's span id from the store that trace went to).
 */
import type { Checkpointer } from '../durability/checkpointer.js';
import type { RecordedDecision } from '../durability/decision.js';
import { executionTraceIds } from '../durability/run-end.js';
import { resumeLink, type TracedDecision } from '../tracing/run-status.js';
import { TraceStore } from '../tracing/trace-store.js';
import type { Resume } from '../types.js';

/** The decision a resumed call records: the Resume value and, when the claim recorded them, who decided and when. */
export function tracedDecision(value: Resume, decision: RecordedDecision | null | undefined, interrupt: string | null): TracedDecision {
  return {
    approved: value.approved,
    metadata: value.metadata,
    decidedBy: decision?.decidedBy?.principal ?? null,
    surface: decision?.decidedBy?.surface ?? null,
    decidedAt: decision?.decidedAt ?? null,
    reason: decision?.reason ?? null,
    interrupt,
  };
}

/**
 * The link to the execution's latest earlier trace's root span, or null when the execution has no earlier trace or
 * its spans cannot be read (the resume then runs unlinked: a link is a pointer, never a reason to fail a resume).
 */
export async function resumedFromLink(checkpointer: Checkpointer, executionId: string, dbPath: string): Promise<ReturnType<typeof resumeLink> | null> {
  try {
    const traceId = executionTraceIds(await checkpointer.list(executionId, { limit: 100_000 })).at(-1);
    if (!traceId) return null;
    const store = new TraceStore({ dbPath });
    try {
      const spans = await store.spans(traceId);
      const ids = new Set(spans.map((s) => s.span_id));
      const root = spans.find((s) => s.parent_span_id === null || !ids.has(s.parent_span_id));
      return root ? resumeLink(traceId, root.span_id) : null;
    } finally {
      await store.close();
    }
  } catch {
    return null;
  }
}
