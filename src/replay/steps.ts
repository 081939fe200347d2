/**
 * A trace's spans as replay steps: start order, numbered from 0, payload attributes split into input and output
 * (the reference's key sets) with JSON strings decoded, every attribute kept as recorded.
 */
import { splitAttributes } from '../tracing/payload-keys.js';
import type { JsonObject } from '../json.js';
import type { ReplayStep, Span } from '../types.js';

/** The steps of `spans`, which must already be in start order. */
export function stepsOf(spans: readonly Span[]): ReplayStep[] {
  return spans.map((span, step) => stepOf(span, step));
}

/** One span as step number `step`. */
export function stepOf(span: Span, step: number): ReplayStep {
  const { input, output } = splitAttributes(span.attributes);
  return {
    step,
    span_name: span.name,
    span_id: span.span_id,
    input: input as JsonObject,
    output: output as JsonObject,
    attributes: span.attributes,
    timestamp: span.start_time,
  };
}
