/**
 * Tracing is set up once per process, on first use: a global tracer provider with our local-store processor (and
 * OTLP export when configured) for spans other code makes, agentkit's own lean tracer feeding the same processors,
 * and OpenTelemetry's standard AsyncLocalStorage context manager (unless the application registered one first) so
 * spans nest across `await`. This is the one process-global piece of tracing (OpenTelemetry's provider is global by design); which store a trace goes to is
 * decided per trace, not here. `flushTraces()` and `shutdownTracing()` are for servers and tests.
 */
import { context, isSpanContextValid, trace, TraceFlags, type Context, type Span } from '@opentelemetry/api';
import {
  defaultResource,
  detectResources,
  hostDetector,
  resourceAttributesEnvDetector,
  resourceFromAttributes,
  serviceNameEnvDetector,
  type Resource,
} from '@opentelemetry/resources';
import { SamplingDecision, TracerProvider, type Sampler, type SamplingResult, type SpanProcessor } from '@opentelemetry/sdk-trace';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { processIdentity } from '../config/process-identity.js';
import { VERSION } from '../version.js';
import { HexIdGenerator } from './ids.js';
import { LeanSpan } from './lean-span.js';
import { LeanTracer } from './lean-tracer.js';
import { LazyOtlpProcessor, otlpRequested } from './otlp.js';
import { LocalStoreSpanProcessor } from './processor.js';
import { BatchedTraceWriter } from './writer.js';
import { registerPendingFlush, registerPendingFlushAsync } from './pending-flush.js';

/** The instrumentation name agentkit's spans use; `trace.getTracer('agentkit')` elsewhere records into the same stores. */
export const TRACER_NAME = 'agentkit';

interface TracingState {
  provider: TracerProvider;
  writer: BatchedTraceWriter;
  local: LocalStoreSpanProcessor;
  otlp: LazyOtlpProcessor | undefined;
  tracer: LeanTracer;
  contextManager: AsyncLocalStorageContextManager | undefined;
  /** False when another tracer provider was already global: agentkit's own spans are recorded all the same. */
  global: boolean;
}

let state: TracingState | undefined;

const flushAtExit = () => state?.writer.flush();

/** Spans waiting for a Postgres store when the previous `beforeExit` flushed (-1: none flushed yet). */
let pgWaitingAtLastFlush = -1;

/**
 * A process whose work is done ends when its event loop empties, and `exit` cannot wait for a network write: spans
 * bound for a Postgres store are written on `beforeExit` instead (the write keeps the process alive until it is done).
 * Once more after each write that left rows; a write that could not reduce them (the store is down) lets the process
 * end, and the sink's outage warning has said what waits.
 */
const flushPgBeforeExit = () => {
  const waiting = state?.writer.pendingPostgres() ?? 0;
  if (waiting === 0 || waiting === pgWaitingAtLastFlush) return;
  pgWaitingAtLastFlush = waiting;
  void state?.writer.flushAsync().catch(() => undefined);
};

/**
 * Set tracing up if it is not yet (idempotent). Reads `OTEL_EXPORTER_OTLP_ENDPOINT` from `env` the first time.
 * When the application already registered its own global provider, agentkit keeps it and records only its own spans
 * (both still nest, through the global context).
 */
export function ensureTracing(env: Record<string, string | undefined> = process.env): void {
  if (state) return;
  const writer = new BatchedTraceWriter();
  const ids = new HexIdGenerator();
  const local = new LocalStoreSpanProcessor(writer, ids);
  const otlp = otlpRequested(env) ? new LazyOtlpProcessor() : undefined;
  const processors: SpanProcessor[] = otlp ? [local, otlp] : [local];
  const resource = tracingResource();
  const provider = new TracerProvider({ resource, spanProcessors: processors, sampler: RECORD_EVERY_SPAN, idGenerator: ids });
  const contextManager = new AsyncLocalStorageContextManager().enable();
  const ownsContext = context.setGlobalContextManager(contextManager);
  if (!ownsContext) contextManager.disable();
  const global = trace.setGlobalTracerProvider(provider);
  state = {
    provider,
    writer,
    local,
    otlp,
    tracer: new LeanTracer(ids, resource, { name: TRACER_NAME, version: VERSION }, local, otlp),
    contextManager: ownsContext ? contextManager : undefined,
    global,
  };
  process.on('exit', flushAtExit);
  process.on('beforeExit', flushPgBeforeExit);
}

