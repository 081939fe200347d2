/**
 * A run's hold on its execution's lease (RunLease) and the checkpointer its writes go through (FencedCheckpointer),
 * docs/adr/0015. Every write of the leased execution carries the lease's fence (owner and generation), so the store
 * makes it only while the lease is still this run's. The first write of a fresh run takes the lease with its row.
 *
 * Once the lease is lost (a fenced write refused, a renewal refused or failed, the store unreachable while renewing)
 * the run is stopped: every later write, and `throwIfLeaseLost` at a step boundary, throws the same LeaseLost without
 * touching the store. So the holder says so once (its run rejects with that error) and never writes again.
 */
import { arbitrateClaim, arbitrateContinuation } from './claim-arbiter.js';
import type { Checkpoint, PendingInterrupt } from '../types.js';
import type { Checkpointer, CheckpointWrite, Fence, LeaseOptions, LeaseRecord, ListOptions, PendingInterruptWrite } from './checkpointer.js';
import { deadLocalOwner, markOwnerEnded } from './lease-owner.js';
import type { Claim } from './decision.js';
import { ExecutionBusy, IdempotencyKeyTaken, LeaseLost, RunStopped } from './errors.js';
import { takeIdempotencyClaim } from './idempotency-keys.js';
import type { JsonValue } from './json.js';
import { completeCheckpoint } from './rows.js';
import { currentStopSignal, type StopSignal } from './run-stop.js';

/** One hold of one execution's lease by one run (owner ids are never reused). */
export class RunLease {
  #generation: number | null = null;
  /** Why the run may not write: another owner held the lease, or this one lost it. */
  #stopped: ExecutionBusy | null = null;
  #acquiring: Promise<void> | null = null;
  #timer: NodeJS.Timeout | undefined;
  #ended = false;
  /** The trace the run records now; stamped on the next row written once it changes (`stamp`). */
  traceId: string | null = null;
  #stampedTrace: string | null = null;
  /** The shutdown this run obeys (./run-stop.ts): the one bound where the lease was created. */
  readonly #stop: StopSignal | undefined = currentStopSignal();

  constructor(
    readonly store: Checkpointer,
    readonly executionId: string,
    /** `Chain 'refund'`, for messages. */
    readonly runner: string,
    readonly owner: string,
    readonly ttlMs: number,
    /**
     * The `agent_path` of the run's own terminal row (null for a chain's; undefined: none is known, and the lease is
     * released by a statement of its own at the end). A write of that row, or of a pause, releases the lease with it.
     */
    readonly rootPath?: string | null,
    /** The runner definition's key, recorded on the lease (docs/adr/0050). */
    readonly runnerKey?: string,
  ) {}

  #released = false;

  /** The fence for a write; `last`: the run's last write, which releases the lease with it. */
  fenceFor(last: boolean): Fence {
    const fence = this.fence!;
    return last && this.rootPath !== undefined ? { ...fence, release: true } : fence;
  }

