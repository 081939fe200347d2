/**
 * The execution scope's storage (../scope/scope.ts opens and nests frames): what a frame holds, the enclosing one,
 * and entering one. Here, below the scope layer, because `interrupt()` and `idempotent()` read the frame and
 * durability imports nothing above it; `src/scope` re-exports the reading side.
 *
 * The scope has its own AsyncLocalStorage, beside OpenTelemetry's context manager: sharing one storage between them
 * (a frame holding both) measured no faster with a model's real latency (bench/README.md, ADR 0048).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { PendingInterrupt, Resume } from '../types.js';
import type { Checkpointer } from './checkpointer.js';

export interface ExecutionScope {
  /** The execution every row written in this frame belongs to. */
  readonly executionId: string;
  /** Where rows go; null when the run is not durable (then `interrupt()` cannot be persisted and `idempotent` does not cache). */
  readonly checkpointer: Checkpointer | null;
  /** The chain, agent, swarm or supervisor name written as `chain_name` on rows of this frame. */
  readonly runnerName: string;
  /** Nesting path (`agent:<name>`, `swarm:<s>/agent:<a>`, `.../tool:<t>`); null for a plain chain. */
  readonly agentPath: string | null;
  /** The Resume value `interrupt()` returns; set only while the resumed step re-executes. */
  readonly resumeValue: Resume | null;
  /** The pending row claimed for this resume: the reason and context frozen at pause time. */
  readonly resumedInterrupt: PendingInterrupt | null;
}

const frames = new AsyncLocalStorage<ExecutionScope>();

/** The enclosing frame, or undefined outside any executor. */
export function currentScope(): ExecutionScope | undefined {
  return frames.getStore();
}

/** Run `fn` in `frame` (frames are immutable: a child frame is a new object). */
export function runWithScope<T>(frame: ExecutionScope, fn: () => T): T {
  return frames.run(frame, fn);
}
