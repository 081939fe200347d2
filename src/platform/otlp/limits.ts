/**
 * The caps OTLP trace ingestion (`POST /v1/traces`) enforces, so one request cannot exhaust the Platform's memory or
 * fill its store with junk (docs/adr/0071 gives the reasons for each default). A request over a size or count cap is
 * refused whole (413); a span over a per-span cap is rejected alone and counted in the answer's `partial_success`.
 */
export interface OtlpLimits {
  /** Bytes of the body as sent (compressed or not). A larger Content-Length is refused before anything is read. */
  maxBodyBytes: number;
  /** Bytes of the body after gzip is undone; inflating stops at this many bytes. */
  maxDecodedBytes: number;
  /** Spans in one request, over all resources and scopes. */
  maxSpansPerRequest: number;
  /** Attributes on one span, on one of its events, or on its resource. */
  maxAttributesPerSpan: number;
  /** Characters of one attribute value: a string's length, bytes as base64, an array's or map's items added up. */
  maxAttributeValueLength: number;
  /** Events on one span. */
  maxEventsPerSpan: number;
  /** Earliest accepted span or event time, in milliseconds since the epoch. */
  earliestTimeMs: number;
  /** How far past the receiving clock a time may lie, in milliseconds (clock skew between hosts). */
  maxFutureSkewMs: number;
}

const MIB = 1024 * 1024;

/** The defaults; `createOtlpTracesHandler({ limits })` overrides any of them. */
export const DEFAULT_OTLP_LIMITS: Readonly<OtlpLimits> = Object.freeze({
  maxBodyBytes: 10 * MIB,
  maxDecodedBytes: 32 * MIB,
  maxSpansPerRequest: 10_000,
  maxAttributesPerSpan: 256,
  maxAttributeValueLength: 1 * MIB,
  maxEventsPerSpan: 256,
  earliestTimeMs: Date.UTC(2000, 0, 1),
  maxFutureSkewMs: 24 * 60 * 60 * 1000,
});

/**
 * `overrides` on top of the defaults. Throws a RangeError naming the field when a value is not a positive integer
 * (`earliestTimeMs` and `maxFutureSkewMs` may be 0), so a misconfigured server fails at start, not per request.
 */
export function resolveOtlpLimits(overrides: Partial<OtlpLimits> = {}): OtlpLimits {
  const limits = { ...DEFAULT_OTLP_LIMITS, ...overrides };
  for (const [name, value] of Object.entries(limits)) {
    const floor = name === 'earliestTimeMs' || name === 'maxFutureSkewMs' ? 0 : 1;
    if (!Number.isSafeInteger(value) || value < floor) throw new RangeError(`OTLP limit ${name} must be an integer >= ${floor}, not ${String(value)}`);
  }
  return limits;
}