/**
 * The resource every span is exported with, from the standard OpenTelemetry environment: the SDK's defaults
 * (`telemetry.sdk.*`), the host detector (`host.name`, `host.arch`, `host.id`), `OTEL_RESOURCE_ATTRIBUTES`, then
 * `OTEL_SERVICE_NAME` (which wins over a `service.name` in the attributes, as the specification says), and last the
 * process identity: `process.pid` and `service.instance.id` (the id execution leases carry, config/process-identity.ts;
 * it is `OTEL_RESOURCE_ATTRIBUTES`' own when that sets one). Command lines are left out: they may hold a token.
 */
export function tracingResource(): Resource {
  const identity = processIdentity();
  const detected = detectResources({ detectors: [hostDetector, resourceAttributesEnvDetector, serviceNameEnvDetector] });
  return defaultResource()
    .merge(resourceFromAttributes({ 'process.runtime.name': 'nodejs', 'process.runtime.version': process.versions.node }))
    .merge(detected)
    .merge(resourceFromAttributes({ 'process.pid': identity.pid, 'service.instance.id': identity.instanceId }));
}

/**
 * The SDK spans' sampler: every span is recorded (replay and evals need every run, so the local store ignores the
 * sampled flag), and sampled (exported over OTLP) as its parent was; a new trace is sampled. agentkit's own spans
 * follow the same rule in lean-tracer.ts.
 */
const RECORD_EVERY_SPAN: Sampler = {
  shouldSample(ctx: Context): SamplingResult {
    const parent = trace.getSpanContext(ctx);
    const unsampled = parent !== undefined && isSpanContextValid(parent) && (parent.traceFlags & TraceFlags.SAMPLED) === 0;
    return { decision: unsampled ? SamplingDecision.RECORD : SamplingDecision.RECORD_AND_SAMPLED };
  },
  toString: () => 'AgentkitRecordEverySpan',
};

/** The tracer agentkit's own spans are made with, lean-tracer.ts (sets tracing up on first use). */
export function agentkitTracer(): LeanTracer {
  ensureTracing();
  return state!.tracer;
}

/**
 * The trace id of `span`'s record in the local store (docs/adr/0009): what `AgentResult.trace_id`, replay, export and
 * prune take. It is the span's own trace id unless the span's run was recorded under a caller's span.
 */
export function storedTraceId(span: Span): string {
  if (span instanceof LeanSpan) return span.storedTraceId;
  return state?.local.storedTraceIdOf(span) ?? span.spanContext().traceId;
}

/** The writer of the current tracing setup (sets tracing up on first use); guardrail events share it. */
export function traceWriter(): BatchedTraceWriter {
  ensureTracing();
  return state!.writer;
}

/** Write every ended span to its store now (and push pending OTLP batches). */
export async function flushTraces(): Promise<void> {
  if (!state) return;
  await state.writer.flushAsync();
  await state.otlp?.forceFlush();
}

/** Write pending spans to local stores now, synchronously (readers in this process call it before reading). */
export function flushTracesSync(): void {
  state?.writer.flush();
}
registerPendingFlush(flushTracesSync);
registerPendingFlushAsync(async () => {
  await state?.writer.flushAsync();
});

/**
 * Flush, close store connections, shut the provider down (OTLP included) and unregister the globals agentkit set.
 * A later run sets tracing up again.
 */
export async function shutdownTracing(): Promise<void> {
  const current = state;
  if (!current) return;
  state = undefined;
  process.off('exit', flushAtExit);
  process.off('beforeExit', flushPgBeforeExit);
  await current.provider.shutdown();
  // Postgres stores are written asynchronously: what waits is written (one attempt) before the pools are given back.
  await current.writer.flushAsync();
  await current.writer.close();
  if (current.global) trace.disable();
  if (current.contextManager) context.disable();
}
