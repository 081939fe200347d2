/**
 * OTLP export, added when `OTEL_EXPORTER_OTLP_ENDPOINT` (or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) is set. The
 * exporter package is an optional dependency, imported lazily: spans ended while it loads are held (up to a bound) and
 * handed over once it is ready. When the package is missing, a warning says so and spans go to local.db only.
 */
import type { Context } from '@opentelemetry/api';
import { BatchSpanProcessor, type ReadableSpan, type Span, type SpanProcessor } from '@opentelemetry/sdk-trace';

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
    if (this.inner) this.inner.onEnd(span);
    else if (!this.unavailable && this.held.length < MAX_HELD) this.held.push(span);
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
