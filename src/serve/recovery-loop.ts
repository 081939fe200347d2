/**
 * The served replica's recovery sweep (docs/adr/0050): a `Recoverer` for the runner it serves, run on start and
 * then every interval (jittered, so replicas started together do not sweep in step). Its timer is unref'd (it never
 * keeps the process alive) and stopped by `stop()`. A sweep that fails (the store is down) is logged once per
 * outage, with a line when sweeps work again; it never throws into the server.
 */
import { describeErrorSafely } from '../config/redact.js';
import type { Checkpointer } from '../durability/checkpointer.js';
import type { StopSignal } from '../durability/run-stop.js';
import { supportsRecovery } from '../durability/recovery-store.js';
import { Recoverer, type RecoverableRunner, type RecoveryOutcome } from '../recovery/recoverer.js';

export interface RecoveryLoopOptions {
  /** Mean time between sweeps, in ms (`AGENTKIT_RECOVER_INTERVAL_MS`). Each wait is drawn from 0.75-1.25 of it. */
  intervalMs: number;
  /** Recoveries running at once in this process (`AGENTKIT_RECOVER_CONCURRENCY`). */
  concurrency: number;
  /** Attempts per execution before it is marked failed (`AGENTKIT_RECOVER_MAX_ATTEMPTS`). */
  maxAttempts: number;
  /** Where the loop's lines go (one per recovery outcome worth telling, one per outage). */
  log: (line: string) => void;
  /** A number in [0, 1) for the jitter (default Math.random). */
  random?: () => number;
  /** The process's shutdown (docs/adr/0051): recoveries run under it and stop at a step boundary when it drains. */
  stop?: StopSignal;
}

export interface RecoveryLoop {
  /** Recoveries running now. */
  readonly inFlight: number;
  /** Stop sweeping: no sweep starts after this; resolves when the one under way (if any) has returned. Idempotent. */
  stop(): Promise<void>;
  /** Resolves when every recovery this loop started has ended. */
  settled(): Promise<void>;
}

/** Whether `value` is a runner the loop can sweep for: a resumable runner whose checkpointer implements recovery. */
function sweepable(value: unknown): value is RecoverableRunner & { checkpointer: Checkpointer } {
  const runner = value as Partial<RecoverableRunner> | null;
  return typeof runner === 'object' && runner !== null && typeof runner.resume === 'function' && typeof runner.kind === 'string' && runner.checkpointer != null;
}

/**
 * Start sweeping for `runner`'s orphans. Returns null, after a line saying why when it matters, when there is
 * nothing to sweep: no checkpointer (nothing durable to recover) or a checkpointer without the recovery protocol.
 */
export function startRecoveryLoop(runner: unknown, options: RecoveryLoopOptions): RecoveryLoop | null {
  if (!sweepable(runner)) return null;
  if (!supportsRecovery(runner.checkpointer)) {
    options.log(`agentkit: recovery off: the checkpointer of ${runner.kind} '${runner.name}' does not implement recovery (activeLeases, claimOrphan)`);
    return null;
  }
  const recoverer = new Recoverer([runner], { concurrency: options.concurrency, maxAttempts: options.maxAttempts });
  const random = options.random ?? Math.random;
  const report = outcomeReporter(options.log);
  let failing = false;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let current: Promise<void> = Promise.resolve();

  const sweep = async (): Promise<void> => {
    try {
      const { decided, started } = await (options.stop ? options.stop.run(() => recoverer.sweep()) : recoverer.sweep());
      if (failing) options.log('agentkit: recovery sweep works again');
      failing = false;
      for (const outcome of decided) report(outcome);
      for (const run of started) void run.then(report);
    } catch (error) {
      // While the store is down every sweep fails the same way: say it once, not every interval.
      if (!failing) options.log(`agentkit: recovery sweep failed (retrying every interval; not logged again until it works): ${describeErrorSafely(error)}`);
      failing = true;
    }
  };
  const schedule = (): void => {
    if (stopped) return;
    timer = setTimeout(
      () => {
        current = sweep().finally(schedule);
      },
      options.intervalMs * (0.75 + 0.5 * random()),
    );
    timer.unref();
  };
  current = sweep().finally(schedule);
  let stopping: Promise<void> | undefined;
  return {
    get inFlight() {
      return recoverer.inFlight;
    },
    stop() {
      stopping ??= (async () => {
        stopped = true;
        clearTimeout(timer);
        await current;
      })();
      return stopping;
    },
    settled: () => recoverer.settled(),
  };
}

/** One line per outcome that changed something; `not_served` once per execution (it is seen every sweep). */
function outcomeReporter(log: (line: string) => void): (outcome: RecoveryOutcome) => void {
  const told = new Set<string>();
  return (o) => {
    const attempt = o.attempt === null ? '' : ` (attempt ${o.attempt})`;
    switch (o.outcome) {
      case 'completed':
      case 'paused':
        log(`agentkit: recovered execution ${o.execution_id}${attempt}: ${o.outcome}`);
        return;
      case 'error':
      case 'parked':
      case 'failed':
        log(`agentkit: recovery of execution ${o.execution_id}${attempt}: ${o.outcome}: ${o.detail ?? ''}`);
        return;
      case 'not_served':
        if (told.has(o.execution_id)) return;
        if (told.size >= 10_000) told.clear();
        told.add(o.execution_id);
        log(`agentkit: orphaned execution ${o.execution_id} belongs to ${o.runner_key ?? 'a runner of an older agentkit'}, not served here: left alone`);
        return;
      case 'stopped':
        log(`agentkit: recovery of execution ${o.execution_id}${attempt} stopped by this shutdown: another replica continues it`);
        return;
      case 'settled':
      case 'lost':
        return;
    }
  };
}
