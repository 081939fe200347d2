/**
 * The prompt family on a Postgres store (issue 39): the PromptStore whose rows every process and host on the store
 * share. Tables come from ./pg-schema.ts (migrated on first use, or by `agentkit store migrate`). Connections come
 * from the store's shared pool (store/pg-pools.ts).
 *
 * A version number is decided inside one transaction that first makes sure the prompt's row exists (`INSERT ... ON
 * CONFLICT DO NOTHING`) and then locks it (`SELECT ... FOR UPDATE`): every writer of one prompt queues on that row
 * lock and reads the latest version committed by the one before it, so concurrent writers get distinct consecutive
 * numbers. Reads take no lock and cache nothing: a label moved by one process is what the next read of any other
 * process returns. Text goes through encodePgString (NUL-safe, exact round trip).
 */
import type pg from 'pg';
import { decodePgString, encodePgString } from '../../store/pg-text.js';
import { asStorageError } from '../../store/storage-errors.js';
import { openStore, type Store } from '../../store/store-handle.js';
import type { StoreRef } from '../../config/store-value.js';
import { utcNow } from '../../store/time.js';
import type { PromptVersionRecord } from '../prompt-version.js';
import { migratePromptSchema } from './pg-schema.js';
import { recordedVersion } from '../../store/pg-schema-version.js';
import { type AddVersionInput, type AddVersionResult, type FragmentLookup, type PromptStore, type PromptSummary, sameContent } from './types.js';
import { inPgTransaction } from '../../store/pg-transaction.js';

/** A TIMESTAMPTZ column as local.db's text: ISO-8601 UTC with microseconds. */
const iso = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
/** Byte order, as SQLite sorts text: a database collation (en_US, ...) would order names and labels differently. */
const BYTES = 'COLLATE "C"';

type Queryable = Pick<pg.PoolClient, 'query'>;

export interface PostgresPromptStoreOptions {
  /** The project the rows belong to ('' for a store of one project). */
  project?: string;
}

export class PostgresPromptStore implements PromptStore {
  readonly label: string;
  readonly #store: Store;
  readonly #ownsStore: boolean;
  readonly #s: string;
  readonly #project: string;
  #ready: Promise<unknown> | undefined;
  #closed = false;

