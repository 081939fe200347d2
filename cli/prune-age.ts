/** The age a prune command is given: `--older-than <duration>` or `--older-than-hours <n>`. */
import { UsageError } from 'clipanion';

const DURATION_UNITS: Record<string, number> = { d: 86_400_000, h: 3_600_000, m: 60_000, s: 1000 };

/** The age `--older-than` (a duration) or `--older-than-hours` gives, in ms; UsageError for none, both, or a bad value. */
export function pruneAge(olderThan: string | undefined, olderThanHours: string | undefined): number {
  if (olderThan !== undefined && olderThanHours !== undefined) throw new UsageError('give --older-than or --older-than-hours, not both');
  if (olderThan !== undefined) {
    const match = /^\s*(\d+(?:\.\d+)?)\s*([dhms])\s*$/.exec(olderThan);
    if (!match) throw new UsageError(`invalid value for --older-than: expected a duration such as 30d, 12h, 90m or 45s (got ${JSON.stringify(olderThan)})`);
    return Number(match[1]) * DURATION_UNITS[match[2]!]!;
  }
  if (olderThanHours === undefined) throw new UsageError('--older-than <duration> (or --older-than-hours <n>) is required');
  const hours = Number(olderThanHours);
  if (olderThanHours.trim() === '' || !Number.isFinite(hours) || hours < 0)
    throw new UsageError(`invalid value for --older-than-hours: expected a number of hours, 0 or more (got ${JSON.stringify(olderThanHours)})`);
  return hours * 3_600_000;
}
