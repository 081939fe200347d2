/**
 * The execution scope: one AsyncLocalStorage frame per running step, carrying what durability needs to know about
 * "where am I": the execution id, the checkpointer, the agent path, the name of the runner writing rows, and, only
 * while a resumed step re-executes, the Resume value and the pending row that was claimed for it.
 *
 * `interrupt()` and `idempotent()` read it; executors set it. An executor (the Chain node runner today; the Agent tool
 * loop, Swarm and Supervisor later) does four things, all through this module:
 *
 *   1. `runInScope(scope, fn)`: run each step inside a frame naming the execution, checkpointer, runner and path.
 *   2. `currentScope()`: read the enclosing frame, e.g. to nest (a hosted agent extends the parent's `agentPath`
 *      with `childScope({ agentPath: joinAgentPath(parent.agentPath, 'agent:<name>') }, fn)`).
 *   3. `bindResumeValue(value, claimed, fn)`: re-execute the suspended step with the Resume bound, so its
 *      `interrupt()` returns the value instead of raising. Bind it for that one step only.
 *   4. `recordInterrupt(signal, step)` (./record-interrupt.ts) when the step raised InterruptSignal: the interrupted
 *      checkpoint and the pending row in one transaction; then return a `paused` result with the summary it returns.
 *
 * Frames are immutable: a child frame is a new object, so concurrent runs in one process never see each other's
 * values.
 */
import { currentScope, runWithScope, type ExecutionScope } from '../durability/execution-scope.js';
import type { PendingInterrupt, Resume } from '../types.js';

export { currentScope, type ExecutionScope };

/**
 * Run `fn` inside a new frame. Fields not given default to: no checkpointer, no agent path, no resume value. The
 * frame ends when `fn` (and everything it awaits) is done.
 */
export function runInScope<T>(scope: Pick<ExecutionScope, 'executionId' | 'runnerName'> & Partial<ExecutionScope>, fn: () => T): T {
  const frame: ExecutionScope = {
    checkpointer: null,
    agentPath: null,
    resumeValue: null,
    resumedInterrupt: null,
    ...scope,
  };
  return runWithScope(frame, fn);
}

/**
 * Run `fn` in a copy of the enclosing frame with `patch` applied (nested runners, tool sub-paths). Throws when called
 * outside a frame, because a patch of nothing would silently drop the execution id.
 */
export function childScope<T>(patch: Partial<ExecutionScope>, fn: () => T): T {
  const parent = currentScope();
  if (!parent) throw new Error('childScope() called outside an execution scope: use runInScope() to open one');
  return runWithScope({ ...parent, ...patch }, fn);
}

/**
 * Run `fn` (the re-execution of a suspended step) with the Resume value bound, so `interrupt()` inside returns it;
 * `claimed` is the pending row the resumer claimed (its context frozen at pause time).
 */
export function bindResumeValue<T>(value: Resume, claimed: PendingInterrupt | null, fn: () => T): T {
  return childScope({ resumeValue: value, resumedInterrupt: claimed }, fn);
}

/** Run `fn` with no resume value bound (steps after the resumed one must pause again on their own interrupts). */
export function withoutResumeValue<T>(fn: () => T): T {
  const parent = currentScope();
  if (!parent || (parent.resumeValue === null && parent.resumedInterrupt === null)) return fn();
  return runWithScope({ ...parent, resumeValue: null, resumedInterrupt: null }, fn);
}

/** `parent/segment`, or `segment` when there is no parent path. */
export function joinAgentPath(parent: string | null, segment: string): string {
  return parent ? `${parent}/${segment}` : segment;
}
