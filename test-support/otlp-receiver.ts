/**
 * A minimal OTLP/HTTP receiver on loopback: it accepts `POST /v1/traces` (OTLP JSON, what
 * `@opentelemetry/exporter-trace-otlp-http` sends), keeps every request as received, and reads the spans back flat,
 * each with its resource's attributes, ids in hex and attribute values decoded.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startFakeProvider, type FakeProvider } from '../conformance/harness/fake-provider.js';
import { shutdownTracing } from '../src/tracing/setup.js';
import type { TimedSuite } from './uvu.js';

export interface ReceivedSpan {
  resource: Record<string, unknown>;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  /** OTLP span kind: 1 internal, 2 server, 3 client. */
  kind: number;
  /** W3C trace flags of the span (bit 0: sampled), when the exporter sends them. */
  flags: number | undefined;
  attributes: Record<string, unknown>;
  /** The span's links (a resume's root links to its paused run's root). */
  links: Array<{ traceId: string; spanId: string; attributes: Record<string, unknown> }>;
}

export interface OtlpReceiver {
  /** `http://127.0.0.1:<port>`: the value of `OTEL_EXPORTER_OTLP_ENDPOINT`. */
  url: string;
  /** The raw bodies of the export requests received so far. */
  bodies(): string[];
  /** Every span received so far. */
  spans(): ReceivedSpan[];
  close(): Promise<void>;
}

interface AnyValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: number | string;
  doubleValue?: number;
  arrayValue?: { values?: AnyValue[] };
}

interface KeyValue {
  key: string;
  value: AnyValue;
}

interface ExportRequest {
  resourceSpans?: Array<{
    resource?: { attributes?: KeyValue[] };
    scopeSpans?: Array<{
      spans?: Array<{
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        kind: number;
        flags?: number;
        attributes?: KeyValue[];
        links?: Array<{ traceId: string; spanId: string; attributes?: KeyValue[] }>;
      }>;
    }>;
  }>;
}

/** Start a receiver; close it when done. */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const server: FakeProvider = await startFakeProvider(() => ({ json: {} }));
  const exports = () => server.requests.filter((r) => r.path === '/v1/traces');
  return {
    url: server.url,
    bodies: () => exports().map((r) => r.raw),
    spans: () => exports().flatMap((r) => spansOf(r.body as ExportRequest)),
    close: () => server.close(),
  };
}

function spansOf(body: ExportRequest): ReceivedSpan[] {
  return (body.resourceSpans ?? []).flatMap((rs) => {
    const resource = attributesOf(rs.resource?.attributes);
    return (rs.scopeSpans ?? []).flatMap((ss) =>
      (ss.spans ?? []).map((s) => ({
        resource,
        traceId: hex(s.traceId),
        spanId: hex(s.spanId),
        parentSpanId: s.parentSpanId ? hex(s.parentSpanId) : '',
        name: s.name,
        kind: s.kind,
        flags: s.flags,
        attributes: attributesOf(s.attributes),
        links: (s.links ?? []).map((l) => ({ traceId: hex(l.traceId), spanId: hex(l.spanId), attributes: attributesOf(l.attributes) })),
      })),
    );
  });
}

function attributesOf(list: KeyValue[] | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map((kv) => [kv.key, valueOf(kv.value)]));
}

function valueOf(value: AnyValue): unknown {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.arrayValue !== undefined) return (value.arrayValue.values ?? []).map(valueOf);
  return null;
}

/** An id as hex, whether the exporter sent hex or base64. */
function hex(id: string): string {
  return /^[0-9a-f]+$/.test(id) && (id.length === 32 || id.length === 16) ? id : Buffer.from(id, 'base64').toString('hex');
}

/**
 * Hooks for a suite whose runs export to a receiver of its own: before all, a temp dir (`dir`) and a receiver
 * (`receiver`) named by `OTEL_EXPORTER_OTLP_ENDPOINT` (read when tracing is set up, by the file's first run); after
 * all, tracing shut down (its exporter flushed), the variable cleared, the receiver closed and the dir removed.
 */
export function withOtlpReceiver<S extends { dir: string; receiver: OtlpReceiver }>(test: TimedSuite<S>, prefix: string): void {
  test.before(async (s) => {
    s.dir = await mkdtemp(path.join(tmpdir(), prefix));
    s.receiver = await startOtlpReceiver();
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = s.receiver.url;
  });
  test.after(async (s) => {
    await shutdownTracing();
    delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
    await s.receiver?.close();
    if (s.dir) await rm(s.dir, { recursive: true, force: true });
  });
}
