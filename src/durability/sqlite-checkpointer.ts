/**
 * SQLiteCheckpointer: checkpoints in the local store (local.db), on its existing tables and migration ladder.
 *
 * Concurrency: better-sqlite3 runs each statement synchronously, so within one process calls never interleave inside
 * a transaction. Across processes sharing the file, every multi-statement write runs in an IMMEDIATE transaction
 * (the write lock is taken up front, so two processes never both read-then-write), and the claim is one
 * `DELETE ... RETURNING` inside such a transaction: the row can be returned to exactly one connection.
 *
 * Rows are delta checkpoints (./delta.ts): a row's state is stored as what changed since its execution's previous
 * row, resolved on every read. A single-row write is one autocommitted statement (it is atomic on its own); several
 * rows share one IMMEDIATE transaction; puts of concurrent runs are group-committed on this thread (ADR 0031).
 */
import type Database from 'better-sqlite3';
import { checkpointDbPath } from '../config/paths.js';
import path from 'node:path';
import { openLocalStore } from '../store/open.js';
import { schemaVersion } from '../store/migrations.js';
import { utcNow } from '../store/time.js';
import type { Checkpoint, PendingInterrupt } from '../types.js';
import type {
  CheckpointWrite,
  Fence,
  LeaseOptions,
  LeaseRecord,
  ListOptions,
  PendingInterruptWrite,
  PushingCheckpointer,
  QuarantinedRow,
  QuarantiningCheckpointer,
  ReplicaSource,
  ReplicatingCheckpointer,
  UnsyncedCheckpoint,
} from './checkpointer.js';
import { DEFAULT_LIST_LIMIT } from './checkpointer.js';
import { retainWalKeeper } from '../store/wal-keeper.js';
import { EXECUTION_PARAM, OUTPUT_PARAM, STATE_PARAM, checkpointColumns, decodeCheckpoint, fieldParams } from './columns.js';
import { ChainCheckpointError, IdempotencyKeyTaken } from './errors.js';
import { checkIdempotencyKeyWrite, type IdempotencyKeyRecord, type IdempotencyKeyStore } from './idempotency-keys.js';
import { leaseLost } from './lease-lost.js';
import type { JsonValue } from './json.js';
import { checkClaim, decisionRow, type Claim } from './decision.js';
import type { ActiveLease, ExecutionRecord, IdempotentEntry, RecoveringCheckpointer, RecoveryRecord } from './recovery-store.js';
import { checkLease, completeCheckpoint, completePending, invalid, listLimit, pruneCutoff } from './rows.js';
import { DeltaWriter, outputFromState, outputKeys, ResolvedStateCache, resolveStatesSync, type StoredRow } from './delta.js';
import { ROWS_OF_EXECUTION, SQLITE_CHAINS_SQL } from './sqlite-states.js';
import { notifyCheckpointerOpened, notifyCheckpointWrite, stampOf, stampRows } from './write-hook.js';

/** The rows `prune(cutoff)` deletes (`@cutoff`). */
const PRUNED = `created_at < @cutoff AND status <> 'interrupted' AND execution_id NOT IN (SELECT execution_id FROM pending_interrupts)`;

/** The checkpoint columns, the row's delta base (resolved away before a row leaves this file) and its trace id. */
const COLUMNS = `${checkpointColumns()}, delta_base, output_keys, trace_id`;
const PENDING_COLUMNS = 'execution_id, chain_name, node_id, reason, context, agent_path, created_at';

/**
 * How long a group commit waits for the store's write lock without blocking the event loop (retrying every
 * millisecond) before one last attempt that blocks for the store's busy timeout, as every other write does.
 */
const LOCK_WAIT_MS = 5000;

/** A selected row: JSON columns are text. */
type CheckpointRow = Record<string, unknown>;

interface PendingRow {
  execution_id: string;
  chain_name: string;
  node_id: string;
  reason: string;
  context: string;
  agent_path: string | null;
  created_at: string;
}

type Statements = ReturnType<typeof prepare>;

/**
 * Fencing (docs/adr/0015) inside the insert itself, the base check's way: the execution id is NULL (the NOT NULL
 * column refuses the row: FENCED_MESSAGE) unless the row is unfenced (first parameter NULL) or the execution's lease
 * row still names the fence's owner and generation. One statement, so the check and the write are atomic without a
 * transaction of their own; a takeover needs the write lock, so it lands wholly before or after. Parameters: the
 * fence's owner (or NULL), the execution id, the owner, the generation, the execution id.
 */
const FENCED_EXECUTION_ID = 'CASE WHEN ? IS NULL OR EXISTS (SELECT 1 FROM execution_leases WHERE execution_id = ? AND owner = ? AND generation = ?) THEN ? END';
/**
 * A row's insert. A delta row is written only while its base exists (another process may have pruned or deleted
 * it): otherwise its state is NULL, the NOT NULL column refuses the row (BASE_GONE_MESSAGE), nothing is inserted and
 * the row is written again as a full snapshot. The check sits in the state's VALUES expression rather than in an
 * `INSERT ... SELECT ... WHERE EXISTS`: a SELECT that reads the table it inserts into makes SQLite stage the row in a
 * temporary table first (about 5 us a row). The execution's key is looked up here (ENSURE_EXECUTION_SQL made it
 * before the execution's first row; if another process deleted it since, the lookup is NULL and the store's trigger
 * makes it again, local.db v28).
 * Positional parameters (`toParams`): better-sqlite3 binds an array faster than it looks names up in an object.
 */
const INSERT_SQL = `INSERT INTO checkpoints (${COLUMNS}, synced, local_only, project_id, exec_key) VALUES (${COLUMNS.split(',')
  .map((column) => {
    if (column.trim() === 'state_snapshot') return 'CASE WHEN ? IS NULL OR EXISTS (SELECT 1 FROM checkpoints WHERE checkpoint_id = ?) THEN ? END';
    if (column.trim() === 'execution_id') return FENCED_EXECUTION_ID;
    return '?';
  })
  .join(', ')}, ?, ?, ?, (SELECT exec_key FROM executions WHERE execution_id = ?))`;
/** What SQLite says when INSERT_SQL refuses a delta row whose base is gone. */
const BASE_GONE_MESSAGE = 'NOT NULL constraint failed: checkpoints.state_snapshot';
/** What SQLite says when INSERT_SQL refuses a fenced row whose lease is no longer the writer's (FENCED_EXECUTION_ID). */
const FENCED_MESSAGE = 'NOT NULL constraint failed: checkpoints.execution_id';
/**
 * Frees a lease held at a generation with the run's last write (docs/adr/0015): it expires now, row and generation
 * stay, and the execution is no longer active (nothing to recover, ADR 0050).
 */
