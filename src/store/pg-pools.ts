/**
 * One Postgres pool per store per process (issue 38). Everything that reaches a Postgres store (checkpointers, the
 * trace writer, the trace readers) takes its connections from the pool this registry keeps for the store's URL, so a
 * served replica holds at most the spec's 10 connections to its store, not 10 per component.
 *
 * A pool is counted: each `acquirePgPool` is matched by one `release()`, and the pool ends when the last holder
 * releases it. The first holder's sizes make the pool (the spec's defaults, min 1 and max 10, unless it gives
 * others); a later holder asking for more connections raises the pool's maximum, never lowers it.
 */
import pg from 'pg';

export interface PoolSizes {
  /** Connections kept open when idle (default 1). */
  min?: number;
  /** Most connections open at once (default 10). */
  max?: number;
}

/** A counted hold on a shared pool. */
export interface PgPoolLease {
  readonly pool: pg.Pool;
  /** Give the hold back; the pool ends (its connections close) when no hold is left. Idempotent. */
  release(): Promise<void>;
}

interface Entry {
  pool: pg.Pool;
  holders: number;
}

const pools = new Map<string, Entry>();

/** The spec's pool defaults (PostgresCheckpointer: min 1, max 10). */
export const DEFAULT_POOL_SIZES = { min: 1, max: 10 } as const;

/**
 * A hold on the pool of the store at `url` (the driver's connection URL, password included) and `schema`, making the pool on first use. The
 * pool never throws on a dropped connection: an idle client's failure is dropped by the pool, a checked-out client's
 * reaches its caller through its query.
 */
export function acquirePgPool(url: string, schema: string, sizes: PoolSizes = {}): PgPoolLease {
  // Keyed by URL and schema, not URL alone: statements are prepared by name on each connection, and two schemas'
  // statements of one name (`agentkit_cp_last`) differ in text, which a shared connection would refuse.
  const key = `${url}#${schema}`;
  const min = sizes.min ?? DEFAULT_POOL_SIZES.min;
  const max = sizes.max ?? DEFAULT_POOL_SIZES.max;
  let entry = pools.get(key);
  if (!entry) {
    // allowExitOnIdle: idle connections never keep a process alive (a CLI command, a script that forgot to close).
    const pool = new pg.Pool({ connectionString: url, min, max, allowExitOnIdle: true });
    // A connection the server drops emits 'error' on its client. The pool listens while the client is idle (and
    // removes it); a checked-out client has no listener of the pool's, and an unhandled 'error' event would kill the
    // process. Every client gets one for its whole life: the failure reaches the caller through its query instead.
    pool.on('error', () => undefined);
    pool.on('connect', (client) => client.on('error', () => undefined));
    entry = { pool, holders: 0 };
    pools.set(key, entry);
  } else if (max > (entry.pool.options.max ?? DEFAULT_POOL_SIZES.max)) {
    entry.pool.options.max = max;
  }
  entry.holders++;
  const held = entry;
  let released = false;
  return {
    pool: held.pool,
    async release() {
      if (released) return;
      released = true;
      held.holders--;
      if (held.holders > 0) return;
      if (pools.get(key) === held) pools.delete(key);
      await held.pool.end();
    },
  };
}

/** How many distinct pools this process holds (tests check that one store means one pool). */
export function openPgPoolCount(): number {
  return pools.size;
}
