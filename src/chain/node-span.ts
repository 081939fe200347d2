/**
 * The span of one node run, `chain.node.<node_id>`, a child of the chain's root span: the state the node started
 * from as `chain.node.input` and what it returned as `chain.node.output` (payloads), OK when it returned, ERROR when
 * it threw, OK with `agentkit.status = paused` and an `agentkit.interrupt` event when it paused; a resumed node records
 * the decision it re-ran with (`agentkit.decision`). Agents a node runs nest under it (docs/adr/0059).
 */
import { SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import type { RecordedDecision } from '../durability/decision.js';
import type { PendingInterruptSummary, Resume } from '../types.js';
import { payloadsEnabled } from '../tracing/attributes.js';
import { jsonAttribute } from '../tracing/json-attribute.js';
import { EXECUTION_ID_ATTR, markPaused, recordDecision } from '../tracing/run-status.js';

export interface NodeSpanInfo {
  chainName: string;
  nodeId: string;
  index: number;
  iteration: number;
  executionId: string;
  input: unknown;
  resume: { value: Resume; decision?: RecordedDecision | null; reason?: string | null } | null;
}

type Outcome = { kind: 'output'; value: unknown } | { kind: 'paused'; pending: PendingInterruptSummary };

/** Run `fn` (one node) inside its `chain.node.<node_id>` span. */
export function inNodeSpan<T extends Outcome>(info: NodeSpanInfo, fn: () => Promise<T>): Promise<T> {
  const payloads = payloadsEnabled();
  const attributes: Record<string, string | number> = {
    'chain.name': info.chainName,
    'chain.node.id': info.nodeId,
    'chain.node.index': info.index,
    'chain.node.iteration': info.iteration,
    [EXECUTION_ID_ATTR]: info.executionId,
  };
  if (payloads && info.input !== undefined) attributes['chain.node.input'] = jsonAttribute(info.input);
  return trace.getTracer('agentkit').startActiveSpan(`chain.node.${info.nodeId}`, { attributes }, async (span: Span) => {
    try {
      if (info.resume) {
        const d = info.resume.decision;
        recordDecision(
          span,
          {
            approved: info.resume.value.approved,
            metadata: info.resume.value.metadata,
            decidedBy: d?.decidedBy?.principal ?? null,
            surface: d?.decidedBy?.surface ?? null,
            decidedAt: d?.decidedAt ?? null,
            reason: d?.reason ?? null,
            interrupt: info.resume.reason ?? null,
          },
          payloads,
        );
      }
      const outcome = await fn();
      if (outcome.kind === 'paused') markPaused(span, outcome.pending.reason, outcome.pending.context, payloads);
      else if (payloads && outcome.value !== undefined) span.setAttribute('chain.node.output', jsonAttribute(outcome.value));
      span.setStatus({ code: SpanStatusCode.OK });
      return outcome;
    } catch (error) {
      span.recordException(error instanceof Error ? error : String(error));
      span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
      throw error;
    } finally {
      span.end();
    }
  });
}
