/**
 * A stored trace as replay steps. `Replay.load(traceId)` reads the local store, `new Replay(trace)` takes a trace
 * object (the JSON `agentkit traces export` prints, or an `export-trace` document), `Replay.fromPlatform(traceId)`
 * needs connected mode. Steps are the spans in start order, numbered from 0; `forkAt(step)` starts a fork to change
 * and rerun.
 */
import { NotFoundError } from '../errors.js';
import { clientFor, resolveConnection } from '../platform/connection.js';
import type { KeyedHash } from '../tracing/redaction-hash.js';
import { TraceStore } from '../tracing/trace-store.js';
import type { ReplayStep, Span, Trace } from '../types.js';
import { stepOutOfRange, ReplayError } from './errors.js';
import { ForkedReplay } from './forked.js';
import { stepsOf } from './steps.js';
import { executionIdOf, executionNotFound, executionTraces, hasLegs, mergedTrace, rootOf } from './execution.js';
import { stepNote } from './step-note.js';
import { replayTraceOf, storedTrace, type ReplayTrace, type TraceInput } from './trace-data.js';

/** Marks a trace that came from the store (already ordered): the constructor takes it as is. */
const STORED = Symbol('stored trace');
/** Marks an execution's traces read as one (already merged and ordered). */
const MERGED = Symbol('merged execution');

export interface ReplayLoadOptions {
  /** The store to read (default: a TraceStore on `dbPath`, else AGENTKIT_LOCAL_DB, else ./.agentkit/local.db). */
  store?: TraceStore;
  /** The store file to read when no store is given. */
  dbPath?: string;
  /** Read this execution's traces (then `traceId` may be null): the same as giving any one of them. */
  executionId?: string;
}

export interface ReplayOptions {
  /** Where reruns write their traces and where `compare` reads them (default: AGENTKIT_LOCAL_DB, else ./.agentkit/local.db). */
  store?: TraceStore;
}

export class Replay {
  /** The trace as loaded. */
  readonly trace: ReplayTrace;
  /** The store reruns write to and comparisons read from. */
  readonly store: TraceStore;
  private readonly stepList: ReplayStep[];
  /** True when the trace was read from `store` (its keyed hashes are then that store's). */
  private readonly fromStore: boolean;

  /** A replay of a trace object; ConfigError when it is not one. */
  constructor(trace: TraceInput, options: ReplayOptions = {}) {
    this.fromStore = (options as { [STORED]?: boolean })[STORED] === true;
    const merged = (options as { [MERGED]?: boolean })[MERGED] === true;
    this.trace = merged ? (trace as unknown as ReplayTrace) : this.fromStore ? storedTrace(trace as Trace) : replayTraceOf(trace);
    this.store = options.store ?? new TraceStore();
    this.stepList = stepsOf(this.trace.spans);
  }

  /**
   * The keyed hash the trace's masked values were hashed with (docs/adr/0010), when the trace came from a store that
   * has one; a trace object from elsewhere has none (its masked calls then match only their masked text).
   */
  async redactionHash(): Promise<KeyedHash | undefined> {
    return this.fromStore ? this.store.redactionHash() : undefined;
  }

  /** A replay of a trace in the local store. NotFoundError (`trace_not_found`) naming the id and the store when it is not there. */
  static async load(traceId: string | null, options: ReplayLoadOptions = {}): Promise<Replay> {
    const store = options.store ?? new TraceStore(options.dbPath ? { dbPath: options.dbPath } : {});
    // A trace of an execution that paused and was resumed reads with the execution's other traces, as one sequence.
    const given = traceId === null ? null : await store.getTrace(traceId);
    const root = given ? rootOf(given.spans) : undefined;
    // Only a run that paused or is a resume has other legs: any other trace is read alone (no search of the store).
    const executionId = options.executionId ?? (root && hasLegs(root) ? executionIdOf(root) : null);
    const traces = executionId === null ? [] : await executionTraces(store, executionId);
    if (!given && traces.length === 0) throw executionNotFound(options.executionId ?? '', store.label);
    if (traces.length < 2) return new Replay(given ?? traces[0]!, { store, [STORED]: true } as ReplayOptions);
    const merged = mergedTrace(traces, given?.trace_id ?? traces[0]!.trace_id, executionId!);
    return new Replay(merged as unknown as Trace, { store, [STORED]: true, [MERGED]: true } as ReplayOptions);
  }

