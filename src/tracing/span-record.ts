/** A `spans` row as stored, and the conversions into its formats: timestamps and status names. */
import type { HrTime, SpanStatusCode } from '@opentelemetry/api';
import type { SpanStatus } from '../types.js';

/** A `spans` row as stored. */
export interface SpanRow {
  span_id: string;
  trace_id: string;
  parent_span_id: string | null;
  name: string;
  start_time: string;
  end_time: string | null;
  status: SpanStatus;
  attributes: string;
  events: string;
  /** The caller's trace id on the root row of a run recorded under a remote parent (local.db v31); null otherwise. */
  caller_trace_id?: string | null;
}

/** Whole microseconds since the epoch of an HrTime (exact: no floating-point division). */
export function hrTimeToMicros([seconds, nanos]: HrTime): number {
  return seconds * 1_000_000 + Math.floor(nanos / 1000);
}

/** Whole microseconds since the epoch of a time in (fractional) epoch milliseconds. */
export function millisToMicros(millis: number): number {
  return Math.floor(millis * 1000);
}

/** The last whole second formatted: consecutive timestamps mostly share it, and Date formatting is the costly part. */
let lastSecond = NaN;
let lastSecondIso = '';

/** Epoch microseconds as ISO-8601 UTC with six fraction digits (the store's timestamp format). */
export function microsToIso(micros: number): string {
  const second = Math.floor(micros / 1_000_000);
  if (second !== lastSecond) {
    // 'YYYY-MM-DDTHH:MM:SS.' (the milliseconds of toISOString are replaced by the six digits below).
    lastSecondIso = new Date(second * 1000).toISOString().slice(0, -4);
    lastSecond = second;
  }
  const fraction = String(micros - second * 1_000_000);
  return `${lastSecondIso}${'000000'.slice(fraction.length)}${fraction}Z`;
}

/** An HrTime as ISO-8601 UTC with microseconds (the store's timestamp format). */
export function hrTimeToIso(time: HrTime): string {
  return microsToIso(hrTimeToMicros(time));
}

/** The status code name: `OK`, `ERROR` or `UNSET`. */
export function statusName(code: SpanStatusCode): SpanStatus {
  // OpenTelemetry's SpanStatusCode values (UNSET 0, OK 1, ERROR 2) as literals: reading spans back must not load
  // the OpenTelemetry API (it costs the CLI's `traces list` a tenth of its start-up).
  return code === 1 ? 'OK' : code === 2 ? 'ERROR' : 'UNSET';
}
