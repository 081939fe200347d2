/**
 * Timestamps as stored: ISO-8601 UTC with microseconds (`2026-11-22T10:15:30.123456Z`), strictly increasing within
 * a process so rows written in the same millisecond still sort in write order.
 *
 * Plain numbers, not BigInt: microseconds since the epoch stay below 2^53 until the year 2255.
 */
let last = 0;

/** The current time in microseconds since the epoch, never equal to or below the previous call's. */
function nowMicros(): number {
  // Sub-millisecond digits from the monotonic clock's nanoseconds: Date.now() has millisecond resolution only.
  const wall = Date.now() * 1000 + (Math.floor(process.hrtime()[1] / 1000) % 1000);
  last = wall > last ? wall : last + 1;
  return last;
}

/** The current UTC time as an ISO-8601 string with microsecond precision. */
export function utcNow(): string {
  const micros = nowMicros();
  const extra = micros % 1000;
  return `${new Date(Math.floor(micros / 1000)).toISOString().slice(0, -1)}${extra < 10 ? '00' : extra < 100 ? '0' : ''}${extra}Z`;
}