const RELEASE_SQL = 'UPDATE execution_leases SET expires_at = 0, active = 0, recover_attempts = 0 WHERE execution_id = ? AND owner = ? AND generation = ?';
/**
 * An execution's key, made before its first row is written: left to the store's trigger, the key was set by an
 * UPDATE of the row just inserted, which rewrote it and moved its entry in idx_cp_exec_key (ADR 0029).
 */
const ENSURE_EXECUTION_SQL = 'INSERT OR IGNORE INTO executions (execution_id) VALUES (?)';

/** Options of a SQLiteCheckpointer. */
export interface SQLiteCheckpointerOptions {
  /**
   * @deprecated Accepted and ignored: group commits always run on the caller's thread. The commit thread it chose
   * cost more CPU than it saved with a model's real latency and was removed (ADR 0031).
   */
  commitThread?: 'auto' | 'off';
}

function prepare(db: Database.Database) {
  const busyTimeoutMs = Number(db.pragma('busy_timeout', { simple: true }));
  return {
    insert: db.prepare(INSERT_SQL),
    ensureExecution: db.prepare(ENSURE_EXECUTION_SQL),
    // Runs its argument in an IMMEDIATE transaction (committed when it returns, rolled back when it throws). Built
    // once per connection: each `db.transaction()` call builds four wrapped functions, which every group commit paid.
    immediately: db.transaction((write: () => void) => write()).immediate as (write: () => void) => void,
    chains: db.prepare(SQLITE_CHAINS_SQL),
    upsertPending: db.prepare(`INSERT OR REPLACE INTO pending_interrupts (${PENDING_COLUMNS})
      VALUES (@execution_id, @chain_name, @node_id, @reason, @context, @agent_path, @created_at)`),
    last: db.prepare(`SELECT ${COLUMNS} FROM checkpoints WHERE ${ROWS_OF_EXECUTION} ORDER BY created_at DESC, rowid DESC LIMIT 1`),
    byId: db.prepare(`SELECT ${COLUMNS} FROM checkpoints WHERE checkpoint_id = ?`),
    listAsc: db.prepare(`SELECT ${COLUMNS} FROM checkpoints WHERE ${ROWS_OF_EXECUTION} ORDER BY created_at ASC, rowid ASC LIMIT ?`),
    listDesc: db.prepare(`SELECT ${COLUMNS} FROM checkpoints WHERE ${ROWS_OF_EXECUTION} ORDER BY created_at DESC, rowid DESC LIMIT ?`),
    pending: db.prepare(`SELECT ${PENDING_COLUMNS} FROM pending_interrupts ORDER BY created_at DESC, rowid DESC LIMIT ?`),
    claim: db.prepare(`DELETE FROM pending_interrupts WHERE execution_id = ? RETURNING ${PENDING_COLUMNS}`),
    interruptedAt: db.prepare(`SELECT ${COLUMNS} FROM checkpoints WHERE ${ROWS_OF_EXECUTION} AND node_id = ? AND agent_path IS ?
      AND status = 'interrupted' ORDER BY created_at DESC, rowid DESC LIMIT 1`),
    // A new owner taking over gets the next generation; the holder re-acquiring keeps its own.
    // Any acquisition makes the execution active (running) and unparks it (docs/adr/0050).
    acquireLease: db.prepare(`INSERT INTO execution_leases (execution_id, owner, expires_at, acquired_at, generation, active, runner_key)
      VALUES (@id, @owner, @expires, @at, 1, 1, @runner)
      ON CONFLICT (execution_id) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at, acquired_at = excluded.acquired_at,
        generation = CASE WHEN execution_leases.owner = excluded.owner THEN execution_leases.generation ELSE execution_leases.generation + 1 END,
        active = 1, attention_reason = NULL, runner_key = COALESCE(excluded.runner_key, execution_leases.runner_key)
      WHERE execution_leases.owner = excluded.owner OR execution_leases.expires_at <= @now OR execution_leases.owner = @from
      RETURNING generation`),
    leaseOf: db.prepare('SELECT owner, generation, expires_at FROM execution_leases WHERE execution_id = ?'),
    renewLease: db.prepare('UPDATE execution_leases SET expires_at = ? WHERE execution_id = ? AND owner = ?'),
    // The row and its generation stay (a later owner gets a higher one); the lease is free from now on.
    releaseLease: db.prepare('UPDATE execution_leases SET expires_at = 0 WHERE execution_id = ? AND owner = ?'),
    // Only a run's last write (its terminal row, its pause) releases so: the execution is no longer active (ADR 0050).
    releaseFenced: db.prepare(RELEASE_SQL),
    fenceHeld: db.prepare('SELECT 1 FROM execution_leases WHERE execution_id = ? AND owner = ? AND generation = ?'),
    deleteLease: db.prepare('DELETE FROM execution_leases WHERE execution_id = ?'),
    deleteRecoveries: db.prepare('DELETE FROM execution_recoveries WHERE execution_id = ?'),
    activeLeases: db.prepare(`SELECT execution_id, owner, generation, expires_at, runner_key, recover_attempts FROM execution_leases
      WHERE active = 1 ORDER BY expires_at LIMIT ?`),
    // One winner fleet-wide: the UPDATE is conditional on the generation the sweep saw (ADR 0050).
    claimOrphan: db.prepare(`UPDATE execution_leases SET owner = @owner, expires_at = @expires, acquired_at = @at, generation = generation + 1,
        recover_attempts = recover_attempts + 1
      WHERE execution_id = @id AND generation = @generation AND active = 1 AND (expires_at <= @now OR owner = @dead)
      RETURNING generation, recover_attempts`),
    deactivate: db.prepare(`UPDATE execution_leases SET active = 0, expires_at = 0, attention_reason = @attention,
        recover_attempts = CASE WHEN @attention IS NULL THEN 0 ELSE recover_attempts END
      WHERE execution_id = @id AND generation = @generation`),
    recordRecovery: db.prepare(`INSERT INTO execution_recoveries (execution_id, attempt, outcome, recovered_by, reason, at)
      VALUES (@execution_id, @attempt, @outcome, @recovered_by, @reason, @at)`),
    listRecoveries: db.prepare('SELECT * FROM execution_recoveries ORDER BY at DESC, rowid DESC LIMIT ?'),
    listRecoveriesOf: db.prepare('SELECT * FROM execution_recoveries WHERE execution_id = ? ORDER BY at DESC, rowid DESC LIMIT ?'),
    listExecutions: db.prepare(`SELECT e.execution_id,
        f.chain_name, f.agent_path, t.node_id AS last_node_id, t.status AS last_status, t.step_type AS last_step_type,
        t.run_status AS last_run_status, t.created_at AS updated_at,
        EXISTS (SELECT 1 FROM pending_interrupts p WHERE p.execution_id = e.execution_id) AS paused,
        l.owner, l.expires_at, l.active, l.runner_key, l.recover_attempts, l.attention_reason
      FROM executions e
      JOIN checkpoints f ON f.rowid = (SELECT rowid FROM checkpoints WHERE exec_key = e.exec_key ORDER BY created_at, rowid LIMIT 1)
      JOIN checkpoints t ON t.rowid = (SELECT rowid FROM checkpoints WHERE exec_key = e.exec_key ORDER BY created_at DESC, rowid DESC LIMIT 1)
      LEFT JOIN execution_leases l ON l.execution_id = e.execution_id
      ORDER BY t.created_at DESC LIMIT ?`),
    // Ended executions for `pruneEndedExecutions` (the root's run_end is the latest row; no pause; no live lease).
    endedExecutions: db.prepare(`SELECT e.execution_id FROM executions e
      JOIN checkpoints t ON t.rowid = (SELECT rowid FROM checkpoints WHERE exec_key = e.exec_key ORDER BY created_at DESC, rowid DESC LIMIT 1)
      WHERE t.step_type = 'run_end' AND (t.agent_path IS NULL OR instr(t.agent_path, '/') = 0) AND t.created_at < @before
        AND NOT EXISTS (SELECT 1 FROM pending_interrupts p WHERE p.execution_id = e.execution_id)
        AND NOT EXISTS (SELECT 1 FROM execution_leases l WHERE l.execution_id = e.execution_id AND (l.active = 1 OR l.expires_at > @now))
      ORDER BY t.created_at LIMIT @limit`),
    // An unexpired record of the caller's key wins (nothing changes); an expired one is replaced (docs/adr/0052).
    putKey: db.prepare(`INSERT INTO served_idempotency_keys (caller, idempotency_key, fingerprint, execution_id, created_at, expires_at)
      VALUES (@caller, @key, @fingerprint, @execution, @now, @expires)
      ON CONFLICT (caller, idempotency_key) DO UPDATE SET fingerprint = excluded.fingerprint, execution_id = excluded.execution_id,
        created_at = excluded.created_at, expires_at = excluded.expires_at
      WHERE served_idempotency_keys.expires_at <= @now`),
    keyOf: db.prepare(`SELECT caller, idempotency_key, fingerprint, execution_id, created_at, expires_at FROM served_idempotency_keys
      WHERE caller = ? AND idempotency_key = ? AND expires_at > ?`),
    releaseKey: db.prepare(`DELETE FROM served_idempotency_keys WHERE caller = @caller AND idempotency_key = @key AND execution_id = @execution
      AND NOT EXISTS (SELECT 1 FROM executions WHERE execution_id = @execution)
      AND NOT EXISTS (SELECT 1 FROM execution_leases WHERE execution_id = @execution AND expires_at > @now)`),
    pruneKeys: db.prepare('DELETE FROM served_idempotency_keys WHERE expires_at <= ?'),
    deleteCheckpoints: db.prepare(`DELETE FROM checkpoints WHERE ${ROWS_OF_EXECUTION}`),
    // The execution's key goes with its last row (a later row of the same id gets a new one).
    deleteExecutionKey: db.prepare('DELETE FROM executions WHERE execution_id = ?'),
    deletePending: db.prepare('DELETE FROM pending_interrupts WHERE execution_id = ?'),
    deleteIdempotent: db.prepare('DELETE FROM idempotency_cache WHERE execution_id = ?'),
    getIdempotent: db.prepare('SELECT result FROM idempotency_cache WHERE execution_id = ? AND function_key = ?'),
    idempotentEntries: db.prepare('SELECT function_key, result FROM idempotency_cache WHERE execution_id = ? ORDER BY function_key'),
    putIdempotent: db.prepare(`INSERT OR REPLACE INTO idempotency_cache (execution_id, function_key, result, created_at)
      VALUES (?, ?, ?, ?)`),
    putIdempotentFenced: db.prepare(`INSERT OR REPLACE INTO idempotency_cache (execution_id, function_key, result, created_at)
      SELECT ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM execution_leases WHERE execution_id = ? AND owner = ? AND generation = ?)`),
    pruneCheckpoints: db.prepare(`DELETE FROM checkpoints WHERE ${PRUNED}`),
    // Kept rows stored against a row the prune deletes: rewritten with their full state first (no kept row loses a base).
    pruneBoundary: db.prepare(`SELECT ${COLUMNS} FROM checkpoints WHERE NOT (${PRUNED})
      AND delta_base IN (SELECT checkpoint_id FROM checkpoints WHERE ${PRUNED})`),
    materialize: db.prepare('UPDATE checkpoints SET state_snapshot = ?, delta_base = NULL WHERE checkpoint_id = ?'),
    pruneExecutionKeys: db.prepare('DELETE FROM executions WHERE NOT EXISTS (SELECT 1 FROM checkpoints WHERE checkpoints.exec_key = executions.exec_key)'),
    pruneIdempotent: db.prepare(`DELETE FROM idempotency_cache WHERE created_at < ?
      AND execution_id NOT IN (SELECT execution_id FROM pending_interrupts)`),
    unsynced: db.prepare(`SELECT rowid AS sequence, project_id, ${COLUMNS} FROM checkpoints
      WHERE synced = 0 AND quarantine_reason IS NULL ORDER BY rowid ASC LIMIT ?`),
    unsyncedForProject: db.prepare(`SELECT rowid AS sequence, project_id, ${COLUMNS} FROM checkpoints
      WHERE synced = 0 AND quarantine_reason IS NULL AND project_id = ? ORDER BY rowid ASC LIMIT ?`),
    markSynced: db.prepare('UPDATE checkpoints SET synced = 1 WHERE checkpoint_id = ? AND synced = 0'),
    markQuarantined: db.prepare('UPDATE checkpoints SET synced = 1, quarantine_reason = ? WHERE checkpoint_id = ?'),
    // Group commits try the write lock without waiting (see `#commitQueued`); other calls get the store's busy timeout back (`open`).
    // (Run through `pragma()` each time: SQLite applies this pragma when the statement is compiled, not when run.)
    noWait: () => db.pragma('busy_timeout = 0'),
    wait: () => db.pragma(`busy_timeout = ${busyTimeoutMs}`),
  };
}

