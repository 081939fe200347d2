/**
 * agentkit's own span: a small class implementing the OpenTelemetry API `Span` (so `trace.getActiveSpan()`, context
 * propagation and child spans from any tracer work as with an SDK span) and the SDK's `ReadableSpan` (so an
 * OpenTelemetry exporter can take it as it is). It keeps what a stored row needs, in the form cheapest to keep: times
 * as epoch milliseconds (HrTime only when an exporter asks), attributes in one plain object whose secret-keyed values
 * are replaced as they are set.
 *
 * It follows the SDK span's contract: after `end()` nothing changes it (a second `end()` is reported and ignored);
 * `isRecording()` is true until then; invalid attribute values are dropped; an `OK` status is final and `UNSET` is
 * never set; `recordException` adds an `exception` event; at most 128 attributes and 128 events (the SDK's
 * default limits), the oldest events dropped first.
 */
import {
  diag,
  type SpanKind,
  SpanStatusCode,
  type Attributes,
  type AttributeValue,
  type Exception,
  type HrTime,
  type Link,
  type Span,
  type SpanContext,
  type SpanStatus,
  type TimeInput,
} from '@opentelemetry/api';
import { isAttributeValue, isTimeInput, millisToHrTime, type InstrumentationScope } from '@opentelemetry/core';
import type { Resource } from '@opentelemetry/resources';
import type { ReadableSpan, TimedEvent } from '@opentelemetry/sdk-trace';
import { epochMillis, preciseNow } from './clock.js';
import { normalizeAttributes } from './normalize.js';
import { isSecretKeyCached as secretKey, REDACTED } from './redact.js';

/** What a lean span reports to: the tracer that made it. */
export interface LeanSpanOwner {
  readonly resource: Resource;
  readonly instrumentationScope: InstrumentationScope;
  /** Called once, when the span ends. */
  spanEnded(span: LeanSpan): void;
}

const ATTRIBUTE_LIMIT = 128;
const EVENT_LIMIT = 128;
const UNSET: SpanStatus = Object.freeze({ code: SpanStatusCode.UNSET });
/** Shared by every span until it gets its first event or link: most never do. */
const NO_EVENTS: TimedEvent[] = Object.freeze([]) as unknown as TimedEvent[];
const NO_LINKS: Link[] = Object.freeze([]) as unknown as Link[];

export class LeanSpan implements Span, ReadableSpan {
  name: string;
  readonly kind: SpanKind;
  readonly parentSpanContext: SpanContext | undefined;
  /** The local store this span's trace is written to (chosen when the trace's root started). */
  readonly dbPath: string;
  /**
   * The trace id of the run's record in the store (docs/adr/0009): the span's own trace id, except under a parent
   * this process did not record (a caller's span), where the run's root got one of its own and its spans share it.
   */
  readonly storedTraceId: string;
  /** Set on the root of a run recorded under a caller's span: the caller's trace id (the span has no stored parent). */
  readonly callerTraceId: string | undefined;
  /** Start time, epoch milliseconds. */
  readonly startMillis: number;
  /** End time, epoch milliseconds (-1 until ended). */
  endMillis = -1;
  attributes: Attributes = {};
  events: TimedEvent[] = NO_EVENTS;
  links: Link[] = NO_LINKS;
  status: SpanStatus = UNSET;
  droppedAttributesCount = 0;
  droppedEventsCount = 0;
  readonly droppedLinksCount = 0;
  private attributeCount = 0;
  /** Set by the tracer for a span started inside a `jobScope` with `normalize: true` (normalize.ts). */
  normalize = false;
  /**
   * Values the local store's row holds instead of these keys' (a model span's messages stored as those it adds,
   * message-deltas.ts); `attributes`, what exporters see, stay whole.
   */
  storedAttributes: Attributes | undefined = undefined;
  private readonly context: SpanContext;
  private readonly owner: LeanSpanOwner;

  constructor(
    owner: LeanSpanOwner,
    name: string,
    context: SpanContext,
    parent: SpanContext | undefined,
    dbPath: string,
    kind: SpanKind,
    startMillis: number,
    storedTraceId: string = context.traceId,
    callerTraceId?: string,
  ) {
    this.owner = owner;
    this.name = name;
    this.context = context;
    this.parentSpanContext = parent;
    this.dbPath = dbPath;
    this.storedTraceId = storedTraceId;
    this.callerTraceId = callerTraceId;
    this.kind = kind;
    this.startMillis = startMillis;
  }

  spanContext(): SpanContext {
    return this.context;
  }

