/** A `spans` row as stored, and the conversions into its formats: timestamps and status names. */
import { SpanStatusCode, type HrTime } from '@opentelemetry/api';
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
}

/** Whole microseconds since the epoch of an HrTime (exact: no floating-point division). */
export function hrTimeToMicros([seconds, nanos]: HrTime): number {
  return seconds * 1_000_000 + Math.floor(nanos / 1000);
}

/** Whole microseconds since the epoch of a time in (fractional) epoch milliseconds. */
export function millisToMicros(millis: number): number {
  return Math.floor(millis * 1000);
}

/** Epoch microseconds as ISO-8601 UTC with six fraction digits (the store's timestamp format). */
export function microsToIso(micros: number): string {
  const millis = Math.floor(micros / 1000);
  const rest = micros - millis * 1000;
  const iso = new Date(millis).toISOString();
  return `${iso.slice(0, -1)}${rest < 10 ? '00' : rest < 100 ? '0' : ''}${rest}Z`;
}

/** An HrTime as ISO-8601 UTC with microseconds (the store's timestamp format). */
export function hrTimeToIso(time: HrTime): string {
  return microsToIso(hrTimeToMicros(time));
}

/** The status code name: `OK`, `ERROR` or `UNSET`. */
export function statusName(code: SpanStatusCode): SpanStatus {
  return code === SpanStatusCode.OK ? 'OK' : code === SpanStatusCode.ERROR ? 'ERROR' : 'UNSET';
}
