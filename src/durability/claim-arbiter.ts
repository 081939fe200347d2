/**
 * Where a claim of a replicated execution is arbitrated (docs/adr/0054), without the durability layer knowing the
 * Platform: connected mode installs an arbiter; every claim of a run (the FencedCheckpointer's) asks it first, for
 * executions the store has replicated (`isReplicated`). The arbiter returns when this host may claim locally, and
 * throws AlreadyResumed when the Platform recorded another decision for the pause (after resolving the stale local
 * pending row). Without an arbiter, or for an execution never replicated, the local claim decides alone.
 */
import type { Checkpointer } from './checkpointer.js';
import type { Claim } from './decision.js';
import type { PendingInterrupt } from '../types.js';

/**
 * Decide whether this host may claim `pending` of `executionId` (see the module comment): resolves to the claim to
 * record (the same, or one marked as decided offline when the caller allowed it and the Platform could not be
 * reached), or throws.
 */
export type ClaimArbiter = (checkpointer: Checkpointer, executionId: string, pending: PendingInterrupt, claim: Claim) => Promise<Claim>;

/** Optional: does the store hold rows of the execution that were queued or sent to the Platform? */
export interface ReplicationAwareCheckpointer extends Checkpointer {
  isReplicated(executionId: string): Promise<boolean>;
}

let arbiter: ClaimArbiter | null = null;

/** Install (or, with null, remove) the arbiter. Connected mode installs one. */
export function setClaimArbiter(next: ClaimArbiter | null): void {
  arbiter = next;
}

/**
 * Ask the arbiter before claiming `executionId` in `checkpointer` (the store's own handle); resolves to the claim to
 * record. Returns `claim` at once when no arbiter is installed, the store cannot say, the execution is not
 * replicated, or nothing is pending.
 */
export async function arbitrateClaim(checkpointer: Checkpointer, executionId: string, claim: Claim): Promise<Claim> {
  if (!arbiter || !(await isReplicated(checkpointer, executionId))) return claim;
  const pending = await pendingOf(checkpointer, executionId);
  if (!pending) return claim;
  return arbiter(checkpointer, executionId, pending, claim);
}

/** True when the store says the execution has rows queued or sent to the Platform. */
async function isReplicated(checkpointer: Checkpointer, executionId: string): Promise<boolean> {
  const aware = checkpointer as Partial<ReplicationAwareCheckpointer>;
  return typeof aware.isReplicated === 'function' && (await aware.isReplicated(executionId));
}

/** The execution's pending interrupt, or null when it is not paused. */
async function pendingOf(checkpointer: Checkpointer, executionId: string): Promise<PendingInterrupt | null> {
  return (await checkpointer.listPendingInterrupts({ limit: 10_000 })).find((p) => p.execution_id === executionId) ?? null;
}

/**
 * Decide whether this host may continue `executionId` after a crash (a resume or a recovery of a run that is neither
 * paused nor ended): resolves when it may, throws ExecutionBusy when another host holds the Platform's lease of it.
 */
export type ContinuationArbiter = (checkpointer: Checkpointer, executionId: string, owner: string, ttlMs: number) => Promise<void>;

let continuation: ContinuationArbiter | null = null;

/** Install (or, with null, remove) the continuation arbiter. Connected mode installs one. */
export function setContinuationArbiter(next: ContinuationArbiter | null): void {
  continuation = next;
}

/**
 * Ask the continuation arbiter before a run takes the lease of an existing execution (docs/adr/0054): returns at once
 * when none is installed, the execution is not replicated, or it is paused (its claim, made under this lease, is
 * arbitrated by `arbitrateClaim`). Renewals never come here.
 */
export async function arbitrateContinuation(checkpointer: Checkpointer, executionId: string, owner: string, ttlMs: number): Promise<void> {
  if (!continuation || !(await isReplicated(checkpointer, executionId))) return;
  if (await pendingOf(checkpointer, executionId)) return;
  await continuation(checkpointer, executionId, owner, ttlMs);
}