  setAttribute(key: string, value: AttributeValue | undefined): this {
    if (value == null || this.endMillis >= 0) return this;
    if (key.length === 0 || !isAttributeValue(value)) {
      diag.warn(`Invalid attribute ${key.length === 0 ? 'key' : `value set for key: ${key}`}`);
      return this;
    }
    if (!Object.hasOwn(this.attributes, key)) {
      if (this.attributeCount >= ATTRIBUTE_LIMIT) {
        this.droppedAttributesCount++;
        return this;
      }
      this.attributeCount++;
    }
    this.attributes[key] = secretKey(key) ? REDACTED : value;
    return this;
  }

  setAttributes(attributes: Attributes): this {
    for (const key in attributes) if (Object.hasOwn(attributes, key)) this.setAttribute(key, attributes[key]);
    return this;
  }

  addEvent(name: string, attributesOrTime?: Attributes | TimeInput, time?: TimeInput): this {
    if (this.endMillis >= 0) return this;
    let attributes: Attributes | undefined;
    if (isTimeInput(attributesOrTime)) time ??= attributesOrTime;
    else attributes = attributesOrTime;
    const kept: Attributes = {};
    for (const key in attributes) {
      const value = attributes[key];
      if (Object.hasOwn(attributes, key) && key !== '' && value != null && isAttributeValue(value)) kept[key] = secretKey(key) ? REDACTED : value;
    }
    if (this.events === NO_EVENTS) this.events = [];
    if (this.events.length >= EVENT_LIMIT) {
      this.events.shift();
      this.droppedEventsCount++;
    }
    this.events.push({ name, attributes: kept, time: millisToHrTime(time === undefined ? preciseNow() : epochMillis(time)), droppedAttributesCount: 0 });
    return this;
  }

  addLink(link: Link): this {
    if (this.endMillis >= 0) return this;
    if (this.links === NO_LINKS) this.links = [];
    this.links.push(link.attributes ? { context: link.context, attributes: { ...link.attributes } } : { context: link.context });
    return this;
  }

  addLinks(links: Link[]): this {
    for (const link of links) this.addLink(link);
    return this;
  }

  setStatus(status: SpanStatus): this {
    if (this.endMillis >= 0 || status.code === SpanStatusCode.UNSET || this.status.code === SpanStatusCode.OK) return this;
    this.status =
      status.code === SpanStatusCode.ERROR && typeof status.message === 'string' ? { code: status.code, message: status.message } : { code: status.code };
    return this;
  }

  updateName(name: string): this {
    if (this.endMillis < 0) this.name = name;
    return this;
  }

  end(endTime?: TimeInput): void {
    if (this.endMillis >= 0) {
      diag.error(`${this.name} ${this.context.traceId}-${this.context.spanId} - You can only call end() on a span once.`);
      return;
    }
    const end = endTime === undefined ? preciseNow() : epochMillis(endTime);
    if (this.normalize)
      for (const [key, value] of Object.entries(normalizeAttributes({ ...this.attributes })))
        if (this.attributes[key] === undefined) this.setAttribute(key, value);
    // An end before the start (a clock step, a wrong explicit time) becomes a zero duration, as in the SDK.
    this.endMillis = end < this.startMillis ? this.startMillis : end;
    this.owner.spanEnded(this);
  }

  isRecording(): boolean {
    return this.endMillis < 0;
  }

  recordException(exception: Exception, time?: TimeInput): void {
    const attributes: Attributes = {};
    if (typeof exception === 'string') attributes['exception.message'] = exception;
    else if (exception) {
      if (exception.code) attributes['exception.type'] = exception.code.toString();
      else if (exception.name) attributes['exception.type'] = exception.name;
      if (exception.message) attributes['exception.message'] = exception.message;
      if (exception.stack) attributes['exception.stacktrace'] = exception.stack;
    }
    if (attributes['exception.type'] || attributes['exception.message']) this.addEvent('exception', attributes, time);
    else diag.warn(`Failed to record an exception ${String(exception)}`);
  }

  // ReadableSpan, for exporters.
  get ended(): boolean {
    return this.endMillis >= 0;
  }

  get startTime(): HrTime {
    return millisToHrTime(this.startMillis);
  }

  get endTime(): HrTime {
    return this.endMillis < 0 ? [0, 0] : millisToHrTime(this.endMillis);
  }

  get duration(): HrTime {
    return this.endMillis < 0 ? [-1, -1] : millisToHrTime(this.endMillis - this.startMillis);
  }

  get resource(): Resource {
    return this.owner.resource;
  }

  get instrumentationScope(): InstrumentationScope {
    return this.owner.instrumentationScope;
  }
}