/** A row of `served_idempotency_keys` (times in epoch milliseconds). */
interface StoredKey {
  caller: string;
  idempotency_key: string;
  fingerprint: string;
  execution_id: string;
  created_at: number;
  expires_at: number;
}

export class SQLiteCheckpointer implements ReplicatingCheckpointer, PushingCheckpointer, QuarantiningCheckpointer, RecoveringCheckpointer, IdempotencyKeyStore {
  /** Absolute path of the store file. */
  readonly dbPath: string;
  private db: Database.Database | undefined;
  private statements: Statements | undefined;
  private closed = false;
  /** Rows `put` has accepted and not yet committed (see `put`). */
  #queued: QueuedPut[] = [];
  /** When the queued rows first found the write lock taken (another connection writing: a trace writer, another process). */
  #lockedSince: number | undefined;
  /** True while the connection's busy timeout is zero (left so by the last group commit; see `open`). */
  #noWait = false;
  /** Releases this connection's WAL keeper; set at the first write. */
  #releaseWalKeeper: (() => Promise<void>) | undefined;
  /** Each execution's last written state, which its next row is stored against. */
  readonly #delta = new DeltaWriter();
  /** The last state `fetchUnsynced` read per execution: the next batch's rows are built on them. */
  readonly #outboxStates = new ResolvedStateCache();

