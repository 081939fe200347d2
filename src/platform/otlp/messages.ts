/**
 * The OTLP trace messages as protobufjs types, built from the descriptor `make generate` derives from spec/otlp/
 * (docs/adr/0070), and the plain shapes decoded requests take. Both encodings decode to the same shape: binary
 * protobuf through `Type.decode`, OTLP JSON through protobufjs' ProtoJSON parser, then `Type.toObject` with
 * 64-bit integers as decimal strings, enums as numbers and bytes as Uint8Array. Absent fields are undefined.
 */
import protobuf from 'protobufjs';
import { otlpTraceDescriptor } from '../../../generated/otlp/trace-descriptor.js';

const root = protobuf.Root.fromJSON(otlpTraceDescriptor);

export const ExportTraceServiceRequest = root.lookupType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest');
export const ExportTraceServiceResponse = root.lookupType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse');
export const RpcStatus = root.lookupType('google.rpc.Status');

/** How decoded messages become plain objects (see the module comment). */
export const TO_OBJECT: protobuf.IConversionOptions = { longs: String, enums: Number };

export interface OtlpAnyValue {
  stringValue?: string;
  boolValue?: boolean;
  /** int64 as a decimal string. */
  intValue?: string;
  doubleValue?: number;
  arrayValue?: { values?: OtlpAnyValue[] };
  kvlistValue?: { values?: OtlpKeyValue[] };
  bytesValue?: Uint8Array;
  stringValueStrindex?: number;
}

export interface OtlpKeyValue {
  key?: string;
  value?: OtlpAnyValue;
}

export interface OtlpEvent {
  /** fixed64 nanoseconds since the epoch, as a decimal string. */
  timeUnixNano?: string;
  name?: string;
  attributes?: OtlpKeyValue[];
}

export interface OtlpSpan {
  traceId?: Uint8Array;
  spanId?: Uint8Array;
  parentSpanId?: Uint8Array;
  name?: string;
  kind?: number;
  startTimeUnixNano?: string;
  endTimeUnixNano?: string;
  attributes?: OtlpKeyValue[];
  events?: OtlpEvent[];
  status?: { message?: string; code?: number };
}

export interface OtlpScopeSpans {
  scope?: { name?: string; version?: string };
  spans?: OtlpSpan[];
}

export interface OtlpResourceSpans {
  resource?: { attributes?: OtlpKeyValue[] };
  scopeSpans?: OtlpScopeSpans[];
}

/** A decoded `ExportTraceServiceRequest`. */
export interface OtlpTraceRequest {
  resourceSpans?: OtlpResourceSpans[];
}