  /**
   * The prompt tables of a Postgres store: a `Store` handle (left open by `close()`: its owner closes it) or a parsed
   * Postgres store value (this store opens and closes its own handle).
   */
  constructor(store: Store | StoreRef, options: PostgresPromptStoreOptions = {}) {
    this.#ownsStore = !('pool' in store);
    this.#store = 'pool' in store ? store : openStore(store);
    if (this.#store.engine !== 'postgres') throw new Error(`PostgresPromptStore needs a Postgres store, got ${this.#store.label}`);
    this.label = this.#store.label;
    this.#s = `"${this.#store.schema!}"`;
    this.#project = options.project ?? '';
  }

  async addVersion(input: AddVersionInput): Promise<AddVersionResult> {
    const s = this.#s;
    const p = this.#project;
    return this.#transaction(async (client) => {
      const now = utcNow();
      const tags = input.tags ? encodePgString(JSON.stringify(input.tags)) : null;
      const description = input.description !== undefined ? encodePgString(input.description) : null;
      await client.query(
        `INSERT INTO ${s}.prompts (project, name, description, tags, latest_version, created_at, updated_at)
         VALUES ($1, $2, COALESCE($3, ''), COALESCE($4, '[]'), 0, $5::timestamptz, $5::timestamptz) ON CONFLICT (project, name) DO NOTHING`,
        [p, input.name, description, tags, now],
      );
      const head = (
        await client.query<{ latest_version: number }>(`SELECT latest_version FROM ${s}.prompts WHERE project = $1 AND name = $2 FOR UPDATE`, [p, input.name])
      ).rows[0]!;
      const fragments = await this.#fragments(client);
      const content = input.content((name) => fragments.get(name));
      let version = head.latest_version;
      const latest =
        version > 0
          ? (
              await client.query<{ template: string; variables: string; fragments: string; metadata: string }>(
                `SELECT template, variables, fragments, metadata FROM ${s}.prompt_versions WHERE project = $1 AND name = $2 AND version = $3`,
                [p, input.name, version],
              )
            ).rows[0]
          : undefined;
      const created = !(
        latest &&
        sameContent(
          {
            template: decodePgString(latest.template),
            variables: decodePgString(latest.variables),
            fragments: decodePgString(latest.fragments),
            metadata: decodePgString(latest.metadata),
          },
          content,
        )
      );
      if (created) {
        version += 1;
        await client.query(
          `UPDATE ${s}.prompts SET latest_version = $3, updated_at = $4::timestamptz, description = COALESCE($5, description), tags = COALESCE($6, tags)
           WHERE project = $1 AND name = $2`,
          [p, input.name, version, now, description, tags],
        );
        await client.query(
          `INSERT INTO ${s}.prompt_versions (project, name, version, template, variables, fragments, metadata, created_at, created_by)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8::timestamptz, $9)`,
          [
            p,
            input.name,
            version,
            encodePgString(content.template),
            encodePgString(JSON.stringify(content.variables)),
            encodePgString(JSON.stringify(content.fragments)),
            encodePgString(JSON.stringify(content.metadata)),
            now,
            input.createdBy === null ? null : encodePgString(input.createdBy),
          ],
        );
      }
      for (const label of input.labels) await this.#putLabel(client, input.name, label, version, now);
      return { record: (await this.#readVersion(client, input.name, version))!, created };
    });
  }

  async latestVersion(name: string): Promise<number | undefined> {
    const pool = await this.#readPool();
    if (!pool) return undefined;
    const row = (
      await pool.query<{ latest_version: number }>(`SELECT latest_version FROM ${this.#s}.prompts WHERE project = $1 AND name = $2`, [this.#project, name])
    ).rows[0];
    return row?.latest_version;
  }

  async versionNumbers(name: string): Promise<number[]> {
    const pool = await this.#readPool();
    if (!pool) return [];
    const result = await pool.query<{ version: number }>(`SELECT version FROM ${this.#s}.prompt_versions WHERE project = $1 AND name = $2 ORDER BY version`, [
      this.#project,
      name,
    ]);
    return result.rows.map((r) => r.version);
  }

  async readVersion(name: string, version: number): Promise<PromptVersionRecord | undefined> {
    const pool = await this.#readPool();
    return pool ? this.#readVersion(pool, name, version) : undefined;
  }

  async labelTarget(name: string, label: string): Promise<number | undefined> {
    const pool = await this.#readPool();
    if (!pool) return undefined;
    const row = (
      await pool.query<{ version: number }>(`SELECT version FROM ${this.#s}.prompt_labels WHERE project = $1 AND name = $2 AND label = $3`, [
        this.#project,
        name,
        label,
      ])
    ).rows[0];
    return row?.version;
  }

  async labelNames(name: string): Promise<string[]> {
    const pool = await this.#readPool();
    if (!pool) return [];
    const result = await pool.query<{ label: string }>(`SELECT label FROM ${this.#s}.prompt_labels WHERE project = $1 AND name = $2 ORDER BY label ${BYTES}`, [
      this.#project,
      name,
    ]);
    return result.rows.map((r) => r.label);
  }

  async list(): Promise<PromptSummary[]> {
    const pool = await this.#readPool();
    if (!pool) return [];
    const s = this.#s;
    const prompts = await pool.query<{ name: string; description: string; tags: string; latest_version: number; updated_at: string; versions: number }>(
      `SELECT p.name, p.description, p.tags, p.latest_version, ${iso('p.updated_at')} AS updated_at,
              (SELECT count(*)::int FROM ${s}.prompt_versions v WHERE v.project = p.project AND v.name = p.name) AS versions
       FROM ${s}.prompts p WHERE p.project = $1 ORDER BY p.name ${BYTES}`,
      [this.#project],
    );
    const labels = await pool.query<{ name: string; label: string; version: number }>(
      `SELECT name, label, version FROM ${s}.prompt_labels WHERE project = $1 ORDER BY name ${BYTES}, label ${BYTES}`,
      [this.#project],
    );
    return prompts.rows.map((p) => ({
      name: p.name,
      description: decodePgString(p.description),
      tags: JSON.parse(decodePgString(p.tags)) as string[],
      latest_version: p.latest_version,
      versions: p.versions,
      labels: Object.fromEntries(labels.rows.filter((l) => l.name === p.name).map((l) => [l.label, l.version])),
      updated_at: p.updated_at,
    }));
  }

  async setLabel(name: string, label: string, version: number): Promise<{ before: number | null } | undefined> {
    return this.#transaction(async (client) => {
      const exists = await client.query(`SELECT 1 FROM ${this.#s}.prompt_versions WHERE project = $1 AND name = $2 AND version = $3`, [
        this.#project,
        name,
        version,
      ]);
      if ((exists.rowCount ?? 0) === 0) return undefined;
      // The label's row is locked by the upsert below; reading it first with FOR UPDATE makes "before" the version it
      // pointed at just before this move, even when two moves race.
      const before = (
        await client.query<{ version: number }>(`SELECT version FROM ${this.#s}.prompt_labels WHERE project = $1 AND name = $2 AND label = $3 FOR UPDATE`, [
          this.#project,
          name,
          label,
        ])
      ).rows[0];
      await this.#putLabel(client, name, label, version, utcNow());
      return { before: before?.version ?? null };
    });
  }

  async removeLabel(name: string, label: string): Promise<boolean> {
    const pool = await this.#pool();
    const result = await pool.query(`DELETE FROM ${this.#s}.prompt_labels WHERE project = $1 AND name = $2 AND label = $3`, [this.#project, name, label]);
    return (result.rowCount ?? 0) > 0;
  }

  async putFragment(name: string, content: string, check: (fragment: FragmentLookup) => void): Promise<void> {
    await this.#transaction(async (client) => {
      // Serializes fragment writers of the project, so a cycle check sees the fragments as they are when it writes.
      await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`agentkit.prompt_fragments.${this.#store.schema!}.${this.#project}`]);
      const fragments = await this.#fragments(client);
      check((other) => fragments.get(other));
      const now = utcNow();
      await client.query(
        `INSERT INTO ${this.#s}.prompt_fragments (project, name, content, created_at, updated_at) VALUES ($1, $2, $3, $4::timestamptz, $4::timestamptz)
         ON CONFLICT (project, name) DO UPDATE SET content = excluded.content, updated_at = excluded.updated_at`,
        [this.#project, name, encodePgString(content), now],
      );
    });
  }

  async fragment(name: string): Promise<string | undefined> {
    const pool = await this.#readPool();
    if (!pool) return undefined;
    const row = (
      await pool.query<{ content: string }>(`SELECT content FROM ${this.#s}.prompt_fragments WHERE project = $1 AND name = $2`, [this.#project, name])
    ).rows[0];
    return row === undefined ? undefined : decodePgString(row.content);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#ownsStore) await this.#store.close();
  }

  /** The pool, with the prompt tables migrated (once per handle; a failed migration is retried by the next call). */
  async #migrated(): Promise<pg.Pool> {
    if (this.#closed) throw new Error(`the prompt store ${this.label} is closed`);
    const pool = this.#store.pool();
    this.#ready ??= migratePromptSchema(pool, this.#store.schema!).catch((error: unknown) => {
      this.#ready = undefined;
      throw error;
    });
    try {
      await this.#ready;
    } catch (error) {
      throw asStorageError(error, this.label);
    }
    return pool;
  }

  /**
   * For reads: the pool's `query`, or undefined when the schema has no prompt tables yet (nothing registered: a
   * read answers empty and creates nothing, as reading a missing SQLite file does). Not remembered: the next read
   * looks again, so tables another process creates are seen.
   */
  async #readPool(): Promise<Queryable | undefined> {
    if (this.#ready === undefined) {
      if (this.#closed) throw new Error(`the prompt store ${this.label} is closed`);
      const recorded = await recordedVersion(this.#store.pool(), this.#store.schema!, 'prompt_schema_version').catch((error: unknown) => {
        throw asStorageError(error, this.label);
      });
      if (recorded === null) return undefined;
    }
    return this.#pool();
  }

  /** The pool's `query`, a lost or refused connection surfacing as one StorageUnavailableError naming the store (redacted). */
  async #pool(): Promise<Queryable> {
    const pool = await this.#migrated();
    return {
      query: ((text: string, values?: unknown[]) =>
        pool.query(text, values).catch((error: unknown) => {
          throw asStorageError(error, this.label);
        })) as Queryable['query'],
    };
  }

