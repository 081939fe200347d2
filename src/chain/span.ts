/**
 * The root span of a chain run, resume or fork: `chain.<name>`, through the OpenTelemetry API so that whatever tracer
 * provider the application installed records it (and third-party spans nest under it); with none installed,
 * agentkit's own (the local store, as for an agent's run) is set up first.
 */
import { SpanStatusCode, trace, type Attributes, type Link, type Span } from '@opentelemetry/api';
import { isSpanContextValid } from '@opentelemetry/api';
import type { ChainResult } from '../types.js';
import { payloadsEnabled } from '../tracing/attributes.js';
import { jsonAttribute } from '../tracing/json-attribute.js';
import { ensureTracing, storedTraceId } from '../tracing/setup.js';
import { PAUSED, RUN_STATUS_ATTR } from '../tracing/run-status.js';

/**
 * Run `fn` inside the active root span `chain.<chainName>`, started with `links` (a resume's link to its pause); a
 * pause ends the span OK (and `agentkit.status` paused), a throw ends it ERROR.
 */
export function inChainSpan(chainName: string, attributes: Attributes, links: Link[], fn: (span: Span) => Promise<ChainResult>): Promise<ChainResult> {
  // Recorded like an agent's run, in any process (a CLI resume included), unless the application installed its own
  // provider first (then that one records it).
  ensureTracing();
  return trace.getTracer('agentkit').startActiveSpan(`chain.${chainName}`, { attributes, links }, async (span) => {
    try {
      const result = await fn(span);
      span.setAttribute('chain.status', result.status);
      if (payloadsEnabled() && result.status === 'completed') span.setAttribute('chain.output', jsonAttribute(result.output));
      // A pause is not a failure: the span ends OK and says paused (docs/adr/0059).
      if (result.status === 'paused') span.setAttribute(RUN_STATUS_ATTR, PAUSED);
      span.setStatus({ code: SpanStatusCode.OK });
      return result;
    } catch (error) {
      span.recordException(error instanceof Error ? error : String(error));
      span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
      throw error;
    } finally {
      span.end();
    }
  });
}

/** The 32-hex trace id of the span's record in the local store (ADR 0009), or null when no tracer provider records it. */
export function traceIdOf(span: Span): string | null {
  return isSpanContextValid(span.spanContext()) ? storedTraceId(span) : null;
}
