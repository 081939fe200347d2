/** Forks in a local.db file (`ui_forks`, local.db v39). Each call opens, uses and closes the store, as favorites do. */
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

  async close(): Promise<void> {}
}
