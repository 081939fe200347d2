/**
 * Checkpoint ids that sort by creation time: UUID version 7 (RFC 9562), a 48-bit Unix-millisecond timestamp followed
 * by random bits, from the maintained `uuid` package. A random (v4) id sends every insert to a random page of each
 * index keyed by it (the primary key on both backends): in a group commit each row dirtied its own B-tree page, and
 * on Postgres the pages split half full. Time-ordered ids append to the right edge instead (decision 208).
 */
import { v7 } from 'uuid';

/**
 * A v7 id for the current time; ids of one process also sort within a millisecond (the library's counter after the
 * timestamp: same millisecond, counter + 1), and keep sorting if the clock steps back. `now` (tests) pins the
 * timestamp instead: such ids are ordered by it alone, random within one millisecond.
 */
export function timeOrderedId(now?: number): string {
  // `v7()` without options is the only call that keeps the counter: given `msecs`, the counter bits are random.
  return now === undefined ? v7() : v7({ msecs: now });
}