  /**
   * A checkpointer on the SQLite store at `dbPath` (default: the configured local store, `AGENTKIT_LOCAL_DB`, else
   * the legacy `AGENTKIT_CHECKPOINT_DB_PATH`, else `./.agentkit/local.db`). Nothing is opened until first use.
   */
  constructor(dbPath?: string, options: SQLiteCheckpointerOptions = {}) {
    this.dbPath = dbPath ?? checkpointDbPath();
    if (options.commitThread !== undefined && options.commitThread !== 'auto' && options.commitThread !== 'off') {
      throw new TypeError(`SQLiteCheckpointer: commitThread must be 'auto' or 'off', got ${JSON.stringify(options.commitThread)}`);
    }
  }

  /** The store file, for the replication drain's own connection; null for an in-memory store. */
  replicaSource(): ReplicaSource | null {
    return this.dbPath === ':memory:' || this.dbPath === '' ? null : { driver: 'sqlite', path: path.resolve(this.dbPath) };
  }

  /** Open (creating 0600 in a 0700 directory) and migrate the store. Idempotent; refuses a store from a newer agentkit. */
  async setup(): Promise<void> {
    this.open();
  }

  /** The store's schema version (opens it). */
  async schemaVersion(): Promise<number> {
    return schemaVersion(this.open().db);
  }

  /**
   * Group commit: puts made in the same turn of the event loop (concurrent runs in a serving process) are committed
   * in one transaction at the end of that turn, in the order they were made; each promise resolves once its row is
   * committed. A row that cannot be written
   * (a duplicate id) fails only its own put: the batch is retried row by row.
   * While another connection holds the write lock (a trace writer on the same file, another process), the
   * batch waits for it without blocking the event loop (ADR 0031): puts made meanwhile join it.
   */
  async put(checkpoint: CheckpointWrite, fence?: Fence): Promise<Checkpoint> {
    const rows = await this.enqueue([completeCheckpoint(checkpoint)], fence);
    return rows[0]!;
  }

  /**
   * Several rows atomically, through the group commit like `put` (in one transaction with the batch, or, when the
   * batch is retried, in one of their own): a run's last step and its terminal row no longer switch the connection's
   * busy timeout back and forth (two pragmas, each compiling a statement, per run).
   */
  async putWrites(checkpoints: readonly CheckpointWrite[], fence?: Fence): Promise<Checkpoint[]> {
    const rows = checkpoints.map(completeCheckpoint);
    return rows.length === 0 ? [] : this.enqueue(rows, fence);
  }