  /** Run `fn` in one transaction on one pooled connection; rolled back when it throws. */
  async #transaction<T>(fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const pool = await this.#migrated();
    try {
      return await inPgTransaction(pool, fn);
    } catch (error) {
      throw asStorageError(error, this.label);
    }
  }

  async #fragments(client: Queryable): Promise<Map<string, string>> {
    const rows = await client.query<{ name: string; content: string }>(`SELECT name, content FROM ${this.#s}.prompt_fragments WHERE project = $1`, [
      this.#project,
    ]);
    return new Map(rows.rows.map((r) => [r.name, decodePgString(r.content)]));
  }

  async #putLabel(client: Queryable, name: string, label: string, version: number, now: string): Promise<void> {
    await client.query(
      `INSERT INTO ${this.#s}.prompt_labels (project, name, label, version, updated_at) VALUES ($1, $2, $3, $4, $5::timestamptz)
       ON CONFLICT (project, name, label) DO UPDATE SET version = excluded.version, updated_at = excluded.updated_at`,
      [this.#project, name, label, version, now],
    );
  }

  async #readVersion(client: Queryable, name: string, version: number): Promise<PromptVersionRecord | undefined> {
    const s = this.#s;
    const row = (
      await client.query<{
        name: string;
        version: number;
        template: string;
        variables: string;
        fragments: string;
        metadata: string;
        created_at: string;
        created_by: string | null;
        origin: string;
        description: string;
        tags: string;
      }>(
        `SELECT v.name, v.version, v.template, v.variables, v.fragments, v.metadata, ${iso('v.created_at')} AS created_at, v.created_by, v.origin,
                p.description, p.tags
         FROM ${s}.prompt_versions v JOIN ${s}.prompts p ON p.project = v.project AND p.name = v.name
         WHERE v.project = $1 AND v.name = $2 AND v.version = $3`,
        [this.#project, name, version],
      )
    ).rows[0];
    if (!row) return undefined;
    const labels = await client.query<{ label: string }>(
      `SELECT label FROM ${s}.prompt_labels WHERE project = $1 AND name = $2 AND version = $3 ORDER BY label ${BYTES}`,
      [this.#project, name, version],
    );
    return {
      name: row.name,
      version: row.version,
      template: decodePgString(row.template),
      variables: JSON.parse(decodePgString(row.variables)) as string[],
      fragments: JSON.parse(decodePgString(row.fragments)) as Record<string, string>,
      metadata: JSON.parse(decodePgString(row.metadata)) as Record<string, unknown>,
      description: decodePgString(row.description),
      tags: JSON.parse(decodePgString(row.tags)) as string[],
      labels: labels.rows.map((r) => r.label),
      created_at: row.created_at,
      created_by: row.created_by === null ? null : decodePgString(row.created_by),
      origin: row.origin,
    };
  }
}
