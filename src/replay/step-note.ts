/**
 * What `replay show` says after a step's name when the step is where a run paused, resumed or had a decision applied
 * (docs/adr/0059): ` (paused: <reason>)`, ` (resumed from trace <id>)`, ` (decision: approved by alice (cli) at ...)`.
 */
import { DECISION_ATTR, decisionOfEvent, describeTracedDecision, INTERRUPT_EVENT, PAUSED, RESUMED_FROM, RUN_STATUS_ATTR } from '../tracing/run-status.js';
import type { Span } from '../types.js';

export function stepNote(span: Span): string {
  const notes: string[] = [];
  const from = span.attributes[RESUMED_FROM.traceId];
  if (typeof from === 'string') notes.push(`resumed from trace ${from}`);
  for (const event of span.events ?? []) {
    const decision = decisionOfEvent(event as { name: string; attributes?: Record<string, unknown> });
    if (decision) notes.push(`decision: ${describeTracedDecision(decision)}`);
  }
  if (span.attributes[RUN_STATUS_ATTR] === PAUSED) {
    const event = (span.events ?? []).find((e) => e.name === INTERRUPT_EVENT) as { attributes?: Record<string, unknown> } | undefined;
    const reason = event?.attributes?.[DECISION_ATTR.reason];
    notes.push(typeof reason === 'string' ? `paused: ${reason}` : 'paused');
  }
  return notes.length > 0 ? ` (${notes.join('; ')})` : '';
}
