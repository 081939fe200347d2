/**
 * Which agent a fork reruns: the `agent.<name>` span at the fork step, else the nearest one above it, else the first
 * one in the trace (the root when the root is an agent). That lets a fork rerun an agent nested in a Chain, Swarm
 * or Supervisor trace. The rerun's scope is that span and everything below it, in start order.
 */
import type { Span } from '../types.js';
import { ReplayError } from './errors.js';

export function isAgentSpan(span: Span): boolean {
  return span.name.startsWith('agent.');
}

/** The agent span a fork at `step` reruns. ReplayError when the trace has no agent span at all. */
export function agentSpanFor(spans: readonly Span[], step: number, traceId: string): Span {
  const byId = new Map(spans.map((s) => [s.span_id, s]));
  for (
    let span: Span | undefined = spans[step], hops = 0;
    span && hops <= spans.length;
    span = span.parent_span_id ? byId.get(span.parent_span_id) : undefined, hops++
  ) {
    if (isAgentSpan(span)) return span;
  }
  const first = spans.find(isAgentSpan);
  if (!first) throw new ReplayError(`trace '${traceId}' has no agent.<name> span to rerun (only agents are rerun; fork a chain with chain.fork)`);
  return first;
}

/** `root` and its descendants, in the order of `spans`. */
export function subtreeOf(spans: readonly Span[], root: Span): Span[] {
  const inside = new Set([root.span_id]);
  const out: Span[] = [];
  for (const span of spans) {
    if (span === root || (span.parent_span_id !== null && inside.has(span.parent_span_id))) {
      inside.add(span.span_id);
      out.push(span);
    }
  }
  return out;
}

/** The direct children of `parent` whose name starts with `prefix`, in order. */
export function childrenOf(spans: readonly Span[], parent: Span, prefix: string): Span[] {
  return spans.filter((s) => s.parent_span_id === parent.span_id && s.name.startsWith(prefix));
}
