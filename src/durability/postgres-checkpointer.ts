/**
 * PostgresCheckpointer: checkpoints in a Postgres schema, for fleets (any replica can resume any run).
 *
 * Concurrency: the claim is one `DELETE ... RETURNING` statement; Postgres row locking lets exactly one of N
 * concurrent deleters see the row, across connections and machines. Multi-row writes are single statements
 * (`putWrites`, `deleteExecution`, `prune`) or explicit transactions (`recordInterrupt`, setup), so nothing is ever
 * half-written.
 *
 * Rows are delta checkpoints (./delta.ts, ADR 0028): a row's state is what changed since its execution's previous
 * row, kept as JSON text in `state_delta`, or DEFLATE-compressed in `state_delta_z` when that is clearly smaller
 * (./delta-compression.ts, ADR 0028); full states stay JSONB in `state_snapshot`. Deltas are resolved on every
 * read with one recursive query for the bases it needs.
 */
import pg from 'pg';
import { ConfigError } from '../errors.js';
import { StoreVersionError } from '../store/errors.js';
import { migrationPrivilegeError, recordedVersion } from '../store/pg-schema-version.js';
import { acquirePgPool, type PgPoolLease } from '../store/pg-pools.js';
import { isUniqueViolation } from '../store/pg-sqlstate.js';
import { pgIsoText } from '../store/pg-text.js';
import { Store } from '../store/store-handle.js';
import { utcNow } from '../store/time.js';
import { registerProcess } from '../tracing/pg-processes.js';
import { migrateTraceSchema } from '../tracing/pg-schema.js';
import type { Checkpoint, PendingInterrupt } from '../types.js';
import type {
  CheckpointWrite,
  ClaimingCheckpointer,
  OutboxMarks,
  PushingCheckpointer,
  Fence,
  LeaseOptions,
  LeaseRecord,
  ListOptions,
  PendingInterruptWrite,
  QuarantinedRow,
  QuarantiningCheckpointer,
  ReplicaSource,
  UnsyncedCheckpoint,
} from './checkpointer.js';
import { DEFAULT_LIST_LIMIT } from './checkpointer.js';
import { idFragmentPatterns } from '../ids/short-id.js';
import { CHECKPOINT_FIELDS, OUTPUT_PARAM, STATE_PARAM, checkpointColumns, decodeCheckpoint, fieldParams } from './columns.js';
import { ChainCheckpointError, IdempotencyKeyTaken } from './errors.js';
import { checkIdempotencyKeyWrite, type IdempotencyKeyRecord, type IdempotencyKeyStore, type IdempotencyKeyWrite } from './idempotency-keys.js';
import type { JsonValue } from './json.js';
import { PG_LATEST_VERSION, PG_MIGRATIONS } from './postgres-migrations.js';
import { checkClaim, decisionRecord, type Claim } from './decision.js';
import type { ActiveLease, ExecutionRecord, IdempotentEntry, RecoveringCheckpointer, RecoveryRecord } from './recovery-store.js';
import { settleLeaseReleases } from './lease.js';
import { leaseLost } from './lease-lost.js';
import { checkLease, completeCheckpoint, completePending, invalid, listLimit, pruneCutoff } from './rows.js';
import { validateSchemaName } from './schema-name.js';
import { asStorageError } from '../store/storage-errors.js';
import { decodePgJson, decodePgString, encodePgJsonText, encodePgString } from './postgres-text.js';
import { deltaText, storedDeltaForm } from './delta-compression.js';
import { DeltaWriter, outputFromState, outputKeys, ResolvedStateCache, resolveStates, type StoredState, type StoredRow } from './delta.js';
import { currentWriteStamp, notifyCheckpointerOpened, notifyCheckpointWrite, stampOf } from './write-hook.js';
import { timeOrderedId } from './time-ordered-id.js';

export interface PostgresCheckpointerOptions {
  /** Schema holding the tables (default `agentkit`); must match `[A-Za-z_][A-Za-z0-9_]*`. */
  schema?: string;
  /** Connections kept open when idle (default 1). */
  minPoolSize?: number;
  /** Most connections open at once (default 10). */
  maxPoolSize?: number;
}

const TIMESTAMP = pgIsoText;
/** The checkpoint columns and the row's delta base (resolved away before a row leaves this file). */
const COLUMNS = `${checkpointColumns(`${TIMESTAMP('created_at')} AS created_at`)}, delta_base, output_keys, state_delta, state_delta_z, trace_id`;
const PENDING_COLUMNS = `execution_id, chain_name, node_id, reason, context, agent_path, ${TIMESTAMP('created_at')} AS created_at`;
/** What resolving a delta needs of each row it is built on. */
const CHAIN_COLUMNS = 'checkpoint_id, delta_base, state_snapshot, state_delta, state_delta_z';
const CHAIN_SELECT = CHAIN_COLUMNS.split(', ')
  .map((column) => `c.${column}`)
  .join(', ');

/** A row a delta is built on, as the recursive read returns it (state_snapshot decoded by pg, or by JSON in json_agg). */
interface ChainRow {
  checkpoint_id: string;
  delta_base: string | null;
  state_snapshot: unknown;
  state_delta: string | null;
  /** Raw DEFLATE of the delta text: bytes when selected directly, the server's bytea text form inside `json_agg`. */
  state_delta_z: Buffer | string | null;
}

/**
 * The recursive CTE `chain`: every row the rows of `from` (a CTE or subquery with a `delta_base` column) are built
 * on, down to full rows. Goes in a `WITH RECURSIVE` list.
 */
function chainOf(schema: string, from: string): string {
  return `chain AS (
    SELECT ${CHAIN_SELECT} FROM ${schema}.checkpoints c JOIN ${from} f ON c.checkpoint_id = f.delta_base
    UNION ALL
    SELECT ${CHAIN_SELECT} FROM ${schema}.checkpoints c JOIN chain ON c.checkpoint_id = chain.delta_base
  )`;
}

/** `select` (one row of COLUMNS) with the rows its delta is built on, as `chain_rows` (a JSON array, or null). */
function withChain(schema: string, select: string): string {
  return `WITH RECURSIVE picked AS (${select}), ${chainOf(schema, 'picked')}
    SELECT p.*, (SELECT json_agg(chain) FROM chain) AS chain_rows FROM picked p`;
}
/**
 * `synced`, `local_only` and `project_id` carry the writer's consent and project (docs/adr/0054); `process_id` the
 * writing process (its `processes` row, issue 38).
 */
const INSERT_COLUMNS = `${checkpointColumns()}, delta_base, output_keys, state_delta, state_delta_z, trace_id, synced, local_only, project_id, process_id`;
const PARAMS_PER_ROW = CHECKPOINT_FIELDS.length + 9;

/**
 * Fencing (docs/adr/0015): the CTE `fence` has a row only while the execution's lease (`$e`, `$o`, `$g`: execution,
 * owner, generation) is still the writer's, and locks it FOR SHARE until the statement commits, so a takeover (an
 * UPDATE of that row) lands wholly before the write, which then writes nothing, or after it. A fenced insert selects
 * its rows FROM fence.
 */
function fenceCte(s: string, e: number, release = false): string {
  const held = `execution_id = $${e} AND owner = $${e + 1} AND generation = $${e + 2}`;
  // A run's last write releases the lease in the same statement: the UPDATE locks the row as FOR SHARE would.
  // That write also ends the execution's active stretch (docs/adr/0050).
  if (release)
    return `fence AS (UPDATE ${s}.execution_leases SET expires_at = clock_timestamp(), active = false, recover_attempts = 0 WHERE ${held} RETURNING 1)`;
  return `fence AS (SELECT 1 FROM ${s}.execution_leases WHERE ${held} FOR SHARE)`;
}

/**
 * The lease upsert of `acquireLease` (`$1` execution, `$2` owner, `$3` time to live in ms, `$4` an owner whose lease
 * may be taken over though unexpired, or NULL, `$<runner>` the runner key or NULL), returning the generation. Any
 * acquisition makes the execution active and unparks it (docs/adr/0050).
 */
function acquireSql(s: string, runner: number): string {
  return `INSERT INTO ${s}.execution_leases AS l (execution_id, owner, expires_at, generation, active, runner_key)
    VALUES ($1, $2, clock_timestamp() + $3 * interval '1 millisecond', 1, true, $${runner}::text)
    ON CONFLICT (execution_id) DO UPDATE SET owner = EXCLUDED.owner, expires_at = EXCLUDED.expires_at, acquired_at = now(),
      generation = CASE WHEN l.owner = EXCLUDED.owner THEN l.generation ELSE l.generation + 1 END,
      active = true, attention_reason = NULL, runner_key = COALESCE(EXCLUDED.runner_key, l.runner_key)
    WHERE l.owner = EXCLUDED.owner OR l.expires_at <= clock_timestamp() OR l.owner = $4::text
    RETURNING generation`;
}

