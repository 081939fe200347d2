/** The clock spans are timed by. */
import type { TimeInput } from '@opentelemetry/api';
import { performance } from 'node:perf_hooks';

/**
 * Wall-clock time in milliseconds with sub-millisecond precision. Spans are timed with it at both ends: a
 * millisecond clock would give a parent and its first child (or two quick steps) the same start time.
 */
export function preciseNow(): number {
  return performance.timeOrigin + performance.now();
}

/**
 * Epoch milliseconds of an OpenTelemetry time input. As in the SDK, a number not after `performance.now()` is a
 * performance timestamp (milliseconds since the time origin), a larger one epoch milliseconds.
 */
export function epochMillis(time: TimeInput): number {
  if (typeof time === 'number') return time <= performance.now() ? performance.timeOrigin + time : time;
  if (time instanceof Date) return time.getTime();
  return time[0] * 1000 + time[1] / 1e6;
}
