/**
 * Trace and span ids: lowercase hex, never all zeros (W3C). Built from 32-bit random words through a byte table,
 * which is cheaper than the SDK default's buffer round trip on every span.
 *
 * A trace id starts with the milliseconds since the epoch it was made (48 bits, as a UUID v7 or an AWS X-Ray trace
 * id does) and ends with 80 random bits. The local store's unique index on (trace_id, span_id) is then written
 * near its end, as the table is, instead of at a random place per trace: a span insert dirtied pages all over that
 * index (more WAL written per commit, longer write-lock holds that a run's checkpoint commit waits for; ADR
 * 0030). The random part keeps ids unique across processes and keeps the 7 rightmost bytes random, as W3C Trace
 * Context level 2 asks of random trace ids; ratio samplers that hash the whole id stay uniform.
 */
import type { IdGenerator } from '@opentelemetry/sdk-trace';
import { BYTE_HEX as HEX } from '../hex.js';

function word(): number {
  return (Math.random() * 2 ** 32) >>> 0;
}

function hex(n: number): string {
  return HEX[n >>> 24]! + HEX[(n >>> 16) & 255]! + HEX[(n >>> 8) & 255]! + HEX[n & 255]!;
}

/** A time-ordered trace id made at `ms` (milliseconds since the epoch; the clock by default). */
export function timeOrderedTraceId(ms = Date.now()): string {
  // 48 bits of milliseconds as 32 high bits and 16 low ones; then 16 random bits and two random words.
  const high = Math.floor(ms / 65536) >>> 0;
  const low = ms % 65536;
  const random = word();
  return hex(high) + HEX[low >>> 8]! + HEX[low & 255]! + HEX[random >>> 24]! + HEX[(random >>> 16) & 255]! + hex(word()) + hex(word());
}

export class HexIdGenerator implements IdGenerator {
  /** 32 hex characters, time-ordered (see above). */
  generateTraceId(): string {
    return timeOrderedTraceId();
  }

  /** 16 hex characters. */
  generateSpanId(): string {
    const a = word();
    const b = word();
    return hex(a) + hex(a === 0 && b === 0 ? 1 : b);
  }
}