  /** Queue `rows` (written together or not at all, fenced by `fence`) for the group commit; resolves with them as stored. */
  private enqueue(rows: Checkpoint[], fence: Fence | undefined): Promise<Checkpoint[]> {
    // Opens the store now (its errors reach this caller); the busy timeout is the group commit's to set.
    this.open(true);
    // The group commit runs at the end of the turn, outside the writer's context: its consent is taken now.
    stampRows(rows);
    return new Promise<Checkpoint[]>((resolve, reject) => {
      if (this.#queued.length === 0) setImmediate(() => this.#commitQueued(false));
      this.#queued.push({ rows, fence, resolve, reject });
    });
  }

  /**
   * Commit the queued rows. `blocking` false (the group commit's own turn): when the write lock is taken, nothing is
   * written and the batch is tried again a
   * millisecond later, the event loop serving requests meanwhile, for up to LOCK_WAIT_MS; then, and for `close()`
   * and readers that need the rows now, it waits as long as any write does.
   */
  #commitQueued(blocking = true): void {
    const batch = this.#queued;
    this.#queued = [];
    if (batch.length === 0) return;
    let handle: { db: Database.Database; statements: Statements };
    try {
      handle = this.writable(true);
    } catch (error) {
      for (const put of batch) put.reject(error);
      return;
    }
    const { statements } = handle;
    const rows = batch.length === 1 ? batch[0]!.rows : batch.flatMap((put) => put.rows);
    const wait = !blocking && (this.#lockedSince === undefined || Date.now() - this.#lockedSince < LOCK_WAIT_MS);
    // What the batch's executions were stored against before it: put back when the lock was taken.
    const remembered = wait ? this.#rememberedBefore(rows) : undefined;
    try {
      if (wait !== this.#noWait) {
        if (wait) statements.noWait();
        else statements.wait();
        this.#noWait = wait;
      }
      if (batch.length === 1 && rows.length === 1) this.insertAlone(statements, rows[0]!, batch[0]!.fence);
      else {
        statements.immediately(() => {
          for (const put of batch) this.insertPut(statements, put.rows, put.fence);
        });
      }
    } catch (error) {
      if (remembered && isBusy(error)) {
        // Nothing of the batch was stored (a statement or transaction that cannot lock writes nothing).
        for (const [executionId, entry] of remembered) this.#delta.restore(executionId, entry);
        this.#queued = batch.concat(this.#queued);
        this.#lockedSince ??= Date.now();
        setTimeout(() => this.#commitQueued(false), 1);
        return;
      }
      this.#lockedSince = undefined;
      // The transaction rolled back: whatever the batch remembered as newest rows was never stored.
      for (const row of rows) this.#delta.forget(row.execution_id);
      if (batch.length === 1) {
        batch[0]!.reject(error);
        return;
      }
      this.#commitEach(statements, batch);
      return;
    }
    this.#lockedSince = undefined;
    for (const put of batch) put.resolve(put.rows.map((row) => this.#delta.asStored(row)));
    notifyCheckpointWrite(this);
  }

  /** What `rows`' executions are stored against now, each execution once (its first row's base). */
  #rememberedBefore(rows: readonly Checkpoint[]): Map<string, ReturnType<DeltaWriter['remembered']>> {
    const before = new Map<string, ReturnType<DeltaWriter['remembered']>>();
    for (const row of rows) if (!before.has(row.execution_id)) before.set(row.execution_id, this.#delta.remembered(row.execution_id));
    return before;
  }

  /**
   * Each put of a failed batch on its own, on this connection, so a row that cannot be written fails only its own
   * put (and the rows written with it).
   */
  #commitEach(statements: Statements, batch: readonly QueuedPut[]): void {
    for (const put of batch) {
      try {
        if (put.rows.length === 1) this.insertAlone(statements, put.rows[0]!, put.fence);
        else this.inTransaction(statements, put.rows, () => this.insertPut(statements, put.rows, put.fence));
        put.resolve(put.rows.map((row) => this.#delta.asStored(row)));
      } catch (error) {
        put.reject(error);
      }
    }
    notifyCheckpointWrite(this);
  }

  async getLast(executionId: string): Promise<Checkpoint | null> {
    return this.#now(({ statements }) => {
      const row = statements.last.get(executionId) as CheckpointRow | undefined;
      return row ? this.toCheckpointsNow([row])[0]! : null;
    });
  }

  async getById(checkpointId: string): Promise<Checkpoint | null> {
    return this.#now(({ statements }) => {
      const row = statements.byId.get(checkpointId) as CheckpointRow | undefined;
      return row ? this.toCheckpointsNow([row])[0]! : null;
    });
  }

  async list(executionId: string, options: ListOptions = {}): Promise<Checkpoint[]> {
    const limit = listLimit(options.limit);
    return this.#now(({ statements }) => {
      const statement = options.newestFirst ? statements.listDesc : statements.listAsc;
      return this.toCheckpointsNow(statement.all(executionId, limit) as CheckpointRow[]);
    });
  }

  async listPendingInterrupts(options: { limit?: number } = {}): Promise<PendingInterrupt[]> {
    const limit = listLimit(options.limit);
    return this.#now(({ statements }) => (statements.pending.all(limit) as PendingRow[]).map(toPending));
  }

  async recordInterrupt(
    checkpoint: CheckpointWrite,
    pending: PendingInterruptWrite,
    fence?: Fence,
  ): Promise<{ checkpoint: Checkpoint; pending: PendingInterrupt }> {
    const row = completeCheckpoint(checkpoint);
    const pendingRow = completePending(row, pending);
    this.#now(({ statements }) =>
      this.inTransaction(statements, [row], () => {
        this.insert(statements, row, fence);
        statements.upsertPending.run({ ...pendingRow, context: JSON.stringify(pendingRow.context) });
        if (fence?.release) statements.releaseFenced.run(row.execution_id, fence.owner, fence.generation);
      }),
    );
    notifyCheckpointWrite(this);
    return { checkpoint: this.#delta.asStored(row), pending: pendingRow };
  }

  async deletePendingInterruptAtomic(executionId: string): Promise<PendingInterrupt | null> {
    const row = this.#now(({ db, statements }) => db.transaction(() => statements.claim.get(executionId) as PendingRow | undefined).immediate());
    return row ? toPending(row) : null;
  }

  async claimPendingInterrupt(executionId: string, claim: Claim, fence?: Fence): Promise<{ pending: PendingInterrupt; checkpoint: Checkpoint } | null> {
    const checked = checkClaim(claim);
    try {
      return this.#now(({ db, statements }) =>
        db
          .transaction(() => {
            if (fence && statements.fenceHeld.get(executionId, fence.owner, fence.generation) === undefined) throw leaseLost(executionId);
            const row = statements.claim.get(executionId) as PendingRow | undefined;
            if (!row) return null;
            const pending = toPending(row);
            const source = statements.interruptedAt.get(executionId, pending.node_id, pending.agent_path) as CheckpointRow | undefined;
            const checkpoint = decisionRow(pending, source ? this.toCheckpointsNow([source])[0]! : null, checked);
            this.insert(statements, checkpoint);
            return { pending, checkpoint };
          })
          .immediate(),
      );
    } catch (error) {
      this.#delta.forget(executionId);
      throw error;
    }
  }

  async acquireLease(executionId: string, owner: string, ttlMs: number, options: LeaseOptions = {}): Promise<number | null> {
    checkLease(owner, ttlMs);
    const row = options.first === undefined ? undefined : completeCheckpoint(options.first);
    if (row && row.execution_id !== executionId) invalid('execution_id', `of the first row must be the leased execution '${executionId}'`);
    const key = row ? options.idempotencyKey : undefined;
    if (key) checkIdempotencyKeyWrite(key);
    const now = Date.now();
    let generation: number | null = null;
    const acquire = (statements: Statements) => {
      const granted = statements.acquireLease.get({
        id: executionId,
        owner,
        expires: now + ttlMs,
        at: utcNow(),
        now,
        from: options.takeOverFrom ?? null,
        runner: options.runner ?? null,
      }) as { generation: number } | undefined;
      generation = granted?.generation ?? null;
      if (row && generation !== null && key) {
        // The request's key, in the same transaction: refused, the throw rolls the lease back too (docs/adr/0052).
        const recorded = statements.putKey.run({ ...key, execution: executionId, now, expires: now + key.ttlMs });
        if (recorded.changes === 0) throw new IdempotencyKeyTaken(executionId);
      }
      // The first row, fenced by the grant (a refused lease writes nothing).
      if (row && generation !== null) this.insert(statements, row, { owner, generation });
    };
    // Without a first row the upsert is one statement: atomic on its own, no transaction around it.
    this.#now(({ statements }) => (row ? this.inTransaction(statements, [row], () => acquire(statements)) : acquire(statements)));
    if (row && generation !== null) notifyCheckpointWrite(this);
    return generation;
  }

  async leaseOf(executionId: string): Promise<LeaseRecord | null> {
    const row = this.#now(({ statements }) => statements.leaseOf.get(executionId)) as { owner: string; generation: number; expires_at: number } | undefined;
    return row ? { owner: row.owner, generation: row.generation, expires_at: new Date(row.expires_at).toISOString() } : null;
  }

  async idempotencyKeyOf(caller: string, key: string): Promise<IdempotencyKeyRecord | null> {
    const row = this.open().statements.keyOf.get(caller, key, Date.now()) as StoredKey | undefined;
    return row
      ? {
          caller: row.caller,
          key: row.idempotency_key,
          fingerprint: row.fingerprint,
          execution_id: row.execution_id,
          created_at: new Date(row.created_at).toISOString(),
          expires_at: new Date(row.expires_at).toISOString(),
        }
      : null;
  }

  async releaseIdempotencyKey(caller: string, key: string, executionId: string): Promise<boolean> {
    return this.writable().statements.releaseKey.run({ caller, key, execution: executionId, now: Date.now() }).changes > 0;
  }

  async pruneIdempotencyKeys(): Promise<number> {
    return this.writable().statements.pruneKeys.run(Date.now()).changes;
  }

  async renewLease(executionId: string, owner: string, ttlMs: number): Promise<boolean> {
    checkLease(owner, ttlMs);
    return this.#now(({ statements }) => statements.renewLease.run(Date.now() + ttlMs, executionId, owner).changes > 0);
  }

  async releaseLease(executionId: string, owner: string): Promise<void> {
    this.#now(({ statements }) => statements.releaseLease.run(executionId, owner));
  }

  async deleteExecution(executionId: string): Promise<number> {
    const { db, statements } = this.writable();
    this.#delta.forget(executionId);
    return db
      .transaction(() => {
        const deleted =
          statements.deleteCheckpoints.run(executionId).changes +
          statements.deletePending.run(executionId).changes +
          statements.deleteIdempotent.run(executionId).changes +
          statements.deleteLease.run(executionId).changes +
          statements.deleteRecoveries.run(executionId).changes;
        statements.deleteExecutionKey.run(executionId);
        return deleted;
      })
      .immediate();
  }

  async activeLeases(options: { limit: number }): Promise<ActiveLease[]> {
    const rows = this.open().statements.activeLeases.all(options.limit) as Array<Omit<ActiveLease, 'expires_at'> & { expires_at: number }>;
    return rows.map((row) => ({ ...row, expires_at: new Date(row.expires_at).toISOString() }));
  }

  async claimOrphan(
    executionId: string,
    generation: number,
    owner: string,
    ttlMs: number,
    deadOwner: string | null,
  ): Promise<{ generation: number; attempt: number } | null> {
    checkLease(owner, ttlMs);
    const now = Date.now();
    const row = this.writable().statements.claimOrphan.get({ id: executionId, generation, owner, expires: now + ttlMs, at: utcNow(), now, dead: deadOwner }) as
      | { generation: number; recover_attempts: number }
      | undefined;
    return row ? { generation: row.generation, attempt: row.recover_attempts } : null;
  }

  async deactivate(executionId: string, generation: number, attention: string | null): Promise<boolean> {
    return this.writable().statements.deactivate.run({ id: executionId, generation, attention }).changes > 0;
  }

  async recordRecovery(record: Omit<RecoveryRecord, 'at'>): Promise<void> {
    this.writable().statements.recordRecovery.run({ ...record, at: utcNow() });
  }

  async listRecoveries(options: { limit: number; executionId?: string }): Promise<RecoveryRecord[]> {
    const { statements } = this.open();
    return (
      options.executionId === undefined ? statements.listRecoveries.all(options.limit) : statements.listRecoveriesOf.all(options.executionId, options.limit)
    ) as RecoveryRecord[];
  }

  async listExecutions(options: { limit: number }): Promise<ExecutionRecord[]> {
    const rows = this.open().statements.listExecutions.all(options.limit) as Array<Record<string, unknown>>;
    return rows.map((row) => ({
      execution_id: row.execution_id as string,
      chain_name: row.chain_name as string,
      agent_path: (row.agent_path as string | null) ?? null,
      last_node_id: row.last_node_id as string,
      last_status: row.last_status as string,
      last_step_type: (row.last_step_type as string | null) ?? null,
      last_run_status: (row.last_run_status as string | null) ?? null,
      updated_at: row.updated_at as string,
      paused: row.paused === 1,
      lease:
        row.owner == null
          ? null
          : {
              owner: row.owner as string,
              expires_at: new Date(row.expires_at as number).toISOString(),
              active: row.active === 1,
              runner_key: (row.runner_key as string | null) ?? null,
              recover_attempts: row.recover_attempts as number,
              attention_reason: (row.attention_reason as string | null) ?? null,
            },
    }));
  }

  async endedExecutions(options: { before: string; limit: number }): Promise<string[]> {
    return this.#now(({ statements }) =>
      (statements.endedExecutions.all({ before: options.before, limit: options.limit, now: Date.now() }) as Array<{ execution_id: string }>).map(
        (row) => row.execution_id,
      ),
    );
  }

  async getIdempotent(executionId: string, functionKey: string): Promise<JsonValue | undefined> {
    const row = this.open().statements.getIdempotent.get(executionId, functionKey) as { result: string } | undefined;
    return row ? (JSON.parse(row.result) as JsonValue) : undefined;
  }

  async idempotentEntries(executionId: string): Promise<IdempotentEntry[]> {
    const rows = this.open().statements.idempotentEntries.all(executionId) as Array<{ function_key: string; result: string }>;
    return rows.map((row) => ({ function_key: row.function_key, result: JSON.parse(row.result) as JsonValue }));
  }

  async putIdempotent(executionId: string, functionKey: string, value: JsonValue, fence?: Fence): Promise<void> {
    const { statements } = this.writable();
    if (!fence) {
      statements.putIdempotent.run(executionId, functionKey, JSON.stringify(value), utcNow());
      return;
    }
    const written = statements.putIdempotentFenced.run(executionId, functionKey, JSON.stringify(value), utcNow(), executionId, fence.owner, fence.generation);
    if (written.changes === 0) throw leaseLost(executionId);
  }

  async prune(olderThan: number | Date): Promise<number> {
    const cutoff = pruneCutoff(olderThan);
    const { db, statements } = this.writable();
    this.#delta.forgetAll();
    return db
      .transaction(() => {
        const boundary = this.toCheckpointsNow(statements.pruneBoundary.all({ cutoff }) as CheckpointRow[]);
        // (Their node output, if made of state keys, reads the same from the full state.)
        for (const row of boundary) statements.materialize.run(JSON.stringify(row.state_snapshot), row.checkpoint_id);
        const pruned = statements.pruneCheckpoints.run({ cutoff }).changes;
        statements.pruneExecutionKeys.run();
        return pruned + statements.pruneIdempotent.run(cutoff).changes;
      })
      .immediate();
  }

  async fetchUnsynced(limit: number, projectId?: string): Promise<UnsyncedCheckpoint[]> {
    const max = listLimit(limit);
    const { statements } = this.open();
    const rows = (projectId === undefined ? statements.unsynced.all(max) : statements.unsyncedForProject.all(projectId, max)) as Array<
      CheckpointRow & { sequence: number; project_id: string }
    >;
    const checkpoints = this.toCheckpointsNow(rows, this.#outboxStates);
    this.#outboxStates.rememberLast(checkpoints, new Map(checkpoints.map((c) => [c.checkpoint_id, c.state_snapshot])));
    return rows.map((row, i) => ({ checkpoint: checkpoints[i]!, sequence: row.sequence, project_id: row.project_id }));
  }

  async markSynced(checkpointIds: readonly string[]): Promise<number> {
    const { db, statements } = this.writable();
    return db.transaction(() => checkpointIds.reduce((n, id) => n + statements.markSynced.run(id).changes, 0)).immediate();
  }

  async fetchLocalOnly(limit: number, projectId: string, options: { since?: string | null; afterSequence?: number } = {}): Promise<UnsyncedCheckpoint[]> {
    const { db } = this.open();
    // Rare (an explicit `platform push`): prepared here, planned on the primary key; local-only rows are never indexed.
    const rows = db
      .prepare(
        `SELECT rowid AS sequence, project_id, ${COLUMNS} FROM checkpoints
         WHERE local_only = 1 AND quarantine_reason IS NULL AND project_id = ? AND rowid > ? AND (? IS NULL OR created_at >= ?)
         ORDER BY rowid ASC LIMIT ?`,
      )
      .all(projectId, options.afterSequence ?? 0, options.since ?? null, options.since ?? null, listLimit(limit)) as Array<
      CheckpointRow & { sequence: number; project_id: string }
    >;
    const checkpoints = this.toCheckpointsNow(rows);
    return rows.map((row, i) => ({ checkpoint: checkpoints[i]!, sequence: row.sequence, project_id: row.project_id }));
  }

  /** Rows of the execution were queued or sent to the Platform (docs/adr/0054): its claims are arbitrated there. */
  async isReplicated(executionId: string): Promise<boolean> {
    const { db } = this.open();
    return db.prepare('SELECT 1 FROM checkpoints WHERE execution_id = ? AND local_only = 0 LIMIT 1').get(executionId) !== undefined;
  }

  async markPushed(checkpointIds: readonly string[], rejected: Readonly<Record<string, string>> = {}): Promise<number> {
    const { db } = this.writable();
    const pushed = db.prepare('UPDATE checkpoints SET local_only = 0 WHERE checkpoint_id = ? AND local_only = 1');
    const refused = db.prepare('UPDATE checkpoints SET local_only = 0, quarantine_reason = ? WHERE checkpoint_id = ? AND local_only = 1');
    return db
      .transaction(
        () =>
          checkpointIds.reduce((n, id) => n + pushed.run(id).changes, 0) +
          Object.entries(rejected).reduce((n, [id, reason]) => n + refused.run(reason, id).changes, 0),
      )
      .immediate();
  }

  async markQuarantined(reasons: Readonly<Record<string, string>>): Promise<number> {
    const { db, statements } = this.writable();
    return db.transaction(() => Object.entries(reasons).reduce((n, [id, reason]) => n + statements.markQuarantined.run(reason, id).changes, 0)).immediate();
  }

  /**
   * Execution ids starting or ending with `fragment` (docs/adr/0060), sorted, at most `limit`: a range on the
   * `executions` key table's unique index for the prefix, a scan of that table (one short row per execution) for the
   * suffix; a store older than v28 scans its checkpoints.
   */
  async matchExecutionIds(fragment: string, limit: number): Promise<string[]> {
    this.#commitQueued();
    const { db } = this.open();
    const keyed = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'executions'").get() !== undefined;
    const from = keyed ? 'executions' : 'checkpoints';
    const rows = db
      .prepare(
        `SELECT DISTINCT execution_id FROM ${from}
         WHERE (execution_id >= @fragment AND execution_id < @fragment || char(1114111)) OR substr(execution_id, -length(@fragment)) = @fragment
         ORDER BY execution_id LIMIT @limit`,
      )
      .all({ fragment, limit }) as Array<{ execution_id: string }>;
    return rows.map((row) => row.execution_id);
  }

  async listQuarantined(options: { executionId?: string; limit?: number } = {}): Promise<QuarantinedRow[]> {
    this.#commitQueued();
    const { db } = this.open();
    // `+rowid`: ordering by the bare rowid makes SQLite walk the whole table in rowid order; the quarantined rows are
    // few, so reading them through their partial index (v38) and sorting them is far cheaper.
    return db
      .prepare(
        `SELECT checkpoint_id, execution_id, node_id, step_type, created_at, quarantine_reason AS reason FROM checkpoints
         WHERE quarantine_reason IS NOT NULL AND (? IS NULL OR execution_id = ?) ORDER BY +rowid LIMIT ?`,
      )
      .all(options.executionId ?? null, options.executionId ?? null, options.limit ?? DEFAULT_LIST_LIMIT) as QuarantinedRow[];
  }

  /**
   * Home counts for the local UI: pending interrupts, and distinct executions whose latest row is failed or
   * interrupted (a failed terminal row counts as failed).
   */
  async executionCounts(): Promise<{ pending: number; failed: number }> {
    this.#commitQueued();
    const { db } = this.open();
    const pending = (db.prepare('SELECT count(*) AS n FROM pending_interrupts').get() as { n: number }).n;
    const failed = (
      db
        .prepare(`SELECT count(*) AS n FROM (
        SELECT status, run_status, ROW_NUMBER() OVER (PARTITION BY exec_key ORDER BY created_at DESC, rowid DESC) AS rn
        FROM checkpoints) WHERE rn = 1 AND (status IN ('failed', 'interrupted') OR run_status = 'failed')`)
        .get() as { n: number }
    ).n;
    return { pending, failed };
  }

  async close(): Promise<void> {
    // Rows accepted before close are committed, not dropped.
    this.#commitQueued();
    this.closed = true;
    const keeperStopped = this.#releaseWalKeeper?.();
    this.#releaseWalKeeper = undefined;
    this.db?.close();
    this.db = undefined;
    this.statements = undefined;
    // The store's files are settled only once the keeper thread (if this was its last connection) has closed too.
    await keeperStopped;
  }

  /**
   * The connection, opened on first use. Every caller but the group commit gets it with the store's busy timeout in
   * effect (`#noWait` false); the group commit sets it to zero itself. Switching only when the mode changes keeps the
   * two pragmas (each compiles a statement) off a run of puts.
   */
  private open(forGroupCommit = false): { db: Database.Database; statements: Statements } {
    if (this.closed) throw new ChainCheckpointError(`the checkpointer on ${this.dbPath} is closed`);
    if (!this.db || !this.statements) {
      const db = openLocalStore(this.dbPath);
      try {
        this.statements = prepare(db);
      } catch (error) {
        db.close();
        throw error;
      }
      this.db = db;
      this.#noWait = false;
      notifyCheckpointerOpened(this);
    }
    if (this.#noWait && !forGroupCommit) {
      this.statements.wait();
      this.#noWait = false;
    }
    return { db: this.db, statements: this.statements };
  }

  /**
   * Run `work` on this connection as it stands. After a group commit its busy timeout is zero, and switching it back
   * compiles a pragma (and the next group commit another): every lease, claim and read of a run paid that. So `work`
   * runs as is, and only when the store was locked (SQLITE_BUSY: nothing was done) again with the busy timeout.
   */
  #now<T>(work: (handle: { db: Database.Database; statements: Statements }) => T): T {
    const handle = this.writable(true);
    if (!this.#noWait) return work(handle);
    try {
      return work(handle);
    } catch (error) {
      if (!isBusy(error)) throw error;
      return work(this.writable());
    }
  }

  /** `open()` for a write: the first one hands WAL checkpoints to a keeper thread (../store/wal-keeper.ts). */
  private writable(forGroupCommit = false): { db: Database.Database; statements: Statements } {
    const handle = this.open(forGroupCommit);
    this.#releaseWalKeeper ??= retainWalKeeper(handle.db, this.dbPath);
    return handle;
  }

  /**
   * One row committed by itself: one autocommitted statement, or, when its execution's key is made first (`insert`),
   * the two in one transaction.
   */
  private insertAlone(statements: Statements, row: Checkpoint, fence: Fence | undefined): void {
    if (this.#delta.remembered(row.execution_id) !== undefined && !fence?.release) this.insert(statements, row, fence);
    else statements.immediately(() => this.insertPut(statements, [row], fence));
  }

  /** A put's rows; a fence with `release` frees the lease after the last one, in the same transaction. */
  private insertPut(statements: Statements, rows: readonly Checkpoint[], fence: Fence | undefined): void {
    for (const row of rows) this.insert(statements, row, fence);
    if (fence?.release) statements.releaseFenced.run(rows[0]!.execution_id, fence.owner, fence.generation);
  }

  /** Run `write` in an IMMEDIATE transaction; when it rolls back, the rows' executions are forgotten (./delta.ts). */
  private inTransaction(statements: Statements, rows: readonly Checkpoint[], write: () => void): void {
    try {
      statements.immediately(write);
    } catch (error) {
      for (const row of rows) this.#delta.forget(row.execution_id);
      throw error;
    }
  }

  /**
   * Insert one row, stored against its execution's previous row when this checkpointer wrote that one; with `fence`,
   * only while the execution's lease is still the fence's (LeaseLost otherwise).
   */
  private insert(statements: Statements, row: Checkpoint, fence?: Fence): void {
    const remembered = this.#delta.remembered(row.execution_id);
    try {
      // Nothing remembered: the execution's first row here (new, resumed or forked in this process, or after a failed
      // write). Its key is made now if the store has none; a remembered execution has one (this process wrote a row
      // of it), and if another process deleted it since, the store's trigger makes it again.
      if (remembered === undefined) statements.ensureExecution.run(row.execution_id);
      const stored = this.#delta.encode(row);
      try {
        statements.insert.run(toParams(row, stored.text, stored.deltaBase, fence));
      } catch (error) {
        if (!isBaseGone(error)) throw error;
        // The base is gone (pruned or deleted by another process): store the full state instead. Only the statement
        // failed; a transaction around it goes on.
        this.#delta.forget(row.execution_id);
        const full = this.#delta.encode(row);
        statements.insert.run(toParams(row, full.text, full.deltaBase, fence));
      }
    } catch (error) {
      if (isFenced(error)) {
        this.#delta.forget(row.execution_id);
        throw leaseLost(row.execution_id);
      }
      // A locked store wrote nothing: the row may be retried against the same base.
      if (isBusy(error)) this.#delta.restore(row.execution_id, remembered);
      else this.#delta.forget(row.execution_id);
      if ((error as { code?: string }).code?.startsWith('SQLITE_CONSTRAINT')) {
        throw new ChainCheckpointError(`checkpoint '${row.checkpoint_id}' already exists`, { cause: error });
      }
      throw error;
    }
  }

  /** `toCheckpoints`, synchronously (better-sqlite3 is; used inside transactions). */
  private toCheckpointsNow(rows: CheckpointRow[], cache?: ResolvedStateCache): Checkpoint[] {
    const checkpoints = rows.map(toCheckpoint);
    if (rows.some((row) => row.delta_base != null)) {
      const stored: StoredRow[] = checkpoints.map((c, i) => ({
        checkpoint_id: c.checkpoint_id,
        delta_base: (rows[i]!.delta_base as string | null) ?? null,
        state_snapshot: c.state_snapshot,
      }));
      const states = resolveStatesSync(stored, (ids) => fetchChainsSqlite(this.open(true).statements, ids), cache);
      for (const checkpoint of checkpoints) checkpoint.state_snapshot = states.get(checkpoint.checkpoint_id)!;
    }
    rows.forEach((row, i) => {
      const checkpoint = checkpoints[i]!;
      if (row.output_keys != null) checkpoint.node_output = outputFromState(checkpoint.state_snapshot, row.output_keys as string, checkpoint.checkpoint_id);
    });
    return checkpoints;
  }
}

/** Rows `ids` and every row they are built on, down to full rows. */
function fetchChainsSqlite(statements: Statements, ids: string[]): StoredRow[] {
  const rows = statements.chains.all(JSON.stringify(ids)) as Array<{ checkpoint_id: string; delta_base: string | null; state_snapshot: string }>;
  return rows.map((row) => ({ ...row, state_snapshot: JSON.parse(row.state_snapshot) as unknown }));
}

/** A `put` (one row) or `putWrites` (rows written together) waiting for the group commit. */
interface QueuedPut {
  rows: Checkpoint[];
  fence: Fence | undefined;
  resolve: (rows: Checkpoint[]) => void;
  reject: (error: unknown) => void;
}

const FIELD_PARAMS = fieldParams((value) => JSON.stringify(value));

/**
 * A row's parameters for `insert`, in its order: the columns (a node output made of state keys is stored as those
 * keys, ./delta.ts `outputKeys`), the state's place holding the base twice (the base check) and then the state, and
 * last the execution id for its key.
 */
function toParams(row: Checkpoint, stateText: string, deltaBase: string | null, fence: Fence | undefined): unknown[] {
  const keys = outputKeys(row);
  const params: unknown[] = [];
  for (let i = 0; i < FIELD_PARAMS.length; i++) {
    if (i === STATE_PARAM) params.push(deltaBase, deltaBase, stateText);
    else if (i === EXECUTION_PARAM) params.push(fence?.owner ?? null, row.execution_id, fence?.owner ?? null, fence?.generation ?? null, row.execution_id);
    else if (i === OUTPUT_PARAM) params.push(keys || row.node_output === null ? null : JSON.stringify(row.node_output));
    else params.push(FIELD_PARAMS[i]!(row));
  }
  // Consent and project as the writer had them (docs/adr/0054): a local-only row is stored synced, off the outbox.
  const stamp = stampOf(row);
  const localOnly = stamp.queued ? 0 : 1;
  params.push(deltaBase, keys && JSON.stringify(keys), row.trace_id ?? null, localOnly, localOnly, stamp.project, row.execution_id);
  return params;
}

/** The insert refused a delta row because its base is gone (INSERT_SQL). */
function isBaseGone(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === 'SQLITE_CONSTRAINT_NOTNULL' && (error as Error).message === BASE_GONE_MESSAGE;
}

/** The insert refused a fenced row: the execution's lease is no longer the fence's (FENCED_EXECUTION_ID). */
function isFenced(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === 'SQLITE_CONSTRAINT_NOTNULL' && (error as Error).message === FENCED_MESSAGE;
}

/** SQLITE_BUSY (and its extended codes): the write lock was not available. */
function isBusy(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code?.toString().startsWith('SQLITE_BUSY') === true;
}

function toCheckpoint(row: CheckpointRow): Checkpoint {
  return decodeCheckpoint(row, (stored) => JSON.parse(stored as string) as unknown);
}

function toPending(row: PendingRow): PendingInterrupt {
  return { ...row, context: JSON.parse(row.context) as PendingInterrupt['context'] };
}
