/** Tracing: OpenTelemetry spans written to the local store (and OTLP when configured), and reading them back. */
export {
  ensureTracing,
  agentkitTracer,
  flushTraces,
  flushTracesSync,
  shutdownTracing,
  storedTraceId,
  traceWriter,
  TRACER_NAME,
  tracingResource,
} from './setup.js';
export { defaultTraceDestination, setTraceDestination, traceDestinationOf, resolveTraceDestination } from './destination.js';
export { withSpan, withTraceDestination, markFailure, type SpanOptions } from './spans.js';
export { preciseNow } from './clock.js';
export { AGENT_ATTR, GUARDRAIL_ATTR, LLM_ATTR, SPAN, TOOL_ATTR, TRACE_ATTR, payloadsEnabled } from './attributes.js';
export { REDACTED, isSecretKey, maskSecrets, memoizedSecretKeyTest, redactAttributes } from './redact.js';
export { TraceStore, summarise, type TraceStoreOptions } from './trace-store.js';
export { capTraceState, extractCallerContext, injectTraceContext } from './propagation.js';
export { GEN_AI, GEN_AI_OPERATION, GENAI_SEMCONV_VERSION, genAiAttributes, providerName } from './genai.js';
export { INPUT_KEYS, OUTPUT_KEYS, decodeValue, splitAttributes } from './payload-keys.js';
export { BatchedTraceWriter, type GuardrailEventRow, type WriterOptions } from './writer.js';
export { StoreWriter, type StoreBatch } from './store-writer.js';
export { LocalStoreSpanProcessor } from './processor.js';
export { hrTimeToIso, spanFromRow, spanRow, statusName, type SpanRow } from './span-row.js';
export { LeanSpan } from './lean-span.js';
export { LeanTracer } from './lean-tracer.js';
export { markFavorite, type AnnotationOptions, type TraceAnnotation } from './annotations.js';
