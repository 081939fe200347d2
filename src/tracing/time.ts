/** Arithmetic on the store's ISO-8601 timestamps, at microsecond precision. */
import { ConfigError } from '../errors.js';

/** Microseconds since the epoch of an ISO-8601 UTC timestamp (any number of fraction digits). */
export function isoToMicros(iso: string): number {
  const match = /^(.*T\d\d:\d\d:\d\d)(?:\.(\d+))?Z$/.exec(iso);
  if (!match) return Date.parse(iso) * 1000;
  const whole = Date.parse(`${match[1]}Z`);
  const fraction = (match[2] ?? '').padEnd(6, '0').slice(0, 6);
  return whole * 1000 + Number(fraction);
}

/** Milliseconds between two timestamps (null when the end is unknown). */
export function durationMs(start: string, end: string | null): number | null {
  if (end === null) return null;
  return (isoToMicros(end) - isoToMicros(start)) / 1000;
}

/** The timestamp `hours` before `now`, in the store's format. */
export function hoursAgo(hours: number, now = Date.now()): string {
  return new Date(now - hours * 3_600_000).toISOString().replace('Z', '000Z');
}

/**
 * The cutoff of a `prune(olderThan)` (an age in milliseconds, or a Date) in the store's format. Throws ConfigError for
 * anything else.
 */
export function pruneCutoff(olderThan: number | Date): string {
  const cutoff =
    olderThan instanceof Date
      ? olderThan
      : typeof olderThan === 'number' && Number.isFinite(olderThan) && olderThan >= 0
        ? new Date(Date.now() - olderThan)
        : null;
  if (cutoff === null || Number.isNaN(cutoff.getTime()))
    throw new ConfigError(`olderThan must be an age in milliseconds (>= 0) or a valid Date, not ${String(olderThan)}`);
  return cutoff.toISOString().replace('Z', '000Z');
}