  /** A write that released the lease has committed: nothing is left to release at the end. */
  released(): void {
    this.#released = true;
    clearInterval(this.#timer);
  }

  /** True when `row` is the run's own terminal row. */
  isLast(row: CheckpointWrite): boolean {
    return this.rootPath !== undefined && row.step_type === 'run_end' && (row.agent_path ?? null) === this.rootPath;
  }

  /** The fence of this hold, or null before the lease is taken. */
  get fence(): Fence | null {
    return this.#generation === null ? null : { owner: this.owner, generation: this.#generation };
  }

  /** The error the run stops with, or null while it may write. */
  get stopped(): ExecutionBusy | null {
    return this.#stopped;
  }

  /** Take the lease now (ExecutionBusy when another owner holds it); with `first`, that row in the same transaction. */
  acquire(first?: CheckpointWrite): Promise<void> {
    this.#acquiring ??= this.#take(first);
    return this.#acquiring;
  }

  async #take(first: CheckpointWrite | undefined): Promise<void> {
    this.throwIfStopped();
    // A served request's key goes with the run's first row (docs/adr/0052); refused, the run writes nothing.
    const idempotencyKey = first ? takeIdempotencyClaim(this.executionId) : undefined;
    const runner = this.runnerKey;
    const options = { first, ...(idempotencyKey ? { idempotencyKey } : {}), ...(runner ? { runner } : {}) };
    let generation: number | null;
    try {
      // Continuing an existing execution (no first row): a replicated one is leased on the Platform first.
      if (!first) await arbitrateContinuation(this.store, this.executionId, this.owner, this.ttlMs);
      generation = await this.store.acquireLease(this.executionId, this.owner, this.ttlMs, options);
      if (generation === null) {
        // Held by a process of this host that no longer exists (SIGKILLed, crashed): taken over now, not at expiry.
        const holder = await this.store.leaseOf(this.executionId);
        if (holder && deadLocalOwner(holder.owner)) {
          generation = await this.store.acquireLease(this.executionId, this.owner, this.ttlMs, { ...options, takeOverFrom: holder.owner });
        }
      }
    } catch (error) {
      if (error instanceof IdempotencyKeyTaken || error instanceof ExecutionBusy) this.#stopped = error;
      throw error;
    }
    if (generation === null) {
      this.#stopped = new ExecutionBusy(
        `${this.runner} execution '${this.executionId}' is being run by another process right now (it holds the execution's lease); nothing was run here. Try again once that run has ended, or after its lease expires (${this.ttlMs} ms after its owner stops renewing it)`,
      );
      throw this.#stopped;
    }
    this.#generation = generation;
    if (this.#ended) return;
    this.#timer = setInterval(() => this.#renew(), Math.max(30, Math.floor(this.ttlMs / 3)));
    this.#timer.unref();
  }

  #renew(): void {
    if (this.#stopped) return;
    this.store.renewLease(this.executionId, this.owner, this.ttlMs).then(
      (held) => {
        if (!held) this.lose('its lease expired and another process took the execution over');
      },
      (error: unknown) => this.lose(`its lease could not be renewed (${error instanceof Error ? error.message : String(error)})`),
    );
  }