  /**
   * A replay of a trace fetched from the Platform (connected mode: `connect()`, or a `jobScope` with a key). The
   * Platform keeps each span's payloads as `input` and `output` and no parent links, so the spans come back flat, in
   * start order. ReplayError when not connected; NotFoundError (`trace_not_found`) when the Platform has no such trace.
   */
  static async fromPlatform(traceId: string, options: ReplayOptions = {}): Promise<Replay> {
    const connection = resolveConnection();
    if (!connection) {
      throw new ReplayError(`Replay.fromPlatform('${traceId}') needs connected mode: call connect() first (or run inside jobScope with an apiKey)`);
    }
    const remote = await clientFor(connection).getTrace(traceId);
    if (!remote) throw new NotFoundError('trace_not_found', `Trace '${traceId}' not found on the Platform at ${connection.target}`);
    const spans: Span[] = remote.spans.map((s) => ({
      span_id: s.id,
      trace_id: remote.trace_id,
      // Parent links and every attribute when the Platform sends them (issue 42), so a rerun keeps the tree; an older
      // Platform sends payloads only, and the spans stay flat.
      parent_span_id: s.parent_span_id ?? null,
      name: s.name,
      status: (['OK', 'ERROR', 'UNSET'].includes(s.status) ? s.status : 'UNSET') as Span['status'],
      start_time: s.start_time,
      end_time: s.end_time,
      attributes: s.attributes ?? { ...s.input, ...s.output },
      events: [],
    }));
    return new Replay({ trace_id: remote.trace_id, name: remote.name ?? spans[0]?.name ?? '', spans } as unknown as TraceInput, options);
  }

  get traceId(): string {
    return this.trace.trace_id;
  }

  /** How many steps the trace has. */
  get length(): number {
    return this.stepList.length;
  }

  /** Every step, in order. The array is a copy; the steps are shared. */
  steps(): ReplayStep[] {
    return [...this.stepList];
  }

  /** The steps one at a time. */
  async *stepThrough(): AsyncGenerator<ReplayStep> {
    for (const step of this.stepList) yield step;
  }

  /** One step; ReplayError `Step <n> out of range (0-<max>)` for an index outside the trace, negative ones included. */
  inspect(step: number): ReplayStep {
    return this.stepList[this.checkStep(step)]!;
  }

  /** The span behind a step (same range rule as `inspect`). */
  span(step: number): Span {
    return this.trace.spans[this.checkStep(step)]!;
  }

  /**
   * The summary: `Trace: <id>`, `Name:`, `Status:`, `Spans:`, `Duration: <start> → <end>`, a blank line, `Steps:`,
   * then `  [i] <span_name>` per step.
   */
  summary(): string {
    const t = this.trace;
    const execution = t.trace_ids && t.trace_ids.length > 1 ? [`Execution: ${t.execution_id}`, `Traces: ${t.trace_ids.join(', ')}`] : [];
    return [
      `Trace: ${t.trace_id}`,
      `Name: ${t.name}`,
      `Status: ${t.status}`,
      `Spans: ${this.stepList.length}`,
      `Duration: ${t.start_time} → ${t.end_time ?? '(not ended)'}`,
      ...execution,
      '',
      'Steps:',
      ...this.trace.spans.map((span, i) => `  [${i}] ${span.name}${stepNote(span)}`),
    ].join('\n');
  }

  /** The traces this replay reads: one, or an execution's (oldest first). */
  get traceIds(): string[] {
    return this.trace.trace_ids ?? [this.trace.trace_id];
  }

  /** The execution the traces were read as one for, or null for a single trace. */
  get executionId(): string | null {
    return this.trace.execution_id ?? null;
  }

  /** Start a fork anchored at `step` (same range rule as `inspect`). */
  forkAt(step: number): ForkedReplay {
    return new ForkedReplay(this, this.checkStep(step));
  }

  private checkStep(step: number): number {
    if (!Number.isInteger(step) || step < 0 || step >= this.stepList.length) throw stepOutOfRange(step, this.stepList.length);
    return step;
  }
}
