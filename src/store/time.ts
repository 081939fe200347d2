/**
 * Timestamps as stored: ISO-8601 UTC with microseconds (`2026-11-22T10:15:30.123456Z`), strictly increasing within
 * a process so rows written in the same millisecond still sort in write order.
 */
let last = 0n;

/** The current time in microseconds since the epoch, never equal to or below the previous call's. */
function nowMicros(): bigint {
  const wall = BigInt(Date.now()) * 1000n + (process.hrtime.bigint() / 1000n) % 1000n;
  last = wall > last ? wall : last + 1n;
  return last;
}

/** The current UTC time as an ISO-8601 string with microsecond precision. */
export function utcNow(): string {
  const micros = nowMicros();
  const millis = Number(micros / 1000n);
  const extra = String(micros % 1000n).padStart(3, '0');
  return new Date(millis).toISOString().replace('Z', `${extra}Z`);
}