  /** Mark the lease lost (once): the run writes nothing more. Returns the error the run stops with. */
  lose(why: string): ExecutionBusy {
    if (this.#stopped) return this.#stopped;
    clearInterval(this.#timer);
    this.#stopped = new LeaseLost(
      `${this.runner} stopped running execution '${this.executionId}' in this process: ${why}. It wrote nothing more and ran no further step; the process holding the lease now continues the run (or resume it once that lease expires)`,
    );
    return this.#stopped;
  }

  /** Throw the error the run stops with, if any (every write calls it first); past a shutdown's grace, RunStopped. */
  throwIfStopped(): void {
    if (this.#stopped) throw this.#stopped;
    if (this.#stop?.state === 'abandoned' && this.#generation !== null) throw this.#halt(false);
  }

  /**
   * At a step boundary, right after its checkpoint was written: throw what the run stops with, also RunStopped when
   * its process drains (./run-stop.ts). A run that holds no lease yet (nothing written) goes on to its first row.
   */
  throwAtBoundary(): void {
    this.throwIfStopped();
    if (this.#stop && this.#stop.state !== 'running' && this.#generation !== null) throw this.#halt(true);
  }

  #halt(atBoundary: boolean): RunStopped {
    clearInterval(this.#timer);
    const where = atBoundary
      ? 'at a step boundary, after its last checkpoint; its lease was released and another process continues it now'
      : 'before it reached a step boundary within the grace period; it is continued elsewhere once its lease expires';
    const stopped = new RunStopped(
      this.executionId,
      atBoundary,
      `${this.runner} execution '${this.executionId}' was stopped by this process's shutdown ${where}`,
    );
    this.#stopped = stopped;
    return stopped;
  }

  /** `row` with the run's trace id when it is the first row written under that trace. */
  stamp<T extends CheckpointWrite>(row: T): T {
    const traceId = this.traceId;
    if (traceId === null || traceId === this.#stampedTrace || row.trace_id != null) return row;
    this.#stampedTrace = traceId;
    return { ...row, trace_id: traceId };
  }

  /**
   * The run has ended: stop renewing; release the lease unless it was lost or never taken. Returns the release (it
   * never rejects), or null when there is none.
   */
  end(): Promise<void> | null {
    this.#ended = true;
    clearInterval(this.#timer);
    if (this.#generation === null || this.#released) return null;
    // Stopped at a boundary: nothing of the run is under way, so the lease is released now (it stays active: the
    // execution is an orphan a recovery sweep takes over at once).
    if (this.#stopped instanceof RunStopped && this.#stopped.atBoundary) {
      return this.store.releaseLease(this.executionId, this.owner).catch(() => markOwnerEnded(this.owner));
    }
    if (this.#stopped) {
      markOwnerEnded(this.owner);
      return null;
    }
    // A release that cannot be written (the store is down) needs no warning: the lease expires by itself, and a
    // resume from this process takes it over at once (the owner is known to have ended).
    return this.store.releaseLease(this.executionId, this.owner).catch(() => markOwnerEnded(this.owner));
  }
}

/**
 * The checkpointer of a run that holds its execution's lease: reads go to the store as they are; writes of the leased
 * execution are fenced (and the first one of a fresh run takes the lease); writes of other executions pass through.
 */
export class FencedCheckpointer implements Checkpointer {
  constructor(
    readonly inner: Checkpointer,
    readonly lease: RunLease,
  ) {}

  /**
   * Run `write` with the lease's fence: the lease taken first when it is not yet (`first`: the row to take it with,
   * then `write` is not called), a refusal turned into the run's stop.
   */
  async #fenced<T>(
    executionId: string,
    write: (fence: Fence | undefined) => Promise<T>,
    first?: () => { row: CheckpointWrite; result: T },
    last = false,
  ): Promise<T> {
    const lease = this.lease;
    if (executionId !== lease.executionId) return write(undefined);
    lease.throwIfStopped();
    if (!lease.fence) {
      if (first && !last) {
        const { row, result } = first();
        await lease.acquire(row);
        return result;
      }
      await lease.acquire();
    }
    try {
      const fence = lease.fenceFor(last);
      const result = await write(fence);
      if (fence.release) lease.released();
      return result;
    } catch (error) {
      if (error instanceof LeaseLost) throw lease.lose('another process took the execution over (a write was refused)');
      throw error;
    }
  }

  put(checkpoint: CheckpointWrite, fence?: Fence): Promise<Checkpoint> {
    const row = this.lease.stamp(checkpoint);
    return this.#fenced(
      row.execution_id,
      (own) => this.inner.put(row, fence ?? own),
      () => {
        // The first row of a fresh run: complete it here (id, time) so the row returned is the row written.
        const complete = completeCheckpoint(row);
        return { row: complete, result: complete };
      },
      this.lease.isLast(row),
    );
  }

  putWrites(checkpoints: readonly CheckpointWrite[], fence?: Fence): Promise<Checkpoint[]> {
    const rows = checkpoints.map((row, i) => (i === 0 ? this.lease.stamp(row) : row));
    if (rows.length === 0) return this.inner.putWrites(rows, fence);
    return this.#fenced(rows[0]!.execution_id, (own) => this.inner.putWrites(rows, fence ?? own), undefined, this.lease.isLast(rows.at(-1)!));
  }

  recordInterrupt(checkpoint: CheckpointWrite, pending: PendingInterruptWrite, fence?: Fence): Promise<{ checkpoint: Checkpoint; pending: PendingInterrupt }> {
    const row = this.lease.stamp(checkpoint);
    // A pause ends the run: the lease goes with the pause.
    return this.#fenced(row.execution_id, (own) => this.inner.recordInterrupt(row, pending, fence ?? own), undefined, this.lease.rootPath !== undefined);
  }

  async claimPendingInterrupt(executionId: string, claim: Claim, fence?: Fence): Promise<{ pending: PendingInterrupt; checkpoint: Checkpoint } | null> {
    // A replicated execution is claimed on the Platform first (docs/adr/0054); a stale host stops here.
    const arbitrated = await arbitrateClaim(this.inner, executionId, claim);
    return this.#fenced(executionId, (own) => this.inner.claimPendingInterrupt(executionId, arbitrated, fence ?? own));
  }

  putIdempotent(executionId: string, functionKey: string, value: JsonValue, fence?: Fence): Promise<void> {
    return this.#fenced(executionId, (own) => this.inner.putIdempotent(executionId, functionKey, value, fence ?? own));
  }

  setup(): Promise<void> {
    return this.inner.setup();
  }
  getLast(executionId: string): Promise<Checkpoint | null> {
    return this.inner.getLast(executionId);
  }
  getById(checkpointId: string): Promise<Checkpoint | null> {
    return this.inner.getById(checkpointId);
  }
  list(executionId: string, options?: ListOptions): Promise<Checkpoint[]> {
    return this.inner.list(executionId, options);
  }
  listPendingInterrupts(options?: { limit?: number }): Promise<PendingInterrupt[]> {
    return this.inner.listPendingInterrupts(options);
  }
  deletePendingInterruptAtomic(executionId: string): Promise<PendingInterrupt | null> {
    return this.inner.deletePendingInterruptAtomic(executionId);
  }
  acquireLease(executionId: string, owner: string, ttlMs: number, options?: LeaseOptions): Promise<number | null> {
    return this.inner.acquireLease(executionId, owner, ttlMs, options);
  }
  leaseOf(executionId: string): Promise<LeaseRecord | null> {
    return this.inner.leaseOf(executionId);
  }
  renewLease(executionId: string, owner: string, ttlMs: number): Promise<boolean> {
    return this.inner.renewLease(executionId, owner, ttlMs);
  }
  releaseLease(executionId: string, owner: string): Promise<void> {
    return this.inner.releaseLease(executionId, owner);
  }
  deleteExecution(executionId: string): Promise<number> {
    return this.inner.deleteExecution(executionId);
  }
  getIdempotent(executionId: string, functionKey: string): Promise<JsonValue | undefined> {
    return this.inner.getIdempotent(executionId, functionKey);
  }
  prune(olderThan: number | Date): Promise<number> {
    return this.inner.prune(olderThan);
  }
  /** The run's view closes nothing: the store belongs to whoever opened it. */
  async close(): Promise<void> {}
}

/** The store behind `checkpointer` (itself unless it is a run's fenced view). */
export function storeOf(checkpointer: Checkpointer): Checkpointer {
  return checkpointer instanceof FencedCheckpointer ? checkpointer.inner : checkpointer;
}

/** Throw the error the run stopped with when `checkpointer` is a run's view whose lease was lost. */
export function throwIfLeaseLost(checkpointer: Checkpointer | null | undefined): void {
  if (checkpointer instanceof FencedCheckpointer) checkpointer.lease.throwIfStopped();
}

/**
 * At a step boundary, right after its checkpoint was written: as `throwIfLeaseLost`, and RunStopped when the run's
 * process is shutting down (./run-stop.ts), so the run stops where another process can continue it.
 */
export function stopAtBoundary(checkpointer: Checkpointer | null | undefined): void {
  if (checkpointer instanceof FencedCheckpointer) checkpointer.lease.throwAtBoundary();
}

/** Tell a run's view the trace the run records (stamped on its next row); no-op for any other checkpointer. */
export function noteRunTrace(checkpointer: Checkpointer | null | undefined, traceId: string | null): void {
  if (checkpointer instanceof FencedCheckpointer && traceId) checkpointer.lease.traceId = traceId;
}

/** The lease owner of a run's view (the claim records it as `claimed_by`), or null. */
export function leaseOwnerOf(checkpointer: Checkpointer | null | undefined): string | null {
  return checkpointer instanceof FencedCheckpointer ? checkpointer.lease.owner : null;
}
