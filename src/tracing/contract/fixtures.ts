/** Rows shared by the trace-store contract cases: fresh ids per case, times relative to now. */
import { randomBytes } from 'node:crypto';
import type { SpanRow } from '../span-record.js';

/** A fresh 32-hex trace id. */
export function newTraceId(): string {
  return randomBytes(16).toString('hex');
}

/** A fresh 16-hex span id. */
export function newSpanId(): string {
  return randomBytes(8).toString('hex');
}

/** The store's time format (microseconds, `Z`) of `ms` milliseconds ago. */
export function agoIso(ms: number): string {
  return new Date(Date.now() - ms).toISOString().replace('Z', '000Z');
}

/** A span row: OK, ended 1 ms after it started, no attributes unless given. */
export function spanRow(traceId: string, name: string, startAgoMs: number, extra: Partial<SpanRow> = {}): SpanRow {
  return {
    trace_id: traceId,
    span_id: newSpanId(),
    parent_span_id: null,
    name,
    start_time: agoIso(startAgoMs),
    end_time: agoIso(startAgoMs - 1),
    status: 'OK',
    attributes: '{}',
    events: '[]',
    caller_trace_id: null,
    ...extra,
  };
}

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
