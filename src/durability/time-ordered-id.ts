/**
 * Checkpoint ids that sort by creation time: UUID version 7 (RFC 9562), a 48-bit Unix-millisecond timestamp followed
 * by random bits, from the maintained `uuid` package. A random (v4) id sends every insert to a random page of each
 * index keyed by it (the primary key on both backends): in a group commit each row dirtied its own B-tree page, and
 * on Postgres the pages split half full. Time-ordered ids append to the right edge instead (decision 208).
 */
import { v7 } from 'uuid';

/** A v7 id for `now` (default: the current time); ids of one process also sort within a millisecond. */
export function timeOrderedId(now: number = Date.now()): string {
  return v7({ msecs: now });
}
