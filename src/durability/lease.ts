/**
 * Execution leases: one runner per execution at a time. Every path that continues an execution (a resume of a
 * paused, crashed or failed run, the application of a claimed decision) first takes the execution's lease in one
 * statement (`acquireLease`: insert, or take over only when the holder's lease has expired), renews it while the run
 * is alive and releases it when the call ends (without waiting for the release round trip: a later resume from this
 * process, and `close()`, wait for it). A second process gets ExecutionBusy instead of running the work again;
 * a process that died holding a lease blocks the execution for at most the lease's time to live.
 *
 * The time to live is `AGENTKIT_EXECUTION_LEASE_MS` (default 30 s); the holder renews every third of it, so a run
 * keeps its lease unless its event loop stalls for longer than two thirds of it.
 */
import { randomUUID } from 'node:crypto';
import { processIdentity } from '../config/process-identity.js';
import { ConfigError } from '../errors.js';
import type { Checkpointer } from './checkpointer.js';
import { ExecutionBusy } from './errors.js';

/**
 * Releases still in flight, per checkpointer and execution. A resume returns as soon as its run has ended, without
 * waiting for the release's round trip; a later resume of the same execution from this process waits for it first
 * (so it never finds its own process's lease), and `settleLeaseReleases` lets `close()` wait for all of them.
 */
const releasing = new WeakMap<Checkpointer, Map<string, Promise<void>>>();

/** Wait for the lease releases `checkpointer` still has in flight (called by `close()` before connections go). */
export async function settleLeaseReleases(checkpointer: Checkpointer): Promise<void> {
  const inFlight = releasing.get(checkpointer);
  if (inFlight) await Promise.all(inFlight.values());
}

/** Default lease time to live. */
export const DEFAULT_LEASE_MS = 30_000;

/** The lease time to live from `AGENTKIT_EXECUTION_LEASE_MS` (milliseconds, at least 100), else 30 s. */
export function leaseTtlMs(env: Record<string, string | undefined> = process.env): number {
  const raw = env.AGENTKIT_EXECUTION_LEASE_MS;
  if (raw === undefined || raw === '') return DEFAULT_LEASE_MS;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 100) {
    throw new ConfigError(`AGENTKIT_EXECUTION_LEASE_MS must be a whole number of milliseconds, at least 100, not ${JSON.stringify(raw)}`);
  }
  return value;
}

/**
 * A lease owner id: `<host>:<pid>:<instance id>:<uuid>`, the process identity (config/process-identity.ts, whose
 * instance id is also the tracing resource's `service.instance.id`) and a fresh uuid per call (one per resume).
 */
export function newLeaseOwner(): string {
  const { host, pid, instanceId } = processIdentity();
  return `${host}:${pid}:${instanceId}:${randomUUID()}`;
}

/**
 * Run `fn` holding the lease of `executionId`: ExecutionBusy when another owner holds an unexpired lease. The lease
 * is renewed every third of its time to live while `fn` runs and released when it settles. `runner` names the runner
 * in the message (`Chain 'refund'`).
 */
export async function withExecutionLease<T>(checkpointer: Checkpointer, executionId: string, runner: string, fn: (owner: string) => Promise<T>): Promise<T> {
  const owner = newLeaseOwner();
  const ttl = leaseTtlMs();
  let inFlight = releasing.get(checkpointer);
  if (!inFlight) releasing.set(checkpointer, (inFlight = new Map()));
  await inFlight.get(executionId);
  if (!(await checkpointer.acquireLease(executionId, owner, ttl))) {
    throw new ExecutionBusy(
      `${runner} execution '${executionId}' is being run by another process right now (it holds the execution's lease); nothing was run here. Try again once that run has ended, or after its lease expires (${ttl} ms after its owner stops renewing it)`,
    );
  }
  let warned = false;
  const timer = setInterval(
    () => {
      checkpointer.renewLease(executionId, owner, ttl).then(
        (held) => {
          if (!held && !warned) {
            warned = true;
            process.emitWarning(
              `agentkit: the lease of execution '${executionId}' expired while this process was running it (its event loop stalled for longer than the lease); another process may take it over`,
            );
          }
        },
        () => undefined,
      );
    },
    Math.max(30, Math.floor(ttl / 3)),
  );
  timer.unref();
  try {
    return await fn(owner);
  } finally {
    clearInterval(timer);
    const release = checkpointer
      .releaseLease(executionId, owner)
      .catch((error: unknown) => {
        process.emitWarning(
          `agentkit: could not release the lease of execution '${executionId}' (it expires by itself): ${error instanceof Error ? error.message : String(error)}`,
        );
      })
      .finally(() => {
        if (inFlight.get(executionId) === release) inFlight.delete(executionId);
      });
    inFlight.set(executionId, release);
  }
}
