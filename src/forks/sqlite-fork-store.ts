/** Forks in a local.db file (`ui_forks`, local.db v39). Each call opens, uses and closes the store, as favorites do. */
import { existsSync } from 'node:fs';
import { openLocalStore } from '../store/open.js';
import { utcNow } from '../store/time.js';
import { fromRow, type ForkRow } from './rows.js';
import type { ForkStore, StoredFork } from './types.js';

export class SqliteForkStore implements ForkStore {
  readonly label: string;

  constructor(readonly path: string) {
    this.label = path;
  }

  async create(fork: Pick<StoredFork, 'fork_id' | 'trace_id' | 'step' | 'modifications'>): Promise<StoredFork> {
    const at = utcNow();
    const db = openLocalStore(this.path);
    try {
      db.prepare('INSERT INTO ui_forks (fork_id, trace_id, step, modifications, rerun, created_at, updated_at) VALUES (?, ?, ?, ?, NULL, ?, ?)').run(
        fork.fork_id,
        fork.trace_id,
        fork.step,
        JSON.stringify(fork.modifications),
        at,
        at,
      );
    } finally {
      db.close();
    }
    return { ...fork, rerun: null, created_at: at, updated_at: at };
  }

  async get(forkId: string): Promise<StoredFork | null> {
    const db = openLocalStore(this.path);
    try {
      const row = db.prepare('SELECT * FROM ui_forks WHERE fork_id = ?').get(forkId) as ForkRow | undefined;
      return row ? fromRow(row) : null;
    } finally {
      db.close();
    }
  }

  async update(forkId: string, changes: { modifications?: StoredFork['modifications']; rerun?: StoredFork['rerun'] }): Promise<StoredFork | null> {
    const db = openLocalStore(this.path);
    try {
      const row = db
        .prepare(
          `UPDATE ui_forks SET modifications = coalesce(?, modifications), rerun = CASE WHEN ? THEN ? ELSE rerun END, updated_at = ?
           WHERE fork_id = ? RETURNING *`,
        )
        .get(
          changes.modifications === undefined ? null : JSON.stringify(changes.modifications),
          changes.rerun === undefined ? 0 : 1,
          changes.rerun == null ? null : JSON.stringify(changes.rerun),
          utcNow(),
          forkId,
        ) as ForkRow | undefined;
      return row ? fromRow(row) : null;
    } finally {
      db.close();
    }
  }

  async all(): Promise<StoredFork[]> {
    if (!existsSync(this.path)) return [];
    const db = openLocalStore(this.path, { readonly: true });
    try {
      return (db.prepare('SELECT * FROM ui_forks ORDER BY created_at, fork_id').all() as ForkRow[]).map(fromRow);
    } finally {
      db.close();
    }
  }

  async importRows(forks: readonly StoredFork[]): Promise<number> {
    const db = openLocalStore(this.path);
    try {
      const insert = db.prepare(
        `INSERT INTO ui_forks (fork_id, trace_id, step, modifications, rerun, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (fork_id) DO NOTHING`,
      );
      return db.transaction(() =>
        forks.reduce(
          (added, f) =>
            added +
            insert.run(
              f.fork_id,
              f.trace_id,
              f.step,
              JSON.stringify(f.modifications),
              f.rerun === null ? null : JSON.stringify(f.rerun),
              f.created_at,
              f.updated_at,
            ).changes,
          0,
        ),
      )();
    } finally {
      db.close();
    }
  }

  async close(): Promise<void> {}
}