export class PostgresCheckpointer implements ClaimingCheckpointer, PushingCheckpointer, QuarantiningCheckpointer, RecoveringCheckpointer, IdempotencyKeyStore {
  /** The schema name as given (validated). */
  readonly schema: string;
  private readonly pool: pg.Pool;
  readonly #url: string;
  readonly #poolLease: PgPoolLease;
  /** This process's id in the store's `processes` table, once set up; stamped on every checkpoint it writes. */
  #processId: number | null = null;
  #registered: Promise<void> | undefined;
  /** The schema as an SQL identifier. */
  private readonly s: string;
  private ready: Promise<void> | undefined;
  private ended = false;
  /** Each execution's last written state, which its next row is stored against. */
  readonly #delta = new DeltaWriter();
  /** The last state `fetchUnsynced` read per execution: the next batch's rows are built on them. */
  readonly #outboxStates = new ResolvedStateCache();
  /** `seq` of each row of the last `fetchUnsynced` batch, by id, for `markSynced`. */
  readonly #handedOut = new Map<string, string>();
  /** Insert statements' text by statement name (./insertText). */
  readonly #insertTexts = new Map<string, string>();

  /**
   * A checkpointer on `connectionString` (a `postgres://` URL), or on an opened store (`openStore`, whose schema is
   * the default). The schema name is validated here, before any SQL runs (InvalidSchemaNameError); pool sizes must
   * satisfy 0 <= min <= max, max >= 1 (ConfigError). Its connections come from the process's one pool for the store
   * (store/pg-pools.ts). Nothing connects until first use; the schema and tables are created then (or by `setup()`).
   */
  constructor(connectionString: string | Store, options: PostgresCheckpointerOptions = {}) {
    const store = connectionString instanceof Store ? connectionString : undefined;
    if (store && store.ref.engine !== 'postgres') throw new ConfigError(`PostgresCheckpointer needs a Postgres store; ${store.label} is a SQLite file`);
    this.schema = validateSchemaName(options.schema ?? store?.schema ?? 'agentkit');
    this.s = `"${this.schema}"`;
    const min = options.minPoolSize ?? 1;
    const max = options.maxPoolSize ?? 10;
    if (!Number.isInteger(min) || !Number.isInteger(max) || min < 0 || max < 1 || min > max) {
      throw new ConfigError(`invalid Postgres pool size: minPoolSize ${min}, maxPoolSize ${max} (need 0 <= min <= max, max >= 1)`);
    }
    const url = store?.ref.engine === 'postgres' ? store.ref.url : connectionString;
    if (typeof url !== 'string' || url === '') {
      throw new ConfigError('PostgresCheckpointer needs a connection string (postgres://user@host:port/db)');
    }
    this.#url = url;
    this.#poolLease = acquirePgPool(url, this.schema, { min, max });
    this.pool = this.#poolLease.pool;
  }

