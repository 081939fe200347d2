/**
 * W3C context in and out (docs/adr/0009). In: `traceparent`, `tracestate` (W3C Trace Context) and `baggage` (W3C
 * Baggage) from a request's headers or an MCP call's `_meta`, through `@opentelemetry/core`'s propagators, so a run
 * started under them is a child of the caller's span on the wire (its record in the store is its own). Out: the
 * `traceparent` and `tracestate` of the active span onto an outgoing request (a model call, a REST tool call), and
 * `baggage` only when the caller asks for it (a REST tool that opted in; never a model provider).
 *
 * The global propagator is not used: it belongs to the application (and may carry baggage anywhere).
 */
import { context, propagation, trace, type Context, type TextMapGetter, type TextMapSetter } from '@opentelemetry/api';
import { W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';

const traceContext = new W3CTraceContextPropagator();
const baggage = new W3CBaggagePropagator();

/** W3C Trace Context: at most 32 list-members and 512 characters are propagated; members over 128 go first. */
const MAX_MEMBERS = 32;
const MAX_LENGTH = 512;
const LONG_MEMBER = 128;

/** Headers as Node gives them (`IncomingHttpHeaders`), or any record of strings (an MCP `_meta`). */
export type Carrier = Readonly<Record<string, unknown>>;

const getter: TextMapGetter<Carrier> = {
  keys: (carrier) => Object.keys(carrier),
  get(carrier, key) {
    const value = carrier[key];
    if (typeof value === 'string') return key === 'tracestate' ? capTraceState(value) : value;
    if (Array.isArray(value) && value.every((v) => typeof v === 'string'))
      return key === 'tracestate' ? capTraceState((value as string[]).join(',')) : (value as string[]);
    return undefined;
  },
};

/**
 * A `tracestate` value cut to what W3C Trace Context says a vendor propagates: empty list-members dropped, then, while
 * it holds more than 32 members or more than 512 characters, members longer than 128 characters removed first and
 * then members from the end.
 */
export function capTraceState(value: string): string {
  let members = value
    .split(',')
    .map((member) => member.trim())
    .filter((member) => member !== '');
  const tooMuch = () => members.length > MAX_MEMBERS || members.join(',').length > MAX_LENGTH;
  while (tooMuch()) {
    const long = members.findIndex((member) => member.length > LONG_MEMBER);
    if (long >= 0) members.splice(long, 1);
    else members = members.slice(0, -1);
  }
  return members.join(',');
}

/** True when `carrier` holds anything to extract (most requests do not: nothing is parsed then). */
function hasContext(carrier: Carrier): boolean {
  return carrier.traceparent !== undefined || carrier.baggage !== undefined;
}

/**
 * `ctx` with the caller's span context (from `traceparent`/`tracestate`) and baggage from `carrier` (lowercase keys).
 * A malformed `traceparent` is ignored, as W3C Trace Context asks: the run then starts a trace of its own.
 */
export function extractCallerContext(carrier: Carrier, ctx: Context = context.active()): Context {
  if (!hasContext(carrier)) return ctx;
  return baggage.extract(traceContext.extract(ctx, carrier, getter), carrier, getter);
}

/** The caller's context from `carrier` on top of the active one, or undefined when it carries none. */
export function callerContextOf(carrier: Carrier): Context | undefined {
  return hasContext(carrier) ? extractCallerContext(carrier) : undefined;
}

/** Sets a header unless the request already has one of that name (any case): a header the caller set wins. */
const setter: TextMapSetter<Record<string, string>> = {
  set(carrier, key, value) {
    const lower = key.toLowerCase();
    if (!Object.keys(carrier).some((name) => name.toLowerCase() === lower)) carrier[key] = value;
  },
};

/**
 * Add the `traceparent` (and `tracestate`) of the span active in `ctx` to `headers`, in place, unless `headers`
 * already has them; with `baggage: true`, the context's `baggage` too. Nothing when no valid span is active or
 * tracing is suppressed there. Returns `headers`.
 */
export function injectTraceContext(headers: Record<string, string>, options: { baggage?: boolean; context?: Context } = {}): Record<string, string> {
  const ctx = options.context ?? context.active();
  if (trace.getSpan(ctx)) traceContext.inject(ctx, headers, setter);
  if (options.baggage && propagation.getBaggage(ctx)) baggage.inject(ctx, headers, setter);
  return headers;
}
