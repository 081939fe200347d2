/**
 * What a request with an `Idempotency-Key` does (docs/adr/0052): start an execution that records the key with its
 * first row, or, when the caller's key is already recorded, answer the execution it started as it stands now.
 */
import { randomUUID } from 'node:crypto';
import type { Checkpointer } from '../durability/checkpointer.js';
import { type ExecutionStatus, readExecutionStatus } from '../durability/execution-status.js';
import { idempotencyClaim, type IdempotencyKeyStore } from '../durability/idempotency-keys.js';

/** How to handle a keyed request. */
export type KeyedStep =
  /** Nothing recorded: run execution `executionId`, every step of it inside `within` (the key goes with its first row). */
  | { kind: 'start'; executionId: string; within: <T>(fn: () => T) => T }
  /** A repeat: the first request's execution is completed, paused or failed; answer it. */
  | { kind: 'repeat'; status: ExecutionStatus }
  /** A repeat while that execution runs (or waits for recovery): 409 with its id. */
  | { kind: 'busy'; executionId: string }
  /** The key came first with another body: 422. */
  | { kind: 'mismatch' };

export interface KeyedRequest {
  caller: string;
  key: string;
  fingerprint: string;
  ttlMs: number;
}

/**
 * The step for `request`. A record whose execution never wrote a row (it was deleted, or pruned) is released once
 * nobody holds that execution's lease, and the request starts afresh.
 */
export async function nextKeyedStep(store: Checkpointer & IdempotencyKeyStore, request: KeyedRequest): Promise<KeyedStep> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const record = await store.idempotencyKeyOf(request.caller, request.key);
    if (!record) {
      const executionId = randomUUID();
      return { kind: 'start', executionId, within: idempotencyClaim(executionId, request) };
    }
    if (record.fingerprint !== request.fingerprint) return { kind: 'mismatch' };
    const status = await readExecutionStatus(store, record.execution_id);
    if (!status) {
      if (await store.releaseIdempotencyKey(request.caller, request.key, record.execution_id)) continue;
      return { kind: 'busy', executionId: record.execution_id };
    }
    if (status.status === 'running' || status.status === 'needs_attention') return { kind: 'busy', executionId: record.execution_id };
    return { kind: 'repeat', status };
  }
  // Released and taken again by others every time: whoever holds it now is running.
  const record = await store.idempotencyKeyOf(request.caller, request.key);
  return { kind: 'busy', executionId: record?.execution_id ?? '' };
}
