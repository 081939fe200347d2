/**
 * `openStore(value)`: the one handle on a store named by one value (a file path or a `postgres://` URL,
 * config/store-value.ts). Checkpointers, the trace store and the readers accept it, so a program names its store once
 * and every part of agentkit uses the same one. Opening connects to nothing: a SQLite file is opened by each user as
 * before; a Postgres store's pool (shared per process, ./pg-pools.ts) is made on first use.
 */
import type pg from 'pg';
import { localStore, type Where } from '../config/paths.js';
import { parseStoreValue, storeKey, storeLabel, type StoreRef } from '../config/store-value.js';
import { acquirePgPool, type PgPoolLease, type PoolSizes } from './pg-pools.js';

export interface OpenStoreOptions extends Where, PoolSizes {}

/** A store, opened. Close it when done (its Postgres pool ends when its last holder in the process closes). */
export class Store {
  /** What the value names: the file, or the server URL and schema. Holds the password, if any: never print it. */
  readonly ref: StoreRef;
  /** How messages name the store: the file, or the URL with its password redacted. */
  readonly label: string;
  readonly #sizes: PoolSizes;
  #lease: PgPoolLease | undefined;
  #closed = false;

  constructor(ref: StoreRef, sizes: PoolSizes = {}) {
    this.ref = ref;
    this.label = storeLabel(ref);
    this.#sizes = sizes;
  }

  get engine(): StoreRef['engine'] {
    return this.ref.engine;
  }

  /** Same for every handle on the same store in this process (holds the password: never print it). */
  get key(): string {
    return storeKey(this.ref);
  }

  /** The SQLite file; undefined for a Postgres store. */
  get path(): string | undefined {
    return this.ref.engine === 'sqlite' ? this.ref.path : undefined;
  }

  /** The Postgres schema; undefined for a SQLite store. */
  get schema(): string | undefined {
    return this.ref.engine === 'postgres' ? this.ref.schema : undefined;
  }

  /** The store's shared pool (made on first use). Throws for a SQLite store or after `close()`. */
  pool(): pg.Pool {
    if (this.ref.engine !== 'postgres') throw new Error(`the store ${this.label} is a SQLite file: it has no Postgres pool`);
    if (this.#closed) throw new Error(`the store ${this.label} is closed`);
    this.#lease ??= acquirePgPool(this.ref.url, this.ref.schema, this.#sizes);
    return this.#lease.pool;
  }

  /** Release this handle's hold on the pool. Idempotent. */
  async close(): Promise<void> {
    this.#closed = true;
    const lease = this.#lease;
    this.#lease = undefined;
    await lease?.release();
  }
}

/**
 * Open the store `value` names: a file path (resolved against `cwd`) or a `postgres://...?schema=<name>` URL; with no
 * value, the configured one (`AGENTKIT_LOCAL_DB`, else `./.agentkit/local.db`). Throws ConfigError for a value that
 * names no store, StoreSchemaNameError for a bad schema; messages show the URL redacted. Connects to nothing.
 */
export function openStore(value?: string | StoreRef, options: OpenStoreOptions = {}): Store {
  const sizes: PoolSizes = { min: options.min, max: options.max };
  if (value === undefined) return new Store(localStore(options), sizes);
  return new Store(typeof value === 'string' ? parseStoreValue(value, options.cwd ?? process.cwd()) : value, sizes);
}
