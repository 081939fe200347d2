/**
 * A table family's handle on a Postgres store (UI forks, annotations, ...): its quoted schema for SQL, the project
 * its rows are keyed by, and the store's pool with the family migrated before the first write (once per handle; a
 * failed migration is tried again on the next call). Reads of a schema the family never reached need not create it:
 * `readable()` answers null there.
 */
import type pg from 'pg';
import { migrateFamily, type PgFamily } from './pg-family-schema.js';
import { recordedVersion } from './pg-schema-version.js';
import type { Store } from './store-handle.js';

export class PgFamilyTables {
  /** How messages name the store (the URL with its password redacted). */
  readonly label: string;
  /** The schema, quoted for SQL. */
  readonly s: string;
  readonly #store: Store;
  readonly #family: PgFamily;
  #ready: Promise<void> | undefined;

  /** `store` is a Postgres store; `close()` gives it back. */
  constructor(
    store: Store,
    family: PgFamily,
    /** The project rows are keyed by ('' for a store of one project). */
    readonly project = '',
  ) {
    this.#store = store;
    this.#family = family;
    this.label = store.label;
    this.s = `"${store.schema}"`;
  }

  /** The pool, the family's tables migrated. */
  async writable(): Promise<pg.Pool> {
    const pool = this.#store.pool();
    this.#ready ??= migrateFamily(pool, this.#store.schema!, this.#family).then(
      () => undefined,
      (error: unknown) => {
        this.#ready = undefined;
        throw error;
      },
    );
    await this.#ready;
    return pool;
  }

  /** The pool when the family's tables exist, else null (a read then answers empty and creates nothing). */
  async readable(): Promise<pg.Pool | null> {
    const pool = this.#store.pool();
    if (this.#ready) return pool;
    return (await recordedVersion(pool, this.#store.schema!, this.#family.versionTable)) === null ? null : pool;
  }

  async close(): Promise<void> {
    await this.#store.close();
  }
}