  /** The URL and schema, for the replication drain's own pool. */
  replicaSource(): ReplicaSource {
    return { driver: 'postgres', url: this.#url, schema: this.schema };
  }

  /**
   * Create the schema and apply every pending migration, in one transaction under an advisory lock. Idempotent and
   * safe to race; refuses (StoreVersionError) a schema migrated by a newer agentkit.
   */
  setup(): Promise<void> {
    this.ready ??= this.migrate().then(
      () => notifyCheckpointerOpened(this),
      (error: unknown) => {
        this.ready = undefined;
        throw error;
      },
    );
    return this.ready;
  }

  /**
   * True when the schema already holds agentkit's tables (its `schema_version` table exists). Creates nothing: read-only
   * tools use it to report an empty store instead of provisioning a schema named by a typo.
   */
  async isSetUp(): Promise<boolean> {
    if (this.ended) throw new ChainCheckpointError(`the checkpointer on Postgres schema "${this.schema}" is closed`);
    let result: pg.QueryResult;
    try {
      result = await this.pool.query('SELECT 1 FROM information_schema.tables WHERE table_schema = $1 AND table_name = $2', [this.schema, 'schema_version']);
    } catch (error) {
      throw asStorageError(error, this.storeName);
    }
    return (result.rowCount ?? 0) > 0;
  }

  /** The schema's migration version (sets it up first). */
  async schemaVersion(): Promise<number> {
    await this.setup();
    const result = await this.pool.query<{ v: number }>(`SELECT COALESCE(MAX(version), 0)::int AS v FROM ${this.s}.schema_version`);
    return result.rows[0]!.v;
  }

  async put(checkpoint: CheckpointWrite, fence?: Fence): Promise<Checkpoint> {
    const row = completeCheckpoint(checkpoint);
    await this.insert([row], fence);
    notifyCheckpointWrite(this);
    return this.#delta.asStored(row);
  }

  async putWrites(checkpoints: readonly CheckpointWrite[], fence?: Fence): Promise<Checkpoint[]> {
    const rows = checkpoints.map(completeCheckpoint);
    if (rows.length > 0) await this.insert(rows, fence);
    notifyCheckpointWrite(this);
    return rows.map((row) => this.#delta.asStored(row));
  }

  async getLast(executionId: string): Promise<Checkpoint | null> {
    return this.readOne('agentkit_cp_last', `SELECT ${COLUMNS} FROM ${this.s}.checkpoints WHERE execution_id = $1 ORDER BY created_at DESC, seq DESC LIMIT 1`, [
      executionId,
    ]);
  }

  async getById(checkpointId: string): Promise<Checkpoint | null> {
    return this.readOne('agentkit_cp_by_id', `SELECT ${COLUMNS} FROM ${this.s}.checkpoints WHERE checkpoint_id = $1`, [checkpointId]);
  }

  /**
   * The one row `select` picks, with the rows its delta is built on read in the same statement (`withChain`): one
   * round trip instead of two (a resume reads the latest row first; each round trip is a third of a millisecond or
   * more), and the row and its bases come from one snapshot. Prepared once per connection as `name` (the recursive
   * statement costs more to plan than to run).
   */
  private async readOne(name: string, select: string, params: unknown[]): Promise<Checkpoint | null> {
    const result = await this.query<CheckpointRow & { chain_rows: ChainRow[] | null }>({ name, text: withChain(this.s, select), values: params });
    const row = result.rows[0];
    if (!row) return null;
    const { chain_rows: chain, ...columns } = row;
    return (await this.toCheckpoints([columns], undefined, undefined, chain ?? []))[0]!;
  }

  async list(executionId: string, options: ListOptions = {}): Promise<Checkpoint[]> {
    const limit = listLimit(options.limit);
    const order = options.newestFirst ? 'DESC' : 'ASC';
    const result = await this.query<CheckpointRow>(
      `SELECT ${COLUMNS} FROM ${this.s}.checkpoints WHERE execution_id = $1 ORDER BY created_at ${order}, seq ${order} LIMIT $2`,
      [executionId, limit],
    );
    return this.toCheckpoints(result.rows);
  }

  async listPendingInterrupts(options: { limit?: number } = {}): Promise<PendingInterrupt[]> {
    const limit = listLimit(options.limit);
    const result = await this.query<PendingInterrupt>(
      `SELECT ${PENDING_COLUMNS} FROM ${this.s}.pending_interrupts ORDER BY created_at DESC, execution_id DESC LIMIT $1`,
      [limit],
    );
    return result.rows.map(fromPgPending);
  }

  /**
   * One statement: the checkpoint's insert as a CTE, and the pending row upserted only when the checkpoint was
   * inserted (a statement is atomic, so both or neither, with one round trip instead of BEGIN, two inserts and
   * COMMIT). No row means the delta's base is gone: the same statement again with the full state.
   */
  async recordInterrupt(
    checkpoint: CheckpointWrite,
    pending: PendingInterruptWrite,
    fence?: Fence,
  ): Promise<{ checkpoint: Checkpoint; pending: PendingInterrupt }> {
    const row = completeCheckpoint(checkpoint);
    const pendingRow = completePending(row, pending);
    await this.#writerReady();
    const pendingParams = [
      pendingRow.execution_id,
      pendingRow.chain_name,
      pendingRow.node_id,
      encodePgString(pendingRow.reason),
      encodePgJsonText(JSON.stringify(pendingRow.context)),
      pendingRow.agent_path,
      pendingRow.created_at,
    ];
    const write = () => {
      const insert = this.insertQuery([row], [this.#delta.encode(row)], fence ? 'fence' : null);
      const name = `agentkit_pause_${insert.name}${fence?.release ? '_release' : ''}`;
      let text = this.#insertTexts.get(name);
      const n = insert.values!.length;
      if (text === undefined) {
        text = `WITH ${fence ? `${fenceCte(this.s, n + 8, fence.release)}, ` : ''}cp AS (${insert.text} RETURNING 1)
          INSERT INTO ${this.s}.pending_interrupts (execution_id, chain_name, node_id, reason, context, agent_path, created_at)
          SELECT $${n + 1}, $${n + 2}, $${n + 3}, $${n + 4}, $${n + 5}::jsonb, $${n + 6}, $${n + 7}::timestamptz WHERE EXISTS (SELECT 1 FROM cp)
          ON CONFLICT (execution_id) DO UPDATE SET chain_name = EXCLUDED.chain_name, node_id = EXCLUDED.node_id,
            reason = EXCLUDED.reason, context = EXCLUDED.context, agent_path = EXCLUDED.agent_path, created_at = EXCLUDED.created_at`;
        this.#insertTexts.set(name, text);
      }
      const values = [...insert.values!, ...pendingParams];
      if (fence) values.push(row.execution_id, fence.owner, fence.generation);
      return this.query({ name, text, values });
    };
    try {
      if ((await write()).rowCount === 0) {
        await this.refuseLost(row.execution_id, fence);
        // Its base is gone (pruned or deleted elsewhere): the full state instead.
        this.#delta.forget(row.execution_id);
        await write();
      }
    } catch (error) {
      this.#delta.forget(row.execution_id);
      throw duplicate(error, row.checkpoint_id);
    }
    notifyCheckpointWrite(this);
    return { checkpoint: this.#delta.asStored(row), pending: pendingRow };
  }

  async deletePendingInterruptAtomic(executionId: string): Promise<PendingInterrupt | null> {
    const result = await this.query<PendingInterrupt>(`DELETE FROM ${this.s}.pending_interrupts WHERE execution_id = $1 RETURNING ${PENDING_COLUMNS}`, [
      executionId,
    ]);
    return result.rows[0] ? fromPgPending(result.rows[0]) : null;
  }

  /**
   * One statement: the claim (`DELETE ... RETURNING`), the newest interrupted row at the claimed node and path, and
   * the decision row copied from it (the columns of `decisionRow`), so the claim and its record commit together.
   */
  async claimPendingInterrupt(executionId: string, claim: Claim, fence?: Fence): Promise<{ pending: PendingInterrupt; checkpoint: Checkpoint } | null> {
    const checked = checkClaim(claim);
    const output = decisionRecord(checked);
    await this.#writerReady();
    const stamp = currentWriteStamp();
    // Prepared once per connection (a resume's dearest statement to plan). Fenced: the claim deletes only while the
    // lease is the claimer's (the fence CTE's row lock holds off a takeover until the claim commits).
    const result = await this.query<{ pending: PendingInterrupt; checkpoint: CheckpointRow; chain_rows: ChainRow[] | null }>({
      name: fence ? 'agentkit_claim_fenced' : 'agentkit_claim',
      text: `WITH RECURSIVE ${fence ? `${fenceCte(this.s, 7)}, ` : ''}claimed AS (
         DELETE FROM ${this.s}.pending_interrupts WHERE execution_id = $1${fence ? ' AND EXISTS (SELECT 1 FROM fence)' : ''} RETURNING *
       ), source AS (
         SELECT c.* FROM ${this.s}.checkpoints c JOIN claimed p ON c.execution_id = p.execution_id AND c.node_id = p.node_id
           AND c.agent_path IS NOT DISTINCT FROM p.agent_path
         WHERE c.status = 'interrupted' ORDER BY c.created_at DESC, c.seq DESC LIMIT 1
       ), inserted AS (
         INSERT INTO ${this.s}.checkpoints (${INSERT_COLUMNS})
         SELECT $2, p.execution_id, COALESCE(s.chain_name, p.chain_name), p.node_id, COALESCE(s.node_index, 0), 'completed', 'resume', NULL,
           s.checkpoint_id, COALESCE(s.state_snapshot, '{}'::jsonb), s.node_input,
           $3::jsonb || jsonb_build_object('pending_created_at', ${TIMESTAMP('p.created_at')}),
           COALESCE(s.iteration, 0), COALESCE(s.iteration_counters, '{}'::jsonb), p.reason, p.context, p.agent_path, $4::timestamptz,
           s.delta_base, NULL, s.state_delta, s.state_delta_z, NULL, $5::boolean, $5::boolean, $6::text, $${fence ? 10 : 7}::int
         FROM claimed p LEFT JOIN source s ON TRUE
         RETURNING ${COLUMNS}
       ), ${chainOf(this.s, 'inserted')}
       SELECT row_to_json(i) AS checkpoint, json_build_object('execution_id', p.execution_id, 'chain_name', p.chain_name,
         'node_id', p.node_id, 'reason', p.reason, 'context', p.context, 'agent_path', p.agent_path,
         'created_at', ${TIMESTAMP('p.created_at')}) AS pending, (SELECT json_agg(chain) FROM chain) AS chain_rows
       FROM inserted i, claimed p`,
      values: [
        executionId,
        timeOrderedId(),
        JSON.stringify(output),
        utcNow(),
        !stamp.queued,
        stamp.project,
        ...(fence ? [executionId, fence.owner, fence.generation] : []),
        this.#processId,
      ],
    });
    const row = result.rows[0];
    if (!row) await this.refuseLost(executionId, fence);
    // The decision row copies its source's stored state, delta and base alike: the same full state, resolved with
    // the base rows the statement read (no second round trip).
    return row ? { pending: row.pending, checkpoint: (await this.toCheckpoints([row.checkpoint], undefined, undefined, row.chain_rows ?? []))[0]! } : null;
  }

  /**
   * One `INSERT ... ON CONFLICT DO UPDATE ... WHERE` statement; expiry by the server's clock, so hosts' clocks do not
   * matter. With `first`, the row's insert is a second CTE of the same statement, selecting from the granted lease
   * (no grant, no row); a first row stored against an earlier row (an execution id this checkpointer wrote before)
   * is written after the grant instead, fenced by it.
   */
  async acquireLease(executionId: string, owner: string, ttlMs: number, options: LeaseOptions = {}): Promise<number | null> {
    checkLease(owner, ttlMs);
    const row = options.first === undefined ? undefined : completeCheckpoint(options.first);
    const from = options.takeOverFrom ?? null;
    if (row && row.execution_id !== executionId) invalid('execution_id', `of the first row must be the leased execution '${executionId}'`);
    const key = row ? options.idempotencyKey : undefined;
    if (row) await this.#writerReady();
    if (key) {
      checkIdempotencyKeyWrite(key);
      // An expired record of the key is free: gone before the insert below, which a live one refuses (docs/adr/0052).
      await this.query(`DELETE FROM ${this.s}.served_idempotency_keys WHERE caller = $1 AND idempotency_key = $2 AND expires_at <= clock_timestamp()`, [
        key.caller,
        key.key,
      ]);
    }
    const state = row ? this.#delta.encode(row) : undefined;
    if (!row || !state || state.deltaBase !== null) {
      if (row) this.#delta.forget(row.execution_id);
      // The key still commits with the lease (a first row stored against an earlier row follows it, fenced).
      const result = await this.query<{ generation: number }>(
        key
          ? {
              text: `WITH lease AS (${acquireSql(this.s, 5)}), ${keyCte(this.s, 6)} SELECT generation FROM lease`,
              values: [executionId, owner, ttlMs, from, options.runner ?? null, ...keyParams(key)],
            }
          : { name: 'agentkit_lease_acquire', text: acquireSql(this.s, 5), values: [executionId, owner, ttlMs, from, options.runner ?? null] },
      ).catch((error: unknown) => {
        throw keyTaken(error, executionId);
      });
      const generation = result.rows[0]?.generation ?? null;
      if (row && generation !== null) await this.put(row, { owner, generation });
      return generation;
    }
    try {
      const params = checkpointParams(row, state, this.#processId);
      // The lease, the first row and the request's key: one statement, so all of them or none.
      const text = `WITH lease AS (${acquireSql(this.s, 5 + params.length)}), cp AS (${insertText(this.s, 1, 0, 'lease', 4)})${key ? `, ${keyCte(this.s, 6 + params.length)}` : ''}
        SELECT generation FROM lease`;
      const result = await this.query<{ generation: number }>({
        name: key ? 'agentkit_lease_acquire_first_key' : 'agentkit_lease_acquire_first',
        text,
        values: key
          ? [executionId, owner, ttlMs, from, ...params, options.runner ?? null, ...keyParams(key)]
          : [executionId, owner, ttlMs, from, ...params, options.runner ?? null],
      });
      const generation = result.rows[0]?.generation ?? null;
      if (generation === null) this.#delta.forget(row.execution_id);
      else notifyCheckpointWrite(this);
      return generation;
    } catch (error) {
      this.#delta.forget(row.execution_id);
      throw duplicate(keyTaken(error, executionId), row.checkpoint_id);
    }
  }

  async idempotencyKeyOf(caller: string, key: string): Promise<IdempotencyKeyRecord | null> {
    const result = await this.query<{ fingerprint: string; execution_id: string; created_at: string; expires_at: string }>(
      `SELECT fingerprint, execution_id, ${TIMESTAMP('created_at')} AS created_at, ${TIMESTAMP('expires_at')} AS expires_at
        FROM ${this.s}.served_idempotency_keys WHERE caller = $1 AND idempotency_key = $2 AND expires_at > clock_timestamp()`,
      [caller, key],
    );
    const found = result.rows[0];
    return found ? { caller, key, ...found } : null;
  }

  async releaseIdempotencyKey(caller: string, key: string, executionId: string): Promise<boolean> {
    const result = await this.query(
      `DELETE FROM ${this.s}.served_idempotency_keys WHERE caller = $1 AND idempotency_key = $2 AND execution_id = $3
        AND NOT EXISTS (SELECT 1 FROM ${this.s}.checkpoints WHERE execution_id = $3)
        AND NOT EXISTS (SELECT 1 FROM ${this.s}.execution_leases WHERE execution_id = $3 AND expires_at > clock_timestamp())`,
      [caller, key, executionId],
    );
    return (result.rowCount ?? 0) > 0;
  }

  async pruneIdempotencyKeys(): Promise<number> {
    const result = await this.query(`DELETE FROM ${this.s}.served_idempotency_keys WHERE expires_at <= clock_timestamp()`);
    return result.rowCount ?? 0;
  }

  async leaseOf(executionId: string): Promise<LeaseRecord | null> {
    const result = await this.query<LeaseRecord>(
      `SELECT owner, generation, ${TIMESTAMP('expires_at')} AS expires_at FROM ${this.s}.execution_leases WHERE execution_id = $1`,
      [executionId],
    );
    return result.rows[0] ?? null;
  }

  async renewLease(executionId: string, owner: string, ttlMs: number): Promise<boolean> {
    checkLease(owner, ttlMs);
    const result = await this.query(
      `UPDATE ${this.s}.execution_leases SET expires_at = clock_timestamp() + $3 * interval '1 millisecond' WHERE execution_id = $1 AND owner = $2`,
      [executionId, owner, ttlMs],
    );
    return (result.rowCount ?? 0) > 0;
  }

  /** The row and its generation stay (a later owner gets a higher one); the lease is free from now on. */
  async releaseLease(executionId: string, owner: string): Promise<void> {
    await this.query({
      name: 'agentkit_lease_release',
      text: `UPDATE ${this.s}.execution_leases SET expires_at = clock_timestamp() WHERE execution_id = $1 AND owner = $2`,
      values: [executionId, owner],
    });
  }

  /**
   * After a fenced write wrote nothing: LeaseLost when the lease is no longer the fence's (else the write's other
   * condition failed: a delta base gone, no pending row to claim, and the caller goes on).
   */
  private async refuseLost(executionId: string, fence: Fence | undefined): Promise<void> {
    if (!fence) return;
    const held = await this.query(`SELECT 1 FROM ${this.s}.execution_leases WHERE execution_id = $1 AND owner = $2 AND generation = $3`, [
      executionId,
      fence.owner,
      fence.generation,
    ]);
    if ((held.rowCount ?? 0) === 0) throw leaseLost(executionId);
  }

  async deleteExecution(executionId: string): Promise<number> {
    this.#delta.forget(executionId);
    const result = await this.query<{ n: number }>(
      `WITH c AS (DELETE FROM ${this.s}.checkpoints WHERE execution_id = $1 RETURNING 1),
            p AS (DELETE FROM ${this.s}.pending_interrupts WHERE execution_id = $1 RETURNING 1),
            i AS (DELETE FROM ${this.s}.idempotency_cache WHERE execution_id = $1 RETURNING 1),
            l AS (DELETE FROM ${this.s}.execution_leases WHERE execution_id = $1 RETURNING 1),
            r AS (DELETE FROM ${this.s}.execution_recoveries WHERE execution_id = $1 RETURNING 1)
       SELECT ((SELECT count(*) FROM c) + (SELECT count(*) FROM p) + (SELECT count(*) FROM i) + (SELECT count(*) FROM l)
         + (SELECT count(*) FROM r))::int AS n`,
      [executionId],
    );
    return result.rows[0]!.n;
  }

  async activeLeases(options: { limit: number }): Promise<ActiveLease[]> {
    const result = await this.query<ActiveLease>({
      name: 'agentkit_active_leases',
      text: `SELECT execution_id, owner, generation, ${TIMESTAMP('expires_at')} AS expires_at, runner_key, recover_attempts
        FROM ${this.s}.execution_leases WHERE active ORDER BY expires_at LIMIT $1`,
      values: [options.limit],
    });
    return result.rows;
  }

  /** One UPDATE conditional on the generation the sweep saw: one winner fleet-wide (ADR 0050); server clock. */
  async claimOrphan(
    executionId: string,
    generation: number,
    owner: string,
    ttlMs: number,
    deadOwner: string | null,
  ): Promise<{ generation: number; attempt: number } | null> {
    checkLease(owner, ttlMs);
    const result = await this.query<{ generation: number; attempt: number }>(
      `UPDATE ${this.s}.execution_leases SET owner = $3, expires_at = clock_timestamp() + $4 * interval '1 millisecond', acquired_at = now(),
         generation = generation + 1, recover_attempts = recover_attempts + 1
       WHERE execution_id = $1 AND generation = $2 AND active AND (expires_at <= clock_timestamp() OR owner = $5::text)
       RETURNING generation, recover_attempts AS attempt`,
      [executionId, generation, owner, ttlMs, deadOwner],
    );
    return result.rows[0] ?? null;
  }

  async deactivate(executionId: string, generation: number, attention: string | null): Promise<boolean> {
    const result = await this.query(
      `UPDATE ${this.s}.execution_leases SET active = false, expires_at = clock_timestamp(), attention_reason = $3::text,
         recover_attempts = CASE WHEN $3::text IS NULL THEN 0 ELSE recover_attempts END
       WHERE execution_id = $1 AND generation = $2`,
      [executionId, generation, attention],
    );
    return (result.rowCount ?? 0) > 0;
  }

  async recordRecovery(record: Omit<RecoveryRecord, 'at'>): Promise<void> {
    await this.query(`INSERT INTO ${this.s}.execution_recoveries (execution_id, attempt, outcome, recovered_by, reason) VALUES ($1, $2, $3, $4, $5)`, [
      record.execution_id,
      record.attempt,
      record.outcome,
      record.recovered_by,
      record.reason,
    ]);
  }

  async listRecoveries(options: { limit: number; executionId?: string }): Promise<RecoveryRecord[]> {
    const where = options.executionId === undefined ? '' : 'WHERE execution_id = $2';
    const result = await this.query<RecoveryRecord>(
      `SELECT execution_id, attempt, outcome, recovered_by, reason, ${TIMESTAMP('at')} AS at FROM ${this.s}.execution_recoveries ${where}
       ORDER BY at DESC LIMIT $1`,
      options.executionId === undefined ? [options.limit] : [options.limit, options.executionId],
    );
    return result.rows;
  }

  /** Reads every execution's newest row through the execution index (a listing for people, not a hot path). */
  async listExecutions(options: { limit: number }): Promise<ExecutionRecord[]> {
    const result = await this.query<Record<string, unknown>>(
      `WITH t AS (SELECT DISTINCT ON (execution_id) execution_id, node_id, status, step_type, run_status, created_at
           FROM ${this.s}.checkpoints ORDER BY execution_id, created_at DESC, seq DESC),
         recent AS (SELECT * FROM t ORDER BY created_at DESC LIMIT $1)
       SELECT t.execution_id, f.chain_name, f.agent_path, t.node_id AS last_node_id, t.status AS last_status,
         t.step_type AS last_step_type, t.run_status AS last_run_status, ${TIMESTAMP('t.created_at')} AS updated_at,
         EXISTS (SELECT 1 FROM ${this.s}.pending_interrupts p WHERE p.execution_id = t.execution_id) AS paused,
         l.owner, ${TIMESTAMP('l.expires_at')} AS expires_at, l.active, l.runner_key, l.recover_attempts, l.attention_reason
       FROM recent t
       CROSS JOIN LATERAL (SELECT chain_name, agent_path FROM ${this.s}.checkpoints c WHERE c.execution_id = t.execution_id
         ORDER BY created_at, seq LIMIT 1) f
       LEFT JOIN ${this.s}.execution_leases l ON l.execution_id = t.execution_id
       ORDER BY t.created_at DESC`,
      [options.limit],
    );
    return result.rows.map((row) => ({
      execution_id: row.execution_id as string,
      chain_name: row.chain_name as string,
      agent_path: (row.agent_path as string | null) ?? null,
      last_node_id: row.last_node_id as string,
      last_status: row.last_status as string,
      last_step_type: (row.last_step_type as string | null) ?? null,
      last_run_status: (row.last_run_status as string | null) ?? null,
      updated_at: row.updated_at as string,
      paused: row.paused === true,
      lease:
        row.owner == null
          ? null
          : {
              owner: row.owner as string,
              expires_at: row.expires_at as string,
              active: row.active === true,
              runner_key: (row.runner_key as string | null) ?? null,
              recover_attempts: row.recover_attempts as number,
              attention_reason: (row.attention_reason as string | null) ?? null,
            },
    }));
  }

  async endedExecutions(options: { before: string; limit: number }): Promise<string[]> {
    const result = await this.query<{ execution_id: string }>(
      `WITH t AS (SELECT DISTINCT ON (execution_id) execution_id, step_type, agent_path, created_at
           FROM ${this.s}.checkpoints ORDER BY execution_id, created_at DESC, seq DESC)
       SELECT t.execution_id FROM t
       WHERE t.step_type = 'run_end' AND (t.agent_path IS NULL OR strpos(t.agent_path, '/') = 0) AND t.created_at < $1::timestamptz
         AND NOT EXISTS (SELECT 1 FROM ${this.s}.pending_interrupts p WHERE p.execution_id = t.execution_id)
         AND NOT EXISTS (SELECT 1 FROM ${this.s}.execution_leases l WHERE l.execution_id = t.execution_id AND (l.active OR l.expires_at > now()))
       ORDER BY t.created_at LIMIT $2`,
      [options.before, options.limit],
    );
    return result.rows.map((row) => row.execution_id);
  }

  async getIdempotent(executionId: string, functionKey: string): Promise<JsonValue | undefined> {
    const result = await this.query<{ result: JsonValue }>(`SELECT result FROM ${this.s}.idempotency_cache WHERE execution_id = $1 AND function_key = $2`, [
      executionId,
      functionKey,
    ]);
    return result.rowCount ? decodePgJson(result.rows[0]!.result) : undefined;
  }

  async idempotentEntries(executionId: string): Promise<IdempotentEntry[]> {
    const result = await this.query<{ function_key: string; result: JsonValue }>(
      `SELECT function_key, result FROM ${this.s}.idempotency_cache WHERE execution_id = $1 ORDER BY function_key`,
      [executionId],
    );
    return result.rows.map((row) => ({ function_key: row.function_key, result: decodePgJson(row.result) }));
  }

  async putIdempotent(executionId: string, functionKey: string, value: JsonValue, fence?: Fence): Promise<void> {
    const values: unknown[] = [executionId, functionKey, encodePgJsonText(JSON.stringify(value)), utcNow()];
    const result = await this.query(
      `${fence ? `WITH ${fenceCte(this.s, 5)} ` : ''}INSERT INTO ${this.s}.idempotency_cache (execution_id, function_key, result, created_at)
       SELECT $1, $2, $3::jsonb, $4::timestamptz${fence ? ' FROM fence' : ''}
       ON CONFLICT (execution_id, function_key) DO UPDATE SET result = EXCLUDED.result, created_at = EXCLUDED.created_at`,
      fence ? [...values, executionId, fence.owner, fence.generation] : values,
    );
    if (fence && (result.rowCount ?? 0) === 0) throw leaseLost(executionId);
  }

  /**
   * A kept row stored against a row the prune deletes is first rewritten with its full state, so no kept row loses
   * its base. The table is locked against writes for the prune (SHARE ROW EXCLUSIVE): no delta row can be committed
   * against a base being deleted.
   */
  async prune(olderThan: number | Date): Promise<number> {
    const cutoff = pruneCutoff(olderThan);
    this.#delta.forgetAll();
    const pruned = `created_at < $1::timestamptz AND status <> 'interrupted' AND execution_id NOT IN (SELECT execution_id FROM ${this.s}.pending_interrupts)`;
    return this.transaction(async (client) => {
      await client.query(`LOCK TABLE ${this.s}.checkpoints IN SHARE ROW EXCLUSIVE MODE`);
      const boundary = await client.query<CheckpointRow>(
        `SELECT ${COLUMNS} FROM ${this.s}.checkpoints WHERE NOT (${pruned}) AND delta_base IN (SELECT checkpoint_id FROM ${this.s}.checkpoints WHERE ${pruned})`,
        [cutoff],
      );
      for (const row of await this.toCheckpoints(boundary.rows, client)) {
        await client.query(
          `UPDATE ${this.s}.checkpoints SET state_snapshot = $1::jsonb, delta_base = NULL, state_delta = NULL, state_delta_z = NULL WHERE checkpoint_id = $2`,
          [encodePgJsonText(JSON.stringify(row.state_snapshot)), row.checkpoint_id],
        );
      }
      const result = await client.query<{ n: number }>(
        `WITH c AS (DELETE FROM ${this.s}.checkpoints WHERE ${pruned} RETURNING 1),
              i AS (DELETE FROM ${this.s}.idempotency_cache WHERE created_at < $1::timestamptz
                      AND execution_id NOT IN (SELECT execution_id FROM ${this.s}.pending_interrupts) RETURNING 1)
         SELECT ((SELECT count(*) FROM c) + (SELECT count(*) FROM i))::int AS n`,
        [cutoff],
      );
      return result.rows[0]!.n;
    });
  }

  async fetchUnsynced(limit: number, projectId?: string): Promise<UnsyncedCheckpoint[]> {
    const max = listLimit(limit);
    const result = await this.query<CheckpointRow & { sequence: string; project_id: string }>(
      // The lower bound (the oldest unsynced row, in this statement's own snapshot, so a row committed later is never
      // skipped) keeps the scan off the index entries of rows synced since the last vacuum: without it the planner
      // read every one of them and their heap pages on each call (a bitmap scan, then a sort), growing with the table.
      `SELECT seq AS sequence, project_id, ${COLUMNS} FROM ${this.s}.checkpoints
       WHERE seq >= (SELECT min(seq) FROM ${this.s}.checkpoints WHERE NOT synced AND quarantine_reason IS NULL)
         AND NOT synced AND quarantine_reason IS NULL AND ($2::text IS NULL OR project_id = $2) ORDER BY seq ASC LIMIT $1`,
      [max, projectId ?? null],
    );
    const checkpoints = await this.toCheckpoints(result.rows, undefined, this.#outboxStates);
    this.#outboxStates.rememberLast(checkpoints, new Map(checkpoints.map((c) => [c.checkpoint_id, c.state_snapshot])));
    this.#handedOut.clear();
    for (const [i, row] of result.rows.entries()) this.#handedOut.set(checkpoints[i]!.checkpoint_id, String(row.sequence));
    return result.rows.map((row, i) => ({ checkpoint: checkpoints[i]!, sequence: Number(row.sequence), project_id: row.project_id }));
  }

  /**
   * One drain batch claimed against every other drain of this store (docs/adr/0054): up to `limit` unsynced rows,
   * oldest first, locked `FOR UPDATE SKIP LOCKED` in a transaction held while `send` runs, and marked (synced or
   * quarantined, through the marks `send` is given) in that same transaction. A concurrent drain in another process
   * skips the locked rows and takes the next ones; a row it read as unsynced but that was marked meanwhile is
   * re-checked under its lock and left out, so each row is sent once. When `send` throws, or the commit fails, nothing
   * is marked and the rows stay queued.
   */
  async withClaimedBatch<R>(limit: number, send: (rows: UnsyncedCheckpoint[], marks: OutboxMarks) => Promise<R>): Promise<R> {
    await this.setup();
    const client = await this.connect();
    let broken: Error | undefined;
    try {
      await client.query('BEGIN');
      const result = await client.query<CheckpointRow & { sequence: string; project_id: string }>(
        `SELECT seq AS sequence, project_id, ${COLUMNS} FROM ${this.s}.checkpoints
         WHERE seq >= (SELECT min(seq) FROM ${this.s}.checkpoints WHERE NOT synced AND quarantine_reason IS NULL)
           AND NOT synced AND quarantine_reason IS NULL ORDER BY seq ASC LIMIT $1 FOR UPDATE SKIP LOCKED`,
        [listLimit(limit)],
      );
      const checkpoints = await this.toCheckpoints(result.rows, client);
      const rows = result.rows.map((row, i) => ({ checkpoint: checkpoints[i]!, sequence: Number(row.sequence), project_id: row.project_id }));
      const marks: OutboxMarks = {
        markSynced: async (ids) =>
          ids.length === 0
            ? 0
            : ((await client.query(`UPDATE ${this.s}.checkpoints SET synced = TRUE WHERE checkpoint_id = ANY($1::text[]) AND NOT synced`, [[...ids]]))
                .rowCount ?? 0),
        markQuarantined: async (reasons) => {
          const entries = Object.entries(reasons);
          if (entries.length === 0) return 0;
          const marked = await client.query(
            `UPDATE ${this.s}.checkpoints AS c SET synced = TRUE, quarantine_reason = r.reason
             FROM unnest($1::text[], $2::text[]) AS r(id, reason) WHERE c.checkpoint_id = r.id`,
            [entries.map(([id]) => id), entries.map(([, reason]) => reason)],
          );
          return marked.rowCount ?? 0;
        },
      };
      const answer = await send(rows, marks);
      await client.query('COMMIT');
      return answer;
    } catch (error) {
      broken = await client.query('ROLLBACK').then(
        () => undefined,
        (rollbackError: unknown) => rollbackError as Error,
      );
      throw asStorageError(error, this.storeName);
    } finally {
      client.release(broken);
    }
  }

  /**
   * Marks rows synced. Rows of the last `fetchUnsynced` batch (the drain's case) are found by their `seq` range through
   * the unsynced index; `checkpoint_id = ANY(...)` alone was planned as a scan of the whole table (200 ids looked cheaper
   * to filter than to probe), a cost per batch that grew with the table. Any other id (or one not found in its range)
   * is updated by id.
   */
  async markSynced(checkpointIds: readonly string[]): Promise<number> {
    if (checkpointIds.length === 0) return 0;
    const seqs = checkpointIds.map((id) => this.#handedOut.get(id));
    let rest = [...checkpointIds];
    let marked = 0;
    if (seqs.every((seq) => seq !== undefined)) {
      const numbers = seqs.map((seq) => BigInt(seq!));
      const low = numbers.reduce((a, b) => (b < a ? b : a));
      const high = numbers.reduce((a, b) => (b > a ? b : a));
      const result = await this.query<{ checkpoint_id: string }>(
        `UPDATE ${this.s}.checkpoints SET synced = TRUE
         WHERE seq >= $1::bigint AND seq <= $2::bigint AND NOT synced AND quarantine_reason IS NULL AND checkpoint_id = ANY($3::text[])
         RETURNING checkpoint_id`,
        [String(low), String(high), rest],
      );
      marked = result.rowCount ?? 0;
      if (marked === rest.length) return marked;
      // Already synced (a resend after a lost acknowledgement), quarantined, or no longer at that seq: by id.
      const done = new Set(result.rows.map((row) => row.checkpoint_id));
      rest = rest.filter((id) => !done.has(id));
    }
    const result = await this.query(`UPDATE ${this.s}.checkpoints SET synced = TRUE WHERE checkpoint_id = ANY($1::text[]) AND NOT synced`, [rest]);
    return marked + (result.rowCount ?? 0);
  }

  async fetchLocalOnly(limit: number, projectId: string, options: { since?: string | null; afterSequence?: number } = {}): Promise<UnsyncedCheckpoint[]> {
    // Rare (an explicit `platform push`): local-only rows are never indexed, so this scans in seq order.
    const result = await this.query<CheckpointRow & { sequence: string; project_id: string }>(
      `SELECT seq AS sequence, project_id, ${COLUMNS} FROM ${this.s}.checkpoints
       WHERE local_only AND quarantine_reason IS NULL AND project_id = $1 AND seq > $2::bigint
         AND ($3::timestamptz IS NULL OR created_at >= $3::timestamptz)
       ORDER BY seq ASC LIMIT $4`,
      [projectId, String(options.afterSequence ?? 0), options.since ?? null, listLimit(limit)],
    );
    const checkpoints = await this.toCheckpoints(result.rows);
    return result.rows.map((row, i) => ({ checkpoint: checkpoints[i]!, sequence: Number(row.sequence), project_id: row.project_id }));
  }

  /** Rows of the execution were queued or sent to the Platform (docs/adr/0054): its claims are arbitrated there. */
  async isReplicated(executionId: string): Promise<boolean> {
    const result = await this.query(`SELECT 1 FROM ${this.s}.checkpoints WHERE execution_id = $1 AND NOT local_only LIMIT 1`, [executionId]);
    return (result.rowCount ?? 0) > 0;
  }

  async markPushed(checkpointIds: readonly string[], rejected: Readonly<Record<string, string>> = {}): Promise<number> {
    const entries = Object.entries(rejected);
    const result = await this.query(
      `WITH pushed AS (UPDATE ${this.s}.checkpoints SET local_only = FALSE WHERE checkpoint_id = ANY($1::text[]) AND local_only RETURNING 1),
       refused AS (UPDATE ${this.s}.checkpoints AS c SET local_only = FALSE, quarantine_reason = r.reason
         FROM unnest($2::text[], $3::text[]) AS r(id, reason) WHERE c.checkpoint_id = r.id AND c.local_only RETURNING 1)
       SELECT ((SELECT count(*) FROM pushed) + (SELECT count(*) FROM refused))::int AS n`,
      [[...checkpointIds], entries.map(([id]) => id), entries.map(([, reason]) => reason)],
    );
    return (result.rows[0] as { n: number }).n;
  }

  async markQuarantined(reasons: Readonly<Record<string, string>>): Promise<number> {
    const entries = Object.entries(reasons);
    if (entries.length === 0) return 0;
    const result = await this.query(
      `UPDATE ${this.s}.checkpoints AS c SET synced = TRUE, quarantine_reason = r.reason
       FROM unnest($1::text[], $2::text[]) AS r(id, reason) WHERE c.checkpoint_id = r.id`,
      [entries.map(([id]) => id), entries.map(([, reason]) => reason)],
    );
    return result.rowCount ?? 0;
  }
  /**
   * Execution ids starting or ending with `fragment` (docs/adr/0060), sorted, at most `limit`. The prefix can use the
   * execution id index (a `C` collation database); the suffix scans the execution ids of the checkpoints table.
   */
  async matchExecutionIds(fragment: string, limit: number): Promise<string[]> {
    const { prefix, suffix } = idFragmentPatterns(fragment);
    const result = await this.query<{ execution_id: string }>(
      `SELECT DISTINCT execution_id FROM ${this.s}.checkpoints WHERE execution_id LIKE $1 OR execution_id LIKE $2 ORDER BY execution_id LIMIT $3`,
      [prefix, suffix, limit],
    );
    return result.rows.map((row) => row.execution_id);
  }

  async listQuarantined(options: { executionId?: string; limit?: number } = {}): Promise<QuarantinedRow[]> {
    const result = await this.query(
      `SELECT checkpoint_id, execution_id, node_id, step_type, created_at, quarantine_reason AS reason FROM ${this.s}.checkpoints
       WHERE quarantine_reason IS NOT NULL AND ($1::text IS NULL OR execution_id = $1) ORDER BY created_at, checkpoint_id LIMIT $2`,
      [options.executionId ?? null, options.limit ?? DEFAULT_LIST_LIMIT],
    );
    return result.rows as QuarantinedRow[];
  }

  /**
   * Home counts for the local UI: pending interrupts, and distinct executions whose latest row is failed or
   * interrupted (a failed terminal row counts as failed).
   */
  async executionCounts(): Promise<{ pending: number; failed: number }> {
    const result = await this.query<{ pending: number; failed: number }>(
      `SELECT (SELECT count(*) FROM ${this.s}.pending_interrupts)::int AS pending,
              (SELECT count(*) FROM (
                 SELECT status, run_status, ROW_NUMBER() OVER (PARTITION BY execution_id ORDER BY created_at DESC, seq DESC) AS rn
                 FROM ${this.s}.checkpoints) latest
               WHERE rn = 1 AND (status IN ('failed', 'interrupted') OR run_status = 'failed'))::int AS failed`,
      [],
    );
    return result.rows[0]!;
  }

  async close(): Promise<void> {
    if (this.ended) return;
    // A resume returns before its lease release has round-tripped (./lease.ts): let those finish first.
    await settleLeaseReleases(this);
    this.ended = true;
    await this.#poolLease.release();
  }

  /**
   * Before the first write: this process's row in the store's `processes` table (the trace family's, migrated here if
   * need be), whose id every checkpoint it writes carries (issue 38). Not part of `setup()`: provisioning the
   * checkpoint tables (`setup-checkpointer`) creates no others.
   */
  #writerReady(): Promise<void> {
    this.#registered ??= (async () => {
      await this.setup();
      try {
        await migrateTraceSchema(this.pool, this.schema);
        this.#processId = await registerProcess(this.pool, this.schema);
      } catch (error) {
        throw error instanceof StoreVersionError ? error : asStorageError(error, this.storeName);
      }
    })().catch((error: unknown) => {
      this.#registered = undefined;
      throw error;
    });
    return this.#registered;
  }

  private async migrate(): Promise<void> {
    // Current already (the usual start of a replica): no DDL, no lock (./store/pg-schema-version.ts).
    let recorded: number | null;
    try {
      recorded = await recordedVersion(this.pool, this.schema, 'schema_version');
    } catch (error) {
      throw asStorageError(error, this.storeName);
    }
    if (recorded === PG_LATEST_VERSION) return;
    if (recorded !== null && recorded > PG_LATEST_VERSION) throw new StoreVersionError(`Postgres schema "${this.schema}"`, recorded, PG_LATEST_VERSION);
    const client = await this.connect();
    let released = false;
    try {
      await client.query('BEGIN');
      await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`agentkit.setup.${this.schema}`]);
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${this.s}`);
      await client.query(`CREATE TABLE IF NOT EXISTS ${this.s}.schema_version (
        version INTEGER PRIMARY KEY, description TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())`);
      const found = (await client.query<{ v: number }>(`SELECT COALESCE(MAX(version), 0)::int AS v FROM ${this.s}.schema_version`)).rows[0]!.v;
      if (found > PG_LATEST_VERSION) throw new StoreVersionError(`Postgres schema "${this.schema}"`, found, PG_LATEST_VERSION);
      for (let version = found + 1; version <= PG_LATEST_VERSION; version++) {
        const migration = PG_MIGRATIONS[version - 1]!;
        await client.query(migration.sql(this.s));
        await client.query(`INSERT INTO ${this.s}.schema_version (version, description) VALUES ($1, $2)`, [version, migration.description]);
      }
      await client.query('COMMIT');
    } catch (error) {
      const broken = await client.query('ROLLBACK').then(
        () => undefined,
        (rollbackError: unknown) => rollbackError as Error,
      );
      client.release(broken);
      released = true;
      throw migrationPrivilegeError(error, 'durability tables', this.schema, recorded, PG_LATEST_VERSION) ?? asStorageError(error, this.storeName);
    } finally {
      if (!released) client.release();
    }
  }

  /** A pooled client; a refused or failed connection is a StorageUnavailableError. */
  private async connect(): Promise<pg.PoolClient> {
    try {
      return await this.pool.connect();
    } catch (error) {
      throw asStorageError(error, this.storeName);
    }
  }

  /** How errors name this store: the schema, never the server's address. */
  private get storeName(): string {
    return `the Postgres checkpointer (schema "${this.schema}")`;
  }

  private async query<R extends pg.QueryResultRow = pg.QueryResultRow>(sql: string | pg.QueryConfig, params?: unknown[]): Promise<pg.QueryResult<R>> {
    if (this.ended) throw new ChainCheckpointError(`the checkpointer on Postgres schema "${this.schema}" is closed`);
    await this.setup();
    try {
      return typeof sql === 'string' ? await this.pool.query<R>(sql, params) : await this.pool.query<R>(sql);
    } catch (error) {
      throw asStorageError(error, this.storeName);
    }
  }

  /**
   * The insert of `rows` stored as `states`, one statement, prepared (named) per shape. When a row's base is not among
   * `rows`, the statement inserts only while every such base exists (another process may have pruned or deleted it):
   * all rows or none, `rowCount` says which.
   */
  private insertQuery(rows: readonly Checkpoint[], states: readonly StoredState[], from: 'fence' | null = null): pg.QueryConfig {
    const params = rows.flatMap((row, i) => checkpointParams(row, states[i]!, this.#processId));
    let external: string[] | undefined;
    for (const state of states) {
      const base = state.deltaBase;
      if (base === null || external?.includes(base) || rows.some((r) => r.checkpoint_id === base)) continue;
      (external ??= []).push(base);
    }
    const shape = external ? `agentkit_cp_insert_delta_${rows.length}_${external.length}` : `agentkit_cp_insert_${rows.length}`;
    const name = from ? `${shape}_${from}` : shape;
    // The text of a shape never changes: built once (a prepared statement is then named by it alone).
    let text = this.#insertTexts.get(name);
    if (text === undefined) {
      text = insertText(this.s, rows.length, external?.length ?? 0, from);
      this.#insertTexts.set(name, text);
    }
    return { name, text, values: external ? [...params, ...external] : params };
  }

  /** `insertQuery` as a statement of its own; fenced: with the `fence` CTE in front (its parameters last). */
  private insertStatement(rows: readonly Checkpoint[], states: readonly StoredState[], fence: Fence | undefined): pg.QueryConfig {
    if (!fence) return this.insertQuery(rows, states);
    const insert = this.insertQuery(rows, states, 'fence');
    const executionId = rows[0]!.execution_id;
    if (rows.some((row) => row.execution_id !== executionId)) invalid('execution_id', 'must be the same for every row of a fenced write');
    const name = `agentkit_fenced_${insert.name}${fence.release ? '_release' : ''}`;
    let text = this.#insertTexts.get(name);
    if (text === undefined) {
      text = `WITH ${fenceCte(this.s, insert.values!.length + 1, fence.release)} ${insert.text}`;
      this.#insertTexts.set(name, text);
    }
    return { name, text, values: [...insert.values!, executionId, fence.owner, fence.generation] };
  }

  /** One statement, so a multi-row write is atomic without a transaction round trip. */
  private async insert(rows: Checkpoint[], fence?: Fence): Promise<void> {
    await this.#writerReady();
    try {
      // A state that is not JSON throws here (./stored-state.ts): nothing is written, and the rows are forgotten below.
      let states = rows.map((row) => this.#delta.encode(row));
      const result = await this.query(this.insertStatement(rows, states, fence));
      if (result.rowCount === 0) {
        // The lease is no longer the writer's (LeaseLost), or a base is gone: the same rows again, each execution's
        // first one as a full state.
        await this.refuseLost(rows[0]!.execution_id, fence);
        for (const row of rows) this.#delta.forget(row.execution_id);
        states = rows.map((row) => this.#delta.encode(row));
        if ((await this.query(this.insertStatement(rows, states, fence))).rowCount === 0) await this.refuseLost(rows[0]!.execution_id, fence);
      }
    } catch (error) {
      for (const row of rows) this.#delta.forget(row.execution_id);
      throw duplicate(error, rows.map((r) => r.checkpoint_id).join("', '"));
    }
  }

  /** Stored rows as Checkpoints with full states: the bases they need come in one recursive query. */
  private async toCheckpoints(rows: CheckpointRow[], client?: pg.PoolClient, cache?: ResolvedStateCache, chain?: ChainRow[]): Promise<Checkpoint[]> {
    const checkpoints = rows.map(toCheckpoint);
    rows.forEach((row, i) => {
      if (row.output_keys == null) return;
      // Filled in from the full state below (after the deltas are resolved).
      (checkpoints[i] as Checkpoint & { output_keys?: unknown }).output_keys = row.output_keys;
    });
    await this.resolveDeltas(rows, checkpoints, client, cache, chain);
    for (const checkpoint of checkpoints as Array<Checkpoint & { output_keys?: string }>) {
      if (checkpoint.output_keys === undefined) continue;
      checkpoint.node_output = outputFromState(checkpoint.state_snapshot, checkpoint.output_keys, checkpoint.checkpoint_id);
      delete checkpoint.output_keys;
    }
    return checkpoints;
  }

  /**
   * Replace delta states by full ones. The bases they need come in one recursive query, or, when the statement that
   * read `rows` read them too (`chain`: `withChain`, `chainOf`), from there.
   */
  private async resolveDeltas(
    rows: CheckpointRow[],
    checkpoints: Checkpoint[],
    client?: pg.PoolClient,
    cache?: ResolvedStateCache,
    chain?: ChainRow[],
  ): Promise<void> {
    if (!rows.some((row) => row.delta_base != null)) return;
    const stored: StoredRow[] = checkpoints.map((c, i) => storedRow({ ...rows[i]!, state_snapshot: c.state_snapshot }, c.checkpoint_id));
    const toStored = (row: ChainRow) => storedRow({ ...row, state_snapshot: decodePgJson(row.state_snapshot) }, row.checkpoint_id);
    const states = await resolveStates(
      stored,
      async (ids) => {
        if (chain) return chain.map(toStored);
        const run = <R extends pg.QueryResultRow>(sql: string, params: unknown[]) => (client ? client.query<R>(sql, params) : this.query<R>(sql, params));
        const result = await run<ChainRow>(
          `WITH RECURSIVE ${chainOf(this.s, `(SELECT unnest($1::text[]) AS delta_base)`)} SELECT ${CHAIN_COLUMNS} FROM chain`,
          [ids],
        );
        return result.rows.map(toStored);
      },
      cache,
    );
    for (const checkpoint of checkpoints) checkpoint.state_snapshot = states.get(checkpoint.checkpoint_id)!;
  }

  /** `fn` in a transaction on one pooled client: committed when it resolves, rolled back when it throws. */
  private async transaction<T>(fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    if (this.ended) throw new ChainCheckpointError(`the checkpointer on Postgres schema "${this.schema}" is closed`);
    await this.setup();
    const client = await this.connect();
    let released = false;
    try {
      await client.query('BEGIN');
      const value = await fn(client);
      await client.query('COMMIT');
      return value;
    } catch (error) {
      const broken = await client.query('ROLLBACK').then(
        () => undefined,
        (rollbackError: unknown) => rollbackError as Error,
      );
      client.release(broken);
      released = true;
      throw asStorageError(error, this.storeName);
    } finally {
      if (!released) client.release();
    }
  }
}

/**
 * The insert of `count` rows, `PARAMS_PER_ROW` parameters each. With `external` > 0 it inserts only while every one
 * of the `external` bases named by the parameters after the rows exists (another process may have pruned or deleted
 * it): all rows or none, `rowCount` says which. The rows are selected from the bases' own rows, one primary-key
 * probe each (`FROM checkpoints b0 WHERE b0.checkpoint_id = $n`): no base, no row. That is the cheapest form measured
 * (ADR 0032): `VALUES ... WHERE EXISTS (...)` spent a subquery scan and an init plan per statement, and a join
 * against unnest() of the bases got a generic plan scanning the table once the statement was prepared.
 */
function insertText(s: string, count: number, external: number, from: 'fence' | 'lease' | null = null, offset = 0): string {
  const row = (r: number) => {
    const p = (i: number) => `$${offset + r * PARAMS_PER_ROW + i}`;
    // Every parameter typed: inside a CTE (the first row of `acquireLease`) the target columns do not type them.
    return `${p(1)}::text, ${p(2)}::text, ${p(3)}::text, ${p(4)}::text, ${p(5)}::int, ${p(6)}::text, ${p(7)}::text, ${p(8)}::text, ${p(9)}::text,
        ${p(10)}::jsonb, ${p(11)}::jsonb, ${p(12)}::jsonb, ${p(13)}::int, ${p(14)}::jsonb, ${p(15)}::text, ${p(16)}::jsonb, ${p(17)}::text,
        ${p(18)}::timestamptz, ${p(19)}::text, ${p(20)}::text, ${p(21)}::text, ${p(22)}::bytea, ${p(23)}::text,
        ${p(24)}::boolean, ${p(25)}::boolean, ${p(26)}::text, ${p(27)}::int`;
  };
  const values = Array.from({ length: count }, (_, r) => `(${row(r)})`).join(', ');
  if (external === 0 && from === null) return `INSERT INTO ${s}.checkpoints (${INSERT_COLUMNS}) VALUES ${values}`;
  // `from`: a CTE of the enclosing statement (the fence, or the granted lease) whose one row lets the rows through.
  const sources = [...(from ? [from] : []), ...Array.from({ length: external }, (_, i) => `${s}.checkpoints b${i}`)].join(', ');
  const found = Array.from({ length: external }, (_, i) => `b${i}.checkpoint_id = $${offset + count * PARAMS_PER_ROW + 1 + i}`).join(' AND ');
  // One row: its values as the select list. Several: a VALUES list joined to the bases (each matches at most once).
  const selected = count === 1 ? `SELECT ${row(0)} FROM ${sources}` : `SELECT v.* FROM (VALUES ${values}) AS v, ${sources}`;
  return `INSERT INTO ${s}.checkpoints (${INSERT_COLUMNS}) ${selected}${found ? ` WHERE ${found}` : ''}`;
}

/** A selected row: jsonb columns arrive decoded by pg. */
type CheckpointRow = Record<string, unknown>;

/** JSON text for a jsonb parameter (null stays null), strings escaped (postgres-text.ts). */
function jsonParam(value: unknown): string | null {
  return value === null || value === undefined ? null : encodePgJsonText(JSON.stringify(value));
}

/** JSON columns serialised and escaped, `interrupt_reason` escaped as free text (./columns.ts `fieldParams`). */
const FIELD_PARAMS = fieldParams(jsonParam, encodePgString);

/** Parameters of one row, in `INSERT_COLUMNS` order; strings escaped for Postgres (NUL is refused by text and jsonb). */
function checkpointParams(row: Checkpoint, state: StoredState, processId: number | null): unknown[] {
  // A node output made of state keys is stored as those keys (./delta.ts `outputKeys`); a delta goes to state_delta,
  // or compressed to state_delta_z (./delta-compression.ts).
  const keys = outputKeys(row);
  const delta = state.deltaBase !== null;
  const params = FIELD_PARAMS.map((param) => param(row));
  params[STATE_PARAM] = delta ? '{}' : encodePgJsonText(state.text);
  params[OUTPUT_PARAM] = keys ? null : jsonParam(row.node_output);
  const form = delta ? storedDeltaForm(state.text) : { text: null, deflated: null };
  // Consent and project as the writer had them (docs/adr/0054): a local-only row is stored synced, off the outbox.
  const stamp = stampOf(row);
  params.push(
    state.deltaBase,
    keys && JSON.stringify(keys),
    form.text,
    form.deflated,
    row.trace_id ?? null,
    !stamp.queued,
    !stamp.queued,
    stamp.project,
    processId,
  );
  return params;
}

function toCheckpoint(row: CheckpointRow): Checkpoint {
  const checkpoint = decodeCheckpoint(row, (stored) => decodePgJson(stored));
  if (typeof checkpoint.interrupt_reason === 'string') checkpoint.interrupt_reason = decodePgString(checkpoint.interrupt_reason);
  return checkpoint;
}

/** A selected row as the delta resolver takes it: a delta row's state is its delta text, plain or compressed. */
function storedRow(row: Record<string, unknown>, checkpointId: string): StoredRow {
  const base = (row.delta_base as string | null | undefined) ?? null;
  if (base === null) return { checkpoint_id: checkpointId, delta_base: null, state_snapshot: row.state_snapshot };
  const text = deltaText(checkpointId, row.state_delta as string | null | undefined, byteaOf(row.state_delta_z as Buffer | string | null | undefined));
  if (text === null) throw new ChainCheckpointError(`checkpoint '${checkpointId}' cannot be read: it has a base but no delta`);
  return { checkpoint_id: checkpointId, delta_base: base, state_snapshot: JSON.parse(text) as unknown };
}

/** pg's own bytea parser: the server's text form inside json_agg / row_to_json is hex or escape (`bytea_output`). */
const parseBytea = pg.types.getTypeParser(pg.types.builtins.BYTEA, 'text') as (text: string) => Buffer;

/** A bytea column as bytes: pg decodes one selected directly; one inside JSON arrives as the server's text form. */
function byteaOf(value: Buffer | string | null | undefined): Buffer | null {
  return typeof value === 'string' ? parseBytea(value) : (value ?? null);
}

function fromPgPending(row: PendingInterrupt): PendingInterrupt {
  return { ...row, reason: decodePgString(row.reason), context: decodePgJson(row.context) };
}

/**
 * The insert of a request's key as a CTE of the lease's statement, from `$n` (caller, key, fingerprint, time to live
 * in ms): a row only when the lease was granted; a live record of the same caller and key fails the whole statement
 * on the primary key (keyTaken).
 */
function keyCte(s: string, n: number): string {
  return `ik AS (INSERT INTO ${s}.served_idempotency_keys (caller, idempotency_key, fingerprint, execution_id, created_at, expires_at)
    SELECT $${n}::text, $${n + 1}::text, $${n + 2}::text, $1::text, clock_timestamp(), clock_timestamp() + $${n + 3} * interval '1 millisecond' FROM lease)`;
}

function keyParams(key: IdempotencyKeyWrite): unknown[] {
  return [key.caller, key.key, key.fingerprint, key.ttlMs];
}

/** A unique violation on the key table is IdempotencyKeyTaken; anything else as it is. */
function keyTaken(error: unknown, executionId: string): unknown {
  return isUniqueViolation(error, 'served_idempotency_keys_pkey') ? new IdempotencyKeyTaken(executionId) : error;
}

function duplicate(error: unknown, ids: string): unknown {
  if (!(error instanceof IdempotencyKeyTaken) && isUniqueViolation(error)) {
    return new ChainCheckpointError(`checkpoint '${ids}' already exists`, { cause: error });
  }
  return error;
}
