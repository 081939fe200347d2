/**
 * Recovery of orphaned executions (docs/adr/0050). A sweep reads the active leases of each served runner's store (one
 * indexed read), and for every orphan (lease expired, or held by a dead process of this host) whose recorded runner
 * key is one of the runners it serves:
 *
 * 1. claims it fleet-wide (`claimOrphan`: one UPDATE conditional on the generation it saw, which also counts the
 *    attempt), so of many sweeping replicas exactly one continues it;
 * 2. an execution that has in fact ended or paused is only marked inactive;
 * 3. past `maxAttempts`, writes its `failed` terminal row (fenced by the claim) with the reason;
 * 4. a crash at a tool boundary whose tool is `side_effecting` (or unknown to the runner) is parked
 *    `needs_attention`, never re-run: a person resumes it (`agentkit resume`) or leaves it failed;
 * 5. else continues it with `runner.resume(id)` (no value: the crash-resume shapes). The claim's owner is marked
 *    ended in this process, so the resume's own lease acquisition takes it over at once (ADR 0015's dead-local rule).
 *
 * Executions of runners it does not serve (another service, another version) are left alone and reported.
 */
import { RunStopped } from '../durability/errors.js';
import { isRunEnd, runEndRow } from '../durability/run-end.js';
import { leaseTtlMs, newLeaseOwner } from '../durability/lease.js';
import { deadLocalOwner, markOwnerEnded } from '../durability/lease-owner.js';
import { supportsRecovery, type ActiveLease, type RecoveringCheckpointer } from '../durability/recovery-store.js';
import { runnerKey } from '../durability/runner-key.js';
import type { Checkpointer } from '../durability/checkpointer.js';
import { agentStepOf } from '../agent/durable/rows.js';
import { runnerOfCheckpoint } from '../agent/durable/owner.js';
import { ConfigError } from '../errors.js';
import { replayClassOf } from './tools-of.js';

/** A runner a sweep may continue executions of: an Agent, Chain, Swarm or Supervisor with a checkpointer. */
export interface RecoverableRunner {
  readonly name: string;
  readonly kind: string;
  readonly checkpointer: Checkpointer | null;
  resume(executionId: string): Promise<{ status: string }>;
}

export interface RecoverOptions {
  /** Attempts per execution before it is marked failed (`AGENTKIT_RECOVER_MAX_ATTEMPTS`, default 3). */
  maxAttempts?: number;
  /** Recoveries running at once in this process (`AGENTKIT_RECOVER_CONCURRENCY`, default 4). */
  concurrency?: number;
}

/** What a sweep did with one orphan it saw. */
export interface RecoveryOutcome {
  execution_id: string;
  /**
   * `completed` / `paused` / `error`: continued here and ended so; `parked`; `failed` (attempt cap); `settled` (it
   * had ended or paused already); `not_served` (another runner's or version's: listed, not run); `lost` (another
   * process claimed it first); `stopped` (continued here until this process shut down and stopped it at a step
   * boundary, docs/adr/0051: another process continues it).
   */
  outcome: 'completed' | 'paused' | 'error' | 'parked' | 'failed' | 'settled' | 'not_served' | 'lost' | 'stopped';
  attempt: number | null;
  runner_key: string | null;
  /** The error of a continued run that failed, or why it was parked or failed. */
  detail: string | null;
}

/** A whole number from `env[name]`, at least `min`, else `fallback`; ConfigError naming the variable otherwise. */
function envInteger(env: Record<string, string | undefined>, name: string, fallback: number, min: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) throw new ConfigError(`${name} must be a whole number, at least ${min}, not ${JSON.stringify(raw)}`);
  return value;
}

/** The sweep settings from the environment (`AGENTKIT_RECOVER_*`), for `agent serve` and `agentkit recover`. */
export function recoverSettings(env: Record<string, string | undefined> = process.env): Required<RecoverOptions> & { intervalMs: number } {
  return {
    maxAttempts: envInteger(env, 'AGENTKIT_RECOVER_MAX_ATTEMPTS', 3, 1),
    concurrency: envInteger(env, 'AGENTKIT_RECOVER_CONCURRENCY', 4, 1),
    intervalMs: envInteger(env, 'AGENTKIT_RECOVER_INTERVAL_MS', 5000, 50),
  };
}

/** How many active leases one sweep reads per store. */
const SCAN_LIMIT = 1000;

/** Sweeps for the runners it serves; recoveries it started keep running between sweeps, at most `concurrency`. */
export class Recoverer {
  readonly #runners = new Map<string, RecoverableRunner>();
  readonly #stores: RecoveringCheckpointer[] = [];
  readonly #inFlight = new Map<string, Promise<RecoveryOutcome>>();
  readonly #maxAttempts: number;
  readonly #concurrency: number;

