/**
 * Lease owner ids: `<host>:<pid>:<instance id>:<uuid>` (./lease.ts `newLeaseOwner`). A lease whose owner is a process
 * of this host that no longer exists is dead before its expiry: a resume takes it over at once (docs/adr/0015).
 */
import { processIdentity } from '../config/process-identity.js';

/** Host, pid and instance id of an owner id, or null when it is not one (an owner some other code chose). */
export function parseLeaseOwner(owner: string): { host: string; pid: number; instanceId: string } | null {
  const parts = owner.split(':');
  if (parts.length < 4) return null;
  const pid = Number(parts.at(-3));
  if (!Number.isInteger(pid) || pid <= 0) return null;
  return { host: parts.slice(0, -3).join(':'), pid, instanceId: parts.at(-2)! };
}

/** Owners in this process whose run ended without releasing its lease (the store was down, the lease was lost). */
const ended = new Set<string>();
const ENDED_KEPT = 10_000;

/** Remember that `owner`'s run (in this process) has ended while its lease row may still name it. */
export function markOwnerEnded(owner: string): void {
  if (ended.size >= ENDED_KEPT) ended.delete(ended.values().next().value!);
  ended.add(owner);
}

/**
 * True when `owner` names a process of this host (same host name) that is gone: no process has its pid, or one does
 * but it is not the owner (this process, with another instance id: the pid was reused). A process that exists but
 * that we may not signal (EPERM) counts as alive. In this process, an owner whose run has ended is dead too (its
 * release could not be written).
 */
export function deadLocalOwner(owner: string): boolean {
  const parsed = parseLeaseOwner(owner);
  const me = processIdentity();
  if (!parsed || parsed.host !== me.host) return false;
  if (parsed.pid === me.pid) return parsed.instanceId !== me.instanceId || ended.has(owner);
  try {
    process.kill(parsed.pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}
