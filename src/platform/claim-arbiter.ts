/**
 * The Platform's side of claiming a replicated execution (docs/adr/0054), installed with replication: before a host
 * claims a pause locally it flushes the execution's queued rows, then claims the pause on the Platform. The claim id is
 * derived from this host, its store, the execution and the pause, so a retry after a lost response, a restart after a
 * crash that followed the win, and other processes on the same store all meet the same claim (the local atomic
 * claim then decides among those processes); a host with another store gets AlreadyResumed, naming the host,
 * principal and time of the decision in force, after its stale pending row is resolved (deleted) so it lists nothing
 * pending. Not connected: the local claim decides alone (as before connected mode).
 *
 * Platform unreachable (no answer, 5xx, 429 after the client's retries, or the execution's rows could not be
 * flushed): PlatformUnavailable, unless the caller allowed an offline decision; then the claim is recorded as decided
 * offline on this host, queued, and judged by the Platform at ingest (refused and quarantined on conflict).
 */
import { createHash } from 'node:crypto';
import { hostname } from 'node:os';
import type { Checkpointer } from '../durability/checkpointer.js';
import { supportsReplication } from '../durability/checkpointer.js';
import { setClaimArbiter, setContinuationArbiter } from '../durability/claim-arbiter.js';
import { checkClaim, offlineClaim, type Claim } from '../durability/decision.js';
import { AlreadyResumed, ExecutionBusy } from '../durability/errors.js';
import type { PendingInterrupt } from '../types.js';
import { clientFor, resolveConnection } from './current-connection.js';
import { PlatformError, PlatformUnavailable } from './errors.js';
import { drainReplication } from './replication.js';

/** The store this claim comes from, as the Platform should tell hosts apart. */
function storeIdentity(checkpointer: Checkpointer): string {
  const source = supportsReplication(checkpointer) ? (checkpointer.replicaSource?.() ?? null) : null;
  if (!source) return 'memory';
  return source.driver === 'sqlite' ? `sqlite:${source.path}` : `postgres:${source.url}:${source.schema}`;
}

async function arbitrate(checkpointer: Checkpointer, executionId: string, pending: PendingInterrupt, claim: Claim): Promise<Claim> {
  const connection = resolveConnection();
  if (!connection) return claim;
  return arbitratePause(checkpointer, executionId, pending, claim, connection);
}

/**
 * Continuing a replicated execution after a crash (docs/adr/0054): take the Platform's lease first. Another host's
 * lease in force (it continues the run, or its rows arrived within the lease time) is ExecutionBusy naming it; an
 * unreachable Platform is PlatformUnavailable (the run is not continued: another host may be running it).
 */
async function continueOnPlatform(_checkpointer: Checkpointer, executionId: string, owner: string, ttlMs: number): Promise<void> {
  const connection = resolveConnection();
  if (!connection) return;
  let outcome: Awaited<ReturnType<ReturnType<typeof clientFor>['leaseExecution']>>;
  try {
    // No flush first: rows this host sends now would start a lease for "the running run" that this request then
    // meets. Sent after the lease is ours, they extend it.
    outcome = await clientFor(connection).leaseExecution(executionId, { holder: owner, host: hostname(), ttl_ms: Math.max(100, Math.min(ttlMs, 3_600_000)) });
  } catch (error) {
    if (error instanceof PlatformError && error.transient) throw new PlatformUnavailable(connection.target, executionId, error.message, 'continue');
    throw error;
  }
  if (outcome.won) return;
  const { holder, host, expires_at: until } = outcome.lease;
  if (holder === 'finished') {
    throw new AlreadyResumed(
      `execution '${executionId}' already finished elsewhere (its run_end of ${until} is on the Platform); this host's copy is stale and nothing was run`,
    );
  }
  throw new ExecutionBusy(
    `execution '${executionId}' is being run elsewhere: ${holder} on ${host} holds the Platform's lease until ${until}; nothing was run here. Try again once that run has ended or its lease lapsed`,
  );
}

async function arbitratePause(
  checkpointer: Checkpointer,
  executionId: string,
  pending: PendingInterrupt,
  claim: Claim,
  connection: NonNullable<ReturnType<typeof resolveConnection>>,
): Promise<Claim> {
  const checked = checkClaim(claim);
  const unreachable = (cause: string): Claim => {
    if (checked.decision.offlineAllowed) return offlineClaim(checked);
    throw new PlatformUnavailable(connection.target, executionId, cause);
  };
  // The Platform must hold the pause before it can arbitrate it.
  const flushed = await drainReplication(checkpointer, connection);
  if (flushed?.outcome === 'unavailable') return unreachable(flushed.error ?? 'the rows of the pause could not be sent');
  const host = hostname();
  const claimId = createHash('sha256')
    .update([host, storeIdentity(checkpointer), executionId, pending.created_at].join('\u0000'))
    .digest('hex')
    .slice(0, 32);
  let outcome: Awaited<ReturnType<ReturnType<typeof clientFor>['claimExecution']>>;
  try {
    outcome = await clientFor(connection).claimExecution(executionId, {
      claim_id: claimId,
      host,
      pending_created_at: pending.created_at,
      decision: {
        resume: { approved: checked.resume.approved, metadata: checked.resume.metadata },
        decided_by: { principal: checked.decision.decidedBy.principal, surface: checked.decision.decidedBy.surface },
        reason: checked.decision.reason,
      },
    });
  } catch (error) {
    if (error instanceof PlatformError && error.transient) return unreachable(error.message);
    throw error;
  }
  if (outcome.won) return checked;
  // A stale copy: the pause was decided elsewhere. Its pending row is resolved here, so this host lists nothing.
  await checkpointer.deletePendingInterruptAtomic(executionId);
  const { decided_by: by } = outcome.record.decision;
  throw new AlreadyResumed(
    `execution '${executionId}' was already resumed: decided by ${by.principal} (${by.surface}) on host ${outcome.record.host} at ${outcome.record.decided_at} (the Platform holds that decision)`,
  );
}

/** Install the Platform arbiter (idempotent). `connect()` and `jobScope()` call it through `installReplication`. */
export function installClaimArbiter(): void {
  setClaimArbiter(arbitrate);
  setContinuationArbiter(continueOnPlatform);
}
