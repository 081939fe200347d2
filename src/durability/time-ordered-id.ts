/**
 * Checkpoint ids that sort by creation time: UUID version 7 (RFC 9562), a 48-bit Unix-millisecond timestamp followed
 * by 74 random bits, in the usual 8-4-4-4-12 hex form. A random (v4) id sends every insert to a random page of each
 * index keyed by it (the primary key on both backends): in a group commit each row dirtied its own B-tree page, and
 * on Postgres the pages split half full. Time-ordered ids append to the right edge instead (decision 208).
 * Uniqueness is the random part's: 74 bits per millisecond.
 */
import { randomFillSync } from 'node:crypto';

/** Random bytes fetched 4 KiB at a time (one system call for 256 ids). */
const pool = new Uint8Array(4096);
let offset = pool.length;

export function timeOrderedId(now: number = Date.now()): string {
  if (offset + 10 > pool.length) {
    randomFillSync(pool);
    offset = 0;
  }
  const bytes = new Uint8Array(16);
  // 48-bit big-endian milliseconds (two parts: bit operations in JavaScript are 32-bit).
  const high = Math.floor(now / 2 ** 32);
  const low = now >>> 0;
  bytes[0] = (high >>> 8) & 0xff;
  bytes[1] = high & 0xff;
  bytes[2] = low >>> 24;
  bytes[3] = (low >>> 16) & 0xff;
  bytes[4] = (low >>> 8) & 0xff;
  bytes[5] = low & 0xff;
  bytes.set(pool.subarray(offset, offset + 10), 6);
  offset += 10;
  bytes[6] = 0x70 | (bytes[6]! & 0x0f); // version 7
  bytes[8] = 0x80 | (bytes[8]! & 0x3f); // variant 10
  const hex = Buffer.from(bytes.buffer).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
