/**
 * Control-flow signals a delegate tool raises through the supervisor's own agent loop (marked CONTROL_FLOW, so the
 * loop does not turn them into `Error: ...` results for the model): a worker that paused, and a worker resume the
 * supervisor must not paper over (lost race, unusable checkpoint).
 */
import { CONTROL_FLOW } from '../tools/control-flow.js';
import type { AgentResult } from '../types.js';

/** A worker paused: the supervisor pauses with the worker's pending interrupt. */
export class WorkerPaused extends Error {
  readonly [CONTROL_FLOW] = true;
  readonly role: string;
  readonly result: AgentResult;

  constructor(role: string, result: AgentResult) {
    super(`worker '${role}' paused (${result.pending_interrupt?.reason ?? 'interrupt'})`);
    this.name = 'WorkerPaused';
    this.role = role;
    this.result = result;
  }
}

/** A worker's resume failed in a way that must fail the supervisor run; `cause` is the error to raise. */
export class DelegationAborted extends Error {
  readonly [CONTROL_FLOW] = true;

  constructor(role: string, cause: unknown) {
    super(`delegation to worker '${role}' aborted: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'DelegationAborted';
  }
}
