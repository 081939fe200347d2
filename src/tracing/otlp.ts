/**
 * OTLP export, added when `OTEL_EXPORTER_OTLP_ENDPOINT` (or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) is set. The
 * exporter package is an optional dependency, imported lazily: spans ended while it loads are held (up to a bound) and
 * handed over once it is ready. When the package is missing, a warning says so and spans go to local.db only.
 * Exported spans carry the GenAI semantic conventions' attributes (genai.ts) and are redacted as stored ones are (see
 * `exportable`): secrets never leave the process this way either.
 */
import { TraceFlags, type Attributes, type AttributeValue, type Context } from '@opentelemetry/api';
import { BatchSpanProcessor, type ReadableSpan, type Span, type SpanProcessor, type TimedEvent } from '@opentelemetry/sdk-trace';
import { genAiAttributes } from './genai.js';
import { isSecretKeyCached, maskSecrets, mayHoldSecretText, redactAttributes } from './redact.js';

const MAX_HELD = 2048;

/** Whether the environment asks for OTLP export. */
export function otlpRequested(env: Record<string, string | undefined>): boolean {
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}

/** A processor that batches spans to the OTLP/HTTP exporter once `@opentelemetry/exporter-trace-otlp-http` loads. */
export class LazyOtlpProcessor implements SpanProcessor {
  private inner: SpanProcessor | undefined;
  private held: ReadableSpan[] = [];
  private unavailable = false;
  private readonly ready: Promise<void>;

  constructor() {
    this.ready = import('@opentelemetry/exporter-trace-otlp-http').then(
      ({ OTLPTraceExporter }) => {
        // The exporter reads the endpoint, headers and timeout from the standard OTEL_EXPORTER_OTLP_* variables.
        this.inner = new BatchSpanProcessor({ exporter: new OTLPTraceExporter(), scheduledDelayMillis: 1000 });
        for (const span of this.held) this.inner.onEnd(span);
        this.held = [];
      },
      (error: unknown) => {
        this.unavailable = true;
        this.held = [];
        process.emitWarning(
          `OTEL_EXPORTER_OTLP_ENDPOINT is set but @opentelemetry/exporter-trace-otlp-http could not be loaded (${error instanceof Error ? error.message : String(error)}); spans are written to local.db only`,
          'AgentkitTracingWarning',
        );
      },
    );
  }

  onStart(span: Span, parentContext: Context): void {
    this.inner?.onStart(span, parentContext);
  }

  onEnd(span: ReadableSpan): void {
    // The parent's sampling decision (docs/adr/0009): an unsampled span stays local.
    if ((span.spanContext().traceFlags & TraceFlags.SAMPLED) === 0) return;
    if (this.inner) this.inner.onEnd(exportable(span));
    else if (!this.unavailable && this.held.length < MAX_HELD) this.held.push(exportable(span));
  }

  async forceFlush(): Promise<void> {
    await this.ready;
    await this.inner?.forceFlush();
  }

  async shutdown(): Promise<void> {
    await this.ready;
    await this.inner?.shutdown();
  }
}

function needsRedaction(attributes: Attributes | undefined): boolean {
  for (const key in attributes) {
    if (isSecretKeyCached(key)) return true;
    const value: AttributeValue | undefined = attributes[key];
    if (typeof value === 'string' ? mayHoldSecretText(value) : Array.isArray(value) && value.some((v) => typeof v === 'string' && mayHoldSecretText(v)))
      return true;
  }
  return false;
}

/**
 * `span` as it may leave the process: itself when it is not one of agentkit's agent, model or tool spans and nothing
 * in it needs redacting (the common case for other instrumentation), else a view of it whose attributes are the GenAI
 * conventions' (genai.ts) and whose attributes, events and status message are redacted (keys, registered secrets and
 * credential-shaped text, as local.db gets them; a failed step's status message quotes its error, which may quote a
 * secret). The view inherits everything else from the span (its prototype is the span), so exporters read it as the
 * span itself.
 */
export function exportable(span: ReadableSpan): ReadableSpan {
  const translated = genAiAttributes(span);
  const source = translated ?? span.attributes;
  const attributes = needsRedaction(source) ? redactAttributes(source) : translated;
  const events = span.events.some((e) => needsRedaction(e.attributes));
  const statusMessage = span.status.message;
  const status = statusMessage !== undefined && mayHoldSecretText(statusMessage);
  if (!attributes && !events && !status) return span;
  const view = Object.create(span) as { -readonly [K in keyof ReadableSpan]: ReadableSpan[K] };
  if (attributes) Object.defineProperty(view, 'attributes', { value: attributes });
  if (status) Object.defineProperty(view, 'status', { value: { ...span.status, message: maskSecrets(statusMessage) } });
  if (events)
    Object.defineProperty(view, 'events', {
      value: span.events.map((e): TimedEvent => (e.attributes ? { ...e, attributes: redactAttributes(e.attributes) } : e)),
    });
  return view;
}
