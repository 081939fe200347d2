/**
 * Execution leases (docs/adr/0015): one runner per execution at a time, on every path that runs one. A fresh run
 * takes its execution's lease with its first row (one transaction), a resume before it reads anything; the holder
 * renews it on an unref'd timer and releases it when the call ends (without waiting for the release's round trip: a
 * later run of the same execution from this process, and `close()`, wait for it). Every write of the run goes through
 * a FencedCheckpointer (./fenced.ts) and is conditional on the lease's owner and generation, so a holder that stalled
 * past the time to live and was taken over writes nothing more: its next write is refused, it stops with LeaseLost.
 *
 * The time to live is `AGENTKIT_EXECUTION_LEASE_MS` (default 30 s); the holder renews every third of it.
 */
import { randomUUID } from 'node:crypto';
import { processIdentity } from '../config/process-identity.js';
import { ConfigError } from '../errors.js';
import type { Checkpointer } from './checkpointer.js';
import { FencedCheckpointer, RunLease } from './fenced.js';

/**
 * Releases still in flight, per checkpointer and execution. A run returns as soon as it has ended, without waiting
 * for the release's round trip; a later run of the same execution from this process waits for it first (so it never
 * finds its own process's lease), and `settleLeaseReleases` lets `close()` wait for all of them.
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
 * instance id is also the tracing resource's `service.instance.id`) and a fresh uuid per acquisition, so an owner
 * id names one hold of one lease and never comes back.
 */
export function newLeaseOwner(): string {
  const { host, pid, instanceId } = processIdentity();
  return `${host}:${pid}:${instanceId}:${randomUUID()}`;
}

/**
 * Run `fn` holding the lease of `executionId`, its writes fenced by it through the FencedCheckpointer it is given.
 * `when`: `now` (a resume: taken before `fn` runs; ExecutionBusy when another owner holds an unexpired lease) or
 * `first-write` (a fresh run or a fork: taken with the run's first row, in the same transaction; ExecutionBusy from
 * that write). `runner` names the runner in messages (`Chain 'refund'`). `rootPath`: the `agent_path` of the run's own
 * terminal row (null for a chain): that row, or a pause, releases the lease with it; otherwise (and when the run ends
 * without either) it is released when `fn` settles, unless it was lost. `key`: the runner definition's key
 * (./runner-key.ts), recorded on the lease for recovery sweeps (docs/adr/0050).
 */
export async function withExecutionLease<T>(
  checkpointer: Checkpointer,
  executionId: string,
  runner: string,
  fn: (fenced: FencedCheckpointer) => Promise<T>,
  when: 'now' | 'first-write' = 'now',
  rootPath?: string | null,
  key?: string | null,
): Promise<T> {
  const inner = checkpointer instanceof FencedCheckpointer ? checkpointer.inner : checkpointer;
  let inFlight = releasing.get(inner);
  if (!inFlight) releasing.set(inner, (inFlight = new Map()));
  const previous = inFlight.get(executionId);
  if (previous) await previous;
  const lease = new RunLease(inner, executionId, runner, newLeaseOwner(), leaseTtlMs(), rootPath, key ?? undefined);
  if (when === 'now') await lease.acquire();
  try {
    return await fn(new FencedCheckpointer(inner, lease));
  } finally {
    const release = lease.end();
    if (release) {
      const tracked = release.finally(() => {
        if (inFlight.get(executionId) === tracked) inFlight.delete(executionId);
      });
      inFlight.set(executionId, tracked);
    }
  }
}