  /** ConfigError when a runner has no checkpointer, or one without the recovery protocol. */
  constructor(runners: readonly RecoverableRunner[], options: RecoverOptions = {}) {
    const settings = recoverSettings();
    this.#maxAttempts = options.maxAttempts ?? settings.maxAttempts;
    this.#concurrency = options.concurrency ?? settings.concurrency;
    for (const runner of runners) {
      const key = runnerKey(runner);
      const store = runner.checkpointer;
      if (!key || !store) throw new ConfigError(`${runner.kind} '${runner.name}' has no checkpointer: there is nothing to recover`);
      if (!supportsRecovery(store))
        throw new ConfigError(`${runner.kind} '${runner.name}': its checkpointer does not implement recovery (activeLeases, claimOrphan)`);
      this.#runners.set(key, runner);
      if (!this.#stores.includes(store)) this.#stores.push(store);
    }
  }

  /** Recoveries running now. */
  get inFlight(): number {
    return this.#inFlight.size;
  }

  /**
   * One sweep: claim and start up to the free concurrency slots. Resolves with the outcomes decided at once
   * (parked, failed, settled, not served, lost) and the promises of the recoveries it started.
   */
  async sweep(skip: ReadonlySet<string> = new Set()): Promise<{ decided: RecoveryOutcome[]; started: Array<Promise<RecoveryOutcome>> }> {
    const decided: RecoveryOutcome[] = [];
    const started: Array<Promise<RecoveryOutcome>> = [];
    for (const store of this.#stores) {
      const now = Date.now();
      for (const lease of await store.activeLeases({ limit: SCAN_LIMIT })) {
        if (this.#inFlight.has(lease.execution_id) || skip.has(lease.execution_id)) continue;
        const dead = Date.parse(lease.expires_at) > now && deadLocalOwner(lease.owner);
        if (Date.parse(lease.expires_at) > now && !dead) continue;
        const runner = lease.runner_key ? this.#runners.get(lease.runner_key) : undefined;
        if (!runner || runner.checkpointer !== store) {
          decided.push({ execution_id: lease.execution_id, outcome: 'not_served', attempt: null, runner_key: lease.runner_key, detail: null });
          continue;
        }
        if (this.#inFlight.size >= this.#concurrency) break;
        const step = await this.#recover(store, runner, lease, dead);
        if ('running' in step) started.push(step.running);
        else decided.push(step);
      }
    }
    return { decided, started };
  }

  /** Wait for every recovery this recoverer started. */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.#inFlight.values()]);
  }

  async #recover(
    store: RecoveringCheckpointer,
    runner: RecoverableRunner,
    lease: ActiveLease,
    dead: boolean,
  ): Promise<RecoveryOutcome | { running: Promise<RecoveryOutcome> }> {
    const id = lease.execution_id;
    const owner = newLeaseOwner();
    const base = { execution_id: id, runner_key: lease.runner_key };
    const claim = await store.claimOrphan(id, lease.generation, owner, leaseTtlMs(), dead ? lease.owner : null);
    if (!claim) return { ...base, outcome: 'lost', attempt: null, detail: null };
    const { generation, attempt } = claim;
    const last = await store.getLast(id);
    const pending = last?.status === 'interrupted';
    if (!last || isRunEnd(last) || pending) {
      await store.deactivate(id, generation, null);
      return { ...base, outcome: 'settled', attempt, detail: null };
    }
    if (attempt > this.#maxAttempts) {
      const reason = `recovery gave up after ${this.#maxAttempts} attempts (AGENTKIT_RECOVER_MAX_ATTEMPTS): each attempt's process stopped before the run ended`;
      const first = (await store.list(id, { limit: 1 }))[0] ?? last;
      const root = runnerOfCheckpoint(first);
      await store.put(
        runEndRow({
          executionId: id,
          chainName: first.chain_name,
          status: 'failed',
          state: last.state_snapshot,
          nodeIndex: last.node_index,
          iteration: last.iteration,
          agentPath: root.kind === 'chain' ? null : `${root.kind}:${root.name}`,
          error: new Error(reason),
        }),
        { owner, generation, release: true },
      );
      await store.recordRecovery({ execution_id: id, attempt, outcome: 'failed', recovered_by: owner, reason });
      return { ...base, outcome: 'failed', attempt, detail: reason };
    }
    const step = agentStepOf(last);
    if (step?.kind === 'tool') {
      const replayClass = replayClassOf(runner, step.toolName);
      if (replayClass === null || replayClass === 'side_effecting') {
        const reason = `crashed inside tool '${step.toolName}' (${replayClass ?? 'unknown to this runner'}, not idempotent): not re-run automatically; resume it by hand once you know whether its side effect happened`;
        await store.deactivate(id, generation, reason);
        await store.recordRecovery({ execution_id: id, attempt, outcome: 'parked', recovered_by: owner, reason });
        return { ...base, outcome: 'parked', attempt, detail: reason };
      }
    }
    await store.recordRecovery({ execution_id: id, attempt, outcome: 'resumed', recovered_by: owner, reason: null });
    // The resume takes the lease over from the claim at once: the claim's owner counts as ended in this process.
    markOwnerEnded(owner);
    const run = runner.resume(id).then(
      (result): RecoveryOutcome => ({ ...base, outcome: result.status === 'paused' ? 'paused' : 'completed', attempt, detail: null }),
      (error: unknown): RecoveryOutcome => ({
        ...base,
        outcome: error instanceof RunStopped ? 'stopped' : 'error',
        attempt,
        detail: error instanceof Error ? error.message : String(error),
      }),
    );
    const tracked = run.finally(() => this.#inFlight.delete(id));
    this.#inFlight.set(id, tracked);
    // Wrapped: an async function returning the promise itself would make the sweep wait for the whole run.
    return { running: tracked };
  }
}

/**
 * One sweep over `runners`' stores, waiting for the recoveries it starts: every orphan of theirs is continued,
 * parked or failed (see Recoverer). Resolves with one outcome per orphan seen.
 */
export async function recoverOrphans(runners: readonly RecoverableRunner[], options: RecoverOptions = {}): Promise<RecoveryOutcome[]> {
  const recoverer = new Recoverer(runners, options);
  const outcomes: RecoveryOutcome[] = [];
  const seen = new Set<string>();
  for (;;) {
    const { decided, started } = await recoverer.sweep(seen);
    for (const outcome of [...decided, ...(await Promise.all(started))]) {
      seen.add(outcome.execution_id);
      outcomes.push(outcome);
    }
    // A sweep stops at the concurrency limit: go again while it started something (the rest may still wait).
    if (started.length === 0) return outcomes;
  }
}
