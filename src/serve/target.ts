/**
 * What the served agent needs from whatever it serves: one run per request, and for Agent targets a stream of
 * events. Adapters turn an Agent, Chain, Swarm or Supervisor into this shape (see adapters.ts).
 */
import type { Context } from '@opentelemetry/api';
import type { RunResponse, RunStreamEvent } from '../../generated/types/served-agent.js';

export type TargetKind = 'agent' | 'chain' | 'swarm' | 'supervisor';

export interface ServeTarget {
  readonly kind: TargetKind;
  readonly name: string;
  /**
   * Run once; a pause is a normal outcome (`status: 'paused'`, empty output, the pending interrupt). `parent` is the
   * caller's context (its `traceparent`): the run's spans are its children on the wire (docs/adr/0009).
   */
  run(input: string, parent?: Context): Promise<RunResponse>;
  /**
   * Agent targets only: the run's events as they happen, `paused` before the end when it pauses. The stream ends
   * when the run ends; a failure is thrown from the iterator (the server turns it into an `error` event).
   * `signal` aborts when the client goes away; `parent` as for `run`.
   */
  stream?(input: string, signal: AbortSignal, parent?: Context): AsyncIterable<Exclude<RunStreamEvent, { type: 'done' } | { type: 'error' }>>;
}
