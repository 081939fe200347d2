/**
 * Checkpoint ids that sort by creation time: UUID version 7 (RFC 9562), a 48-bit Unix-millisecond timestamp followed
 * by random bits. A random (v4) id sends every insert to a random page of each index keyed by it (the primary key on
 * both backends): in a group commit each row dirtied its own B-tree page, and on Postgres the pages split half full.
 * Time-ordered ids append to the right edge instead (ADR 0030).
 *
 * Layout (the same as the `uuid` package's v7, which made these ids until agentkit made its own, so old and new ids sort
 * together): 48 bits of milliseconds; the version nibble 7; a 32-bit counter spread over the next 32 bits around the
 * variant bits (`10`); 42 random bits. At a new millisecond the counter starts at a random 31-bit value; within one
 * millisecond, or when the clock steps back, it counts up from the last id (the timestamp moving on by one when it
 * wraps), so the ids of one process sort in the order they were made.
 *
 * Why not the `uuid` package (ADR 0030): it refills a 256-byte random pool every 15 ids, and each
 * `randomFillSync` creates an async resource that every async hook sees; in a served agent's profile the ids took
 * 2-3% of the request thread. Random bytes here come from a 4 KiB pool.
 */
import { randomFillSync } from 'node:crypto';
import { BYTE_HEX as HEX } from '../hex.js';

const POOL_BYTES = 4096;
/** Random bytes an id takes from the pool: 4 for a new millisecond's counter, 6 for the random tail. */
const ID_RANDOM_BYTES = 10;

const pool = new Uint8Array(POOL_BYTES);
let poolAt = POOL_BYTES;

/** The offset of `ID_RANDOM_BYTES` fresh random bytes in `pool`. */
function randomBytes(): number {
  if (poolAt + ID_RANDOM_BYTES > POOL_BYTES) {
    randomFillSync(pool);
    poolAt = 0;
  }
  const at = poolAt;
  poolAt += ID_RANDOM_BYTES;
  return at;
}

/** A random 31-bit counter start from the pool at `at`. */
function counterStart(at: number): number {
  return ((pool[at]! & 0x7f) << 24) | (pool[at + 1]! << 16) | (pool[at + 2]! << 8) | pool[at + 3]!;
}

/** The id of millisecond `ms`, counter `counter`, with the random tail at `pool[at + 4 ..]`. */
function format(ms: number, counter: number, at: number): string {
  const high = Math.floor(ms / 0x100000000);
  const low = ms >>> 0;
  return (
    HEX[(high >>> 8) & 0xff]! +
    HEX[high & 0xff]! +
    HEX[low >>> 24]! +
    HEX[(low >>> 16) & 0xff]! +
    '-' +
    HEX[(low >>> 8) & 0xff]! +
    HEX[low & 0xff]! +
    '-' +
    HEX[0x70 | ((counter >>> 28) & 0x0f)]! +
    HEX[(counter >>> 20) & 0xff]! +
    '-' +
    HEX[0x80 | ((counter >>> 14) & 0x3f)]! +
    HEX[(counter >>> 6) & 0xff]! +
    '-' +
    HEX[((counter << 2) & 0xfc) | (pool[at + 4]! & 0x03)]! +
    HEX[pool[at + 5]!]! +
    HEX[pool[at + 6]!]! +
    HEX[pool[at + 7]!]! +
    HEX[pool[at + 8]!]! +
    HEX[pool[at + 9]!]!
  );
}

/**
 * A generator of ids ordered by `clock` (milliseconds since the epoch), which keep their order within a millisecond
 * and when the clock steps back. One per process (`timeOrderedId`); tests make their own to move the clock.
 */
export function timeOrderedIds(clock: () => number = Date.now): () => string {
  let lastMs = -Infinity;
  let counter = 0;
  return () => {
    const at = randomBytes();
    const now = clock();
    if (now > lastMs) {
      lastMs = now;
      counter = counterStart(at);
    } else {
      counter = (counter + 1) | 0;
      if (counter === 0) lastMs++;
    }
    return format(lastMs, counter, at);
  };
}

const next = timeOrderedIds();

/**
 * A v7 id for the current time; ids of one process also sort within a millisecond, and keep sorting if the clock
 * steps back. `now` (tests) pins the timestamp instead: such ids are ordered by it alone, random within one
 * millisecond.
 */
export function timeOrderedId(now?: number): string {
  if (now === undefined) return next();
  const at = randomBytes();
  return format(now, counterStart(at), at);
}
