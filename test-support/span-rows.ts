/** Stored span rows for writer tests: what the batched writer hands a store for a span that ended. */
import { SpanStatusCode, type Attributes } from '@opentelemetry/api';
import { isSecretKey } from '../src/tracing/redact.js';
import { spanRowOf } from '../src/tracing/span-encoding.js';
import type { SpanRow } from '../src/tracing/span-record.js';

/** The row of span `id` (16 hex digits) named chain.s<id> in trace a...a, started at id microseconds past 2026, 1 us long. */
export function chainSpanRow(id: number, attributes: Attributes = { id }): SpanRow {
  return spanRowOf(
    id.toString(16).padStart(16, '0'),
    'a'.repeat(32),
    undefined,
    `chain.s${id}`,
    1_767_225_600_000_000 + id,
    1_767_225_600_000_001 + id,
    SpanStatusCode.OK,
    attributes,
    [],
    isSecretKey,
  );
}
