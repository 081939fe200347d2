/**
 * One span as the Platform stores it (issue 42): what OTLP ingestion (`/v1/traces`, `src/platform/otlp/`) decodes a
 * request into, and what the Platform's store (`src/platform/server/`) writes under the project of the request's key.
 * The shape follows the spec's `Span` (spec/traces/span.tsp) so a stored span reads back as a trace span unchanged;
 * OTLP's extra fields (kind, status message, resource) ride beside it.
 *
 * Contract: ids are lowercase hex (trace 32 characters, span 16), never all zeros; times are UTC ISO-8601 with
 * milliseconds; attribute values are JSON (OTLP arrays and key-value lists become arrays and objects, int64 values
 * beyond 2^53 stay decimal strings, bytes become base64 strings).
 */
export type SpanAttributeValue = string | number | boolean | null | SpanAttributeValue[] | { [key: string]: SpanAttributeValue };

/** An OTLP span event. */
export interface IngestedSpanEvent {
  name: string;
  time: string;
  attributes: Record<string, SpanAttributeValue>;
}

export interface IngestedSpan {
  trace_id: string;
  span_id: string;
  parent_span_id: string | null;
  name: string;
  /** OTLP SpanKind: 0 unspecified, 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  start_time: string;
  end_time: string | null;
  status: 'UNSET' | 'OK' | 'ERROR';
  status_message: string | null;
  attributes: Record<string, SpanAttributeValue>;
  events: IngestedSpanEvent[];
  /** The resource's attributes (`service.name`, `host.name`, ...), as sent. */
  resource: Record<string, SpanAttributeValue>;
  /** The instrumentation scope's name, when sent. */
  scope: string | null;
}
