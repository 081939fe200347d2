/**
 * How a trace says a run paused for a person and how the decision came back (issue 48, docs/adr/0059). A paused run,
 * chain node or tool call carries `agentkit.status = paused` (its span status stays an OpenTelemetry status: a pause
 * is not a failure) and an `agentkit.interrupt` event (the reason, and the context as a payload). The span of the
 * step a decision resumed carries an `agentkit.decision` event: the Resume value (its metadata as a payload), who
 * decided, through which surface, when and why. A resume's root span links to the paused run's root (an OpenTelemetry
 * link at span start, kept in the store as `agentkit.resumed_from.*` attributes, since stored spans have no links).
 */
import type { Link, Span } from '@opentelemetry/api';
type JsonRecord = Record<string, unknown>;

/** The run-status attribute; `paused` is the only value written (a finished run's status is its span status). */
export const RUN_STATUS_ATTR = 'agentkit.status';
export const PAUSED = 'paused';

/** How a stored root's attributes (compact JSON text, both engines) say the run paused, or that it resumed trace `id`. */
export const PAUSED_PATTERN = `%"${RUN_STATUS_ATTR}":"${PAUSED}"%`;
export function resumedPattern(traceId: string): string {
  return `%"${RESUMED_FROM.traceId}":"${traceId}"%`;
}

/** The execution id on a chain's root and node spans (an agent's root has `agent.execution_id`). */
export const EXECUTION_ID_ATTR = 'agentkit.execution_id';

/** Where a resume's root span keeps its link to the paused run's root. */
export const RESUMED_FROM = { traceId: 'agentkit.resumed_from.trace_id', spanId: 'agentkit.resumed_from.span_id' } as const;

export const INTERRUPT_EVENT = 'agentkit.interrupt';
export const DECISION_EVENT = 'agentkit.decision';

/** Attribute keys of the two events. `metadata` and `context` are payloads: absent with AGENTKIT_TRACE_PAYLOADS=0. */
export const DECISION_ATTR = {
  reason: 'agentkit.interrupt.reason',
  context: 'agentkit.interrupt.context',
  approved: 'agentkit.decision.approved',
  metadata: 'agentkit.decision.metadata',
  decidedBy: 'agentkit.decision.decided_by',
  surface: 'agentkit.decision.surface',
  decidedAt: 'agentkit.decision.decided_at',
  why: 'agentkit.decision.reason',
} as const;

/** A decision as a trace records it. */
export interface TracedDecision {
  approved: boolean;
  metadata: JsonRecord;
  decidedBy: string | null;
  surface: string | null;
  decidedAt: string | null;
  reason: string | null;
  /** The interrupt reason it answered. */
  interrupt: string | null;
}

/** Mark `span` paused by `interrupt(reason, context)`. */
export function markPaused(span: Span, reason: string, context: JsonRecord, payloads: boolean): void {
  if (!span.isRecording()) return;
  span.setAttribute(RUN_STATUS_ATTR, PAUSED);
  span.addEvent(
    INTERRUPT_EVENT,
    payloads ? { [DECISION_ATTR.reason]: reason, [DECISION_ATTR.context]: JSON.stringify(context) } : { [DECISION_ATTR.reason]: reason },
  );
}

/** Record on `span` the decision its step was resumed with. */
export function recordDecision(span: Span, decision: TracedDecision, payloads: boolean): void {
  if (!span.isRecording()) return;
  const attributes: Record<string, string | boolean> = { [DECISION_ATTR.approved]: decision.approved };
  if (payloads) attributes[DECISION_ATTR.metadata] = JSON.stringify(decision.metadata);
  if (decision.decidedBy !== null) attributes[DECISION_ATTR.decidedBy] = decision.decidedBy;
  if (decision.surface !== null) attributes[DECISION_ATTR.surface] = decision.surface;
  if (decision.decidedAt !== null) attributes[DECISION_ATTR.decidedAt] = decision.decidedAt;
  if (decision.reason !== null) attributes[DECISION_ATTR.why] = decision.reason;
  if (decision.interrupt !== null) attributes[DECISION_ATTR.reason] = decision.interrupt;
  span.addEvent(DECISION_EVENT, attributes);
}

/** The link (and attributes) a resume's root span starts with, pointing at the paused run's root. */
export function resumeLink(traceId: string, spanId: string): { links: Link[]; attributes: Record<string, string> } {
  return {
    links: [{ context: { traceId, spanId, traceFlags: 1 }, attributes: { 'agentkit.link.kind': 'resumed_from' } }],
    attributes: { [RESUMED_FROM.traceId]: traceId, [RESUMED_FROM.spanId]: spanId },
  };
}

/** The decision an `agentkit.decision` event records, or null for any other event. */
export function decisionOfEvent(event: { name: string; attributes?: Record<string, unknown> }): TracedDecision | null {
  if (event.name !== DECISION_EVENT) return null;
  const a = event.attributes ?? {};
  const text = (key: string) => (typeof a[key] === 'string' ? (a[key] as string) : null);
  let metadata: JsonRecord = {};
  try {
    const parsed = typeof a[DECISION_ATTR.metadata] === 'string' ? JSON.parse(a[DECISION_ATTR.metadata] as string) : {};
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) metadata = parsed as JsonRecord;
  } catch {
    // A masked or cut value: the decision stands without its metadata.
  }
  return {
    approved: a[DECISION_ATTR.approved] === true || a[DECISION_ATTR.approved] === 'true',
    metadata,
    decidedBy: text(DECISION_ATTR.decidedBy),
    surface: text(DECISION_ATTR.surface),
    decidedAt: text(DECISION_ATTR.decidedAt),
    reason: text(DECISION_ATTR.why),
    interrupt: text(DECISION_ATTR.reason),
  };
}

/** `approved by alice (cli) at <time>`: a traced decision in words. */
export function describeTracedDecision(decision: TracedDecision): string {
  const verdict = decision.approved ? 'approved' : 'declined';
  const who = decision.decidedBy ? ` by ${decision.decidedBy}${decision.surface ? ` (${decision.surface})` : ''}` : '';
  const when = decision.decidedAt ? ` at ${decision.decidedAt}` : '';
  return `${verdict}${who}${when}`;
}
