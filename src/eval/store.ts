/**
 * The eval store: the owner of the eval family (`eval_runs`, `eval_cases`; issue 39). `EvalStore` names a store by
 * value (a local.db path or a `postgres://...?schema=` URL) and delegates to its engine's `EvalRunStore`
 * (sqlite-eval-store.ts, pg-eval-store.ts); nothing else in agentkit reads or writes these tables. A run is written
 * whole in one transaction (never a run without its cases). Every method is async (ADR 0064): a Postgres store is
 * read over the network, and a run written by one process (CI) is listed and compared by any other on that store.
 */
import { localStore, type Where } from '../config/paths.js';
import { isStoreUrl, redactStoreValue, storeValue } from '../config/store-value.js';
import { openStore, type Store } from '../store/store-handle.js';
import { EvalError } from './errors.js';
import { PgEvalRunStore } from './pg-eval-store.js';
import type { EvalRunRecord, EvalRunSummary } from './records.js';
import { SqliteEvalRunStore } from './sqlite-eval-store.js';
import type { EvalRunStore } from './store-types.js';

export type { EvalRunStore } from './store-types.js';

export interface EvalStoreOptions extends Where {
  /**
   * The store: a file path or a `postgres://...?schema=<name>` URL (default: `AGENTKIT_LOCAL_DB` in `env`, else
   * `./.agentkit/local.db` under `cwd`); `null`: no store (reads are empty, writes refused).
   */
  dbPath?: string | null;
  /** An `EvalRunStore` of your own (checked with `evalStoreContract`) instead of a store on `dbPath`; `close()` closes it. */
  runStore?: EvalRunStore;
}

/** The eval run store of `store` (an opened store, or a value: a file path or a `postgres://...?schema=` URL). */
export function evalRunStoreOf(store: Store | string): EvalRunStore {
  const opened = typeof store === 'string' ? openStore(store, { min: 0, max: 2 }) : store;
  return opened.engine === 'sqlite' ? new SqliteEvalRunStore(opened.path!) : new PgEvalRunStore(opened);
}

/** Eval runs of one store (SQLite file or Postgres). Close it when done: a Postgres store holds a pool until then. */
export class EvalStore implements EvalRunStore {
  /** The store value (a file path or a URL, which may hold a password: print `label`); null for no store. */
  readonly dbPath: string | null;
  /** How messages name the store (a URL's password redacted). */
  readonly label: string;
  #engine: EvalRunStore | null | undefined;
  readonly #given: EvalRunStore | undefined;

  constructor(options: EvalStoreOptions = {}) {
    this.dbPath = options.dbPath === null ? null : (options.dbPath ?? storeValue(localStore(options)));
    this.label = options.runStore?.label ?? (this.dbPath === null ? '(no store)' : isStoreUrl(this.dbPath) ? redactStoreValue(this.dbPath) : this.dbPath);
    this.#given = options.runStore;
  }

  /** The engine, opened on first use (connects to nothing until a call needs it). */
  get #store(): EvalRunStore | null {
    if (this.#engine === undefined) this.#engine = this.#given ?? (this.dbPath === null ? null : evalRunStoreOf(this.dbPath));
    return this.#engine;
  }

  /**
   * Write a run and its cases in one transaction, with the project it belongs to (`projectId`, default the run's
   * `project_id`, else '' for the key's default project). Rejects if the run id exists.
   */
  async saveRun(run: EvalRunRecord, projectId: string = run.project_id ?? ''): Promise<void> {
    const store = this.#store;
    if (store === null) throw new EvalError('no eval store named: eval runs are not saved');
    await store.saveRun(run, projectId);
  }

  /** Runs newest first (optionally only those named `runName`), at most `limit` (default 100). */
  async listRuns(options: { runName?: string; limit?: number } = {}): Promise<EvalRunSummary[]> {
    return (await this.#store?.listRuns(options)) ?? [];
  }

  /** One run with its cases, or null. */
  async getRun(runId: string): Promise<EvalRunRecord | null> {
    return (await this.#store?.getRun(runId)) ?? null;
  }

  /** The run `ref` names: a run id, else the latest run named `ref`, else null. */
  async findRun(ref: string): Promise<EvalRunRecord | null> {
    const byId = await this.getRun(ref);
    if (byId) return byId;
    const [latest] = await this.listRuns({ runName: ref, limit: 1 });
    return latest ? this.getRun(latest.run_id) : null;
  }

  /** The run `ref` names: a run id, else the latest run named `ref`. Rejects with EvalError when neither exists. */
  async resolveRun(ref: string): Promise<EvalRunRecord> {
    const found = await this.findRun(ref);
    if (!found) throw new EvalError(`eval run '${ref}' not found in ${this.label} (neither a run id nor a run name)`);
    return found;
  }

  /**
   * Runs not yet exported, oldest first, at most `limit`; and how many there are in all. Each carries the
   * `project_id` stamped when it was written: the export sends it to that project.
   */
  async unsyncedRuns(limit = 10): Promise<{ runs: EvalRunRecord[]; total: number }> {
    return (await this.#store?.unsyncedRuns(limit)) ?? { runs: [], total: 0 };
  }

  /**
   * Local-only runs of `projectId` ('' for the default project), oldest first, started at or after `since` when
   * given: what `agentkit platform push --evals` sends on request (docs/adr/0054).
   */
  async localOnlyRuns(projectId: string, since: string | null = null): Promise<EvalRunRecord[]> {
    return (await this.#store?.localOnlyRuns(projectId, since)) ?? [];
  }

  /** Mark pushed runs sent: no longer local-only, never pushed again. */
  async markPushed(runIds: readonly string[]): Promise<void> {
    if (runIds.length > 0) await this.#store?.markPushed(runIds);
  }

  /** Mark runs exported (connected mode calls this after the Platform accepted them). */
  async markSynced(runIds: readonly string[]): Promise<void> {
    if (runIds.length > 0) await this.#store?.markSynced(runIds);
  }

  /** The distinct trace ids the stored cases cite: `agentkit traces prune` keeps those traces. */
  async citedTraceIds(): Promise<string[]> {
    return (await this.#store?.citedTraceIds()) ?? [];
  }

  /** Give back the Postgres pool hold, if any. Idempotent; a later call opens the store again. */
  async close(): Promise<void> {
    const engine = this.#engine;
    this.#engine = undefined;
    await engine?.close();
  }
}
