/**
 * What the SQLite checkpointer's commit thread (sqlite-commit-thread.ts) and its body (sqlite-commit-worker.ts)
 * exchange: the rows of a batch, the statements the thread prepares, the codes of refused batches and the messages.
 */

/** One row of a batch: the execution whose key is made first (null: it has one), and the insert's parameters. */
export interface CommitRow {
  ensure: string | null;
  params: unknown[];
  /** After this row, free this lease (execution id, owner, generation): the run's last write (docs/adr/0015). */
  release?: [string, string, number] | null;
}

/** The statements the thread prepares (the checkpointer's own SQL text, so it lives in one place). */
export interface CommitStatements {
  insert: string;
  ensureExecution: string;
  /** Frees a lease: `(execution_id, owner, generation)`. */
  release: string;
  /** The error message with which `insert` refuses a delta row whose base is gone (code SQLITE_CONSTRAINT_NOTNULL). */
  baseGoneMessage: string;
}

/** The code of a batch refused because a row's delta base is gone: the caller writes it again as a full snapshot. */
export const BASE_GONE = 'AGENTKIT_BASE_GONE';
/** The code of a batch refused because one sent before it failed (see `CommitThread.resume`). */
export const HALTED = 'AGENTKIT_HALTED';

/** What the thread is given in `workerData`. */
export interface CommitWorkerData {
  file: string;
  sql: CommitStatements;
  /** The store's busy timeout, for the last wait on a locked store. */
  busyTimeoutMs: number;
  /** How long the thread polls a locked store before it waits with the busy timeout. */
  lockWaitMs: number;
  /** The connection's automatic checkpoint threshold (WAL frames). */
  checkpointFrames: number;
  /** The process's write-priority counters (../store/write-priority.ts). */
  priority: SharedArrayBuffer;
  /** One word: 1 while the thread counts itself as a waiting commit. */
  waiting: SharedArrayBuffer;
}

/** A batch to commit. */
export interface CommitBatch {
  id: number;
  rows: CommitRow[];
}

/** Messages to the thread: a batch, or a control word. */
export type CommitRequest = CommitBatch | 'resume' | 'stop';

/** Messages from the thread: `ready` once its statements are prepared, then one reply per batch. */
export type CommitReply = 'ready' | { id: number; ok: true } | { id: number; ok: false; code?: string; message: string };
