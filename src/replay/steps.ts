/**
 * A trace's spans as replay steps: start order, numbered from 0, payload attributes split into input and output
 * (the reference's key sets) with JSON strings decoded, every attribute kept as recorded.
 */
import { decodeValue, INPUT_KEYS, OUTPUT_KEYS } from '../tracing/payload-keys.js';
import type { JsonObject } from '../json.js';
import type { ReplayStep, Span } from '../types.js';

/** The steps of `spans`, which must already be in start order. */
export function stepsOf(spans: readonly Span[]): ReplayStep[] {
  return spans.map((span, step) => stepOf(span, step));
}

/** One span as step number `step`. */
export function stepOf(span: Span, step: number): ReplayStep {
  // One pass over the keys, building only the two payload objects (no copy of the rest: `attributes` is shared).
  const input: Record<string, unknown> = {};
  const output: Record<string, unknown> = {};
  const attributes = span.attributes;
  for (const key in attributes) {
    if (INPUT_KEYS.has(key)) input[key] = decodeValue(attributes[key]);
    else if (OUTPUT_KEYS.has(key)) output[key] = decodeValue(attributes[key]);
  }
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
