/**
 * Where an execution stands for recovery (docs/adr/0050), from what `listExecutions` reads: `completed` / `failed`
 * (its terminal row), `paused` (a pending interrupt), `needs_attention` (parked by a sweep for a person), `running`
 * (an active lease some live process holds), `orphaned` (no live holder and no ending). An orphan is `recoverable`
 * only when its lease says a lease-aware agentkit started it (local.db v34, Postgres v7 and later); older incomplete
 * executions are listed, never recovered automatically.
 */
import { deadLocalOwner } from '../durability/lease-owner.js';
import type { ExecutionRecord } from '../durability/recovery-store.js';

export const EXECUTION_STATES = ['running', 'orphaned', 'needs_attention', 'paused', 'failed', 'completed'] as const;
export type ExecutionState = (typeof EXECUTION_STATES)[number];

export interface ExecutionStanding {
  state: ExecutionState;
  /** For an orphan: whether a sweep may continue it. */
  recoverable: boolean;
  /** Why it is parked, or why an orphan is not recoverable; else null. */
  reason: string | null;
}

/** The standing of `record` at `now` (epoch ms). */
export function standingOf(record: ExecutionRecord, now = Date.now()): ExecutionStanding {
  if (record.last_step_type === 'run_end') return { state: record.last_run_status === 'failed' ? 'failed' : 'completed', recoverable: false, reason: null };
  if (record.paused || record.last_status === 'interrupted') return { state: 'paused', recoverable: false, reason: null };
  const lease = record.lease;
  if (lease && !lease.active && lease.attention_reason !== null) return { state: 'needs_attention', recoverable: false, reason: lease.attention_reason };
  if (lease?.active) {
    const live = Date.parse(lease.expires_at) > now && !deadLocalOwner(lease.owner);
    return live ? { state: 'running', recoverable: false, reason: null } : { state: 'orphaned', recoverable: true, reason: null };
  }
  return {
    state: 'orphaned',
    recoverable: false,
    reason: 'started before this store recorded active executions (an older agentkit); resume it by hand with `agentkit resume`',
  };
}
