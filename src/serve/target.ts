/**
 * What the served agent needs from whatever it serves: one run per request, and for Agent targets a stream of
 * events. Adapters turn an Agent, Chain, Swarm or Supervisor into this shape (see adapters.ts).
 */
import type { Context } from '@opentelemetry/api';
import type { RunResponse, RunStreamEvent } from '../../generated/types/served-agent.js';
import type { Checkpointer } from '../durability/checkpointer.js';

export type TargetKind = 'agent' | 'chain' | 'swarm' | 'supervisor';

/** A streamed event the target yields: everything but `error` (the server writes that from a throw). */
export type TargetStreamEvent = Exclude<RunStreamEvent, { type: 'error' }>;

export interface ServeTarget {
  readonly kind: TargetKind;
  readonly name: string;
  /** The store the runner checkpoints to, or null when it is not durable (no idempotency keys, no run status). */
  readonly checkpointer?: Checkpointer | null;
  /**
   * Run once; a pause is a normal outcome (`status: 'paused'`, empty output, the pending interrupt). `parent` is the
   * caller's context (its `traceparent`): the run's spans are its children on the wire (docs/adr/0009).
   * `executionId`: the id of the execution to start (a fresh one when omitted).
   */
  run(input: string, parent?: Context, executionId?: string): Promise<RunResponse>;
  /**
   * Agent targets only: the run's events as they happen, `paused` before the end when it pauses, then `done` with
   * the execution id, trace id and status. A failure is thrown from the iterator instead of `done` (the server turns
   * it into an `error` event and a `done` of its own). `signal` aborts when the client goes away; `parent` and
   * `executionId` as for `run`.
   */
  stream?(input: string, signal: AbortSignal, parent?: Context, executionId?: string): AsyncIterable<TargetStreamEvent>;
}
