/**
 * Idempotency keys of served requests (docs/adr/0052): a request's `Idempotency-Key`, bound to its caller and to a
 * fingerprint of its body, recorded in the store in the same transaction as the first row of the execution it starts.
 * The store's unique key `(caller, idempotency_key)` decides a race between replicas: of two runs started with one key
 * at once, one writes its first row, the other's first write is refused (IdempotencyKeyTaken) and it writes nothing.
 *
 * The key travels to that first write through the run's async context (`idempotencyClaim`), so runners need not
 * know about it: the lease (./fenced.ts) takes the claim of its execution once, with the first row.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Checkpointer } from './checkpointer.js';

/** A key to record with an execution's first row. */
export interface IdempotencyKeyWrite {
  /** Who sent it: the hex SHA-256 of the caller's bearer token, or `anonymous`. */
  caller: string;
  /** The header's token as sent (quotes removed). */
  key: string;
  /** The hex SHA-256 of the request body as canonical JSON. */
  fingerprint: string;
  /** How long the key is kept from now (the retention window), in milliseconds. */
  ttlMs: number;
}

/** A recorded key. */
export interface IdempotencyKeyRecord {
  caller: string;
  key: string;
  fingerprint: string;
  execution_id: string;
  /** ISO-8601 UTC. */
  created_at: string;
  /** ISO-8601 UTC; a key past it is free again (and pruned). */
  expires_at: string;
}

/** The optional storage protocol of idempotency keys; both built-in checkpointers implement it. */
export interface IdempotencyKeyStore {
  /** The unexpired record of `(caller, key)`, or null. */
  idempotencyKeyOf(caller: string, key: string): Promise<IdempotencyKeyRecord | null>;
  /**
   * Delete the record of `(caller, key)` when it names `executionId` and that execution has no row (it never wrote
   * its first row) and no unexpired lease; true when deleted. Lets a key whose run never started be used again.
   */
  releaseIdempotencyKey(caller: string, key: string, executionId: string): Promise<boolean>;
  /** Delete every expired record; returns how many. */
  pruneIdempotencyKeys(): Promise<number>;
}

/** True when `checkpointer` records idempotency keys. */
export function supportsIdempotencyKeys(checkpointer: Checkpointer): checkpointer is Checkpointer & IdempotencyKeyStore {
  const c = checkpointer as Partial<IdempotencyKeyStore>;
  return typeof c.idempotencyKeyOf === 'function' && typeof c.pruneIdempotencyKeys === 'function';
}

/** One claim per served request: taken (once) by the first write of the execution it names. */
interface Claim {
  executionId: string;
  write: IdempotencyKeyWrite;
  taken: boolean;
}

const claims = new AsyncLocalStorage<Claim>();

/**
 * A scope for the run of `executionId`: the first row that execution writes inside any call of the returned function
 * records `write` in the same transaction, once (a stream's steps each run in a call of their own).
 */
export function idempotencyClaim(executionId: string, write: IdempotencyKeyWrite): <T>(fn: () => T) => T {
  const claim: Claim = { executionId, write, taken: false };
  return (fn) => claims.run(claim, fn);
}

/**
 * The key to record with the first row of `executionId`, once: undefined when the context holds no claim for that
 * execution (a nested run of another execution, or no served request) or it was already taken.
 */
export function takeIdempotencyClaim(executionId: string): IdempotencyKeyWrite | undefined {
  const claim = claims.getStore();
  if (!claim || claim.taken || claim.executionId !== executionId) return undefined;
  claim.taken = true;
  return claim.write;
}

/** Validate a key write before it reaches SQL. */
export function checkIdempotencyKeyWrite(write: IdempotencyKeyWrite): void {
  if (!Number.isFinite(write.ttlMs) || write.ttlMs <= 0) throw new RangeError('an idempotency key needs a positive time to live');
  if (write.key === '' || write.caller === '' || write.fingerprint === '') throw new RangeError('an idempotency key needs a key, a caller and a fingerprint');
}
