/**
 * The commit thread's body (contract in sqlite-commit-thread.ts): its own connection to the store, the checkpointer's
 * two statements prepared once, and each batch committed in one IMMEDIATE transaction (together with the batches
 * that queued meanwhile). A locked store is polled here, every millisecond and woken early by span writers that end
 * their transactions for it, then waited for once with the store's busy timeout. After a failed batch the thread is
 * halted until `resume`.
 */
import Database from 'better-sqlite3';
import { parentPort, receiveMessageOnPort, workerData } from 'node:worker_threads';
import { SPAN_YIELDS, WAITING_COMMITS } from '../store/write-priority.js';
import { BASE_GONE, HALTED, type CommitBatch, type CommitReply, type CommitRequest, type CommitWorkerData } from './sqlite-commit-protocol.js';

const data = workerData as CommitWorkerData;
const port = parentPort!;
const db = new Database(data.file, { fileMustExist: true });
db.pragma('busy_timeout = 0');
db.pragma('synchronous = NORMAL');
db.pragma('foreign_keys = ON');
db.pragma(`wal_autocheckpoint = ${data.checkpointFrames}`);
const insert = db.prepare(data.sql.insert);
const ensure = db.prepare(data.sql.ensureExecution);
const release = db.prepare(data.sql.release);
const priority = new Int32Array(data.priority);
// Set while this thread is counted as a waiting commit, so the caller can count it out if the thread dies meanwhile.
const waiting = new Int32Array(data.waiting);

/** A refusal as it travels back: SQLite's code (or ours) and message. */
interface Refusal {
  code?: unknown;
  message?: unknown;
}

function write(batches: CommitBatch[]): void {
  for (const batch of batches) {
    for (const row of batch.rows) {
      if (row.ensure !== null) ensure.run(row.ensure);
      try {
        insert.run(row.params);
        if (row.release) release.run(...row.release);
      } catch (error) {
        const refused = error as Refusal;
        if (refused.code === 'SQLITE_CONSTRAINT_NOTNULL' && refused.message === data.sql.baseGoneMessage) {
          throw Object.assign(new Error('the delta base of a row is gone'), { code: BASE_GONE });
        }
        throw error;
      }
    }
  }
}

const inTransaction = db.transaction(write).immediate;
const isBusy = (error: unknown) => String((error as Refusal | null)?.code).startsWith('SQLITE_BUSY');
let halted = false;

function reply(batches: CommitBatch[], error?: Refusal): void {
  for (const batch of batches) {
    const message: CommitReply =
      error === undefined
        ? { id: batch.id, ok: true }
        : { id: batch.id, ok: false, ...(error.code !== undefined ? { code: String(error.code) } : {}), message: String(error.message) };
    port.postMessage(message);
  }
}

/** Commit the batches in one transaction; while the lock is taken, wait on this thread (see the module comment). */
function commit(batches: CommitBatch[]): void {
  const started = Date.now();
  let blocking = false;
  let wanted = false;
  try {
    for (;;) {
      const seen = Atomics.load(priority, SPAN_YIELDS);
      try {
        if (blocking) db.pragma(`busy_timeout = ${data.busyTimeoutMs}`);
        // One row that makes no key needs no transaction of its own: one autocommitted statement.
        if (batches.length === 1 && batches[0]!.rows.length === 1 && batches[0]!.rows[0]!.ensure === null && !batches[0]!.rows[0]!.release) write(batches);
        else inTransaction(batches);
        reply(batches);
        return;
      } catch (error) {
        if (blocking || !isBusy(error)) {
          halted = true;
          reply(batches, (error as Refusal | null) ?? {});
          return;
        }
      } finally {
        if (blocking) db.pragma('busy_timeout = 0');
      }
      if (!wanted) {
        Atomics.store(waiting, 0, 1);
        Atomics.add(priority, WAITING_COMMITS, 1);
        wanted = true;
      }
      // Woken as soon as a span writer ends its transaction for this commit; polled every millisecond otherwise.
      Atomics.wait(priority, SPAN_YIELDS, seen, 1);
      blocking = Date.now() - started >= data.lockWaitMs;
    }
  } finally {
    if (wanted && Atomics.exchange(waiting, 0, 0) === 1) {
      Atomics.sub(priority, WAITING_COMMITS, 1);
      Atomics.notify(priority, WAITING_COMMITS);
    }
  }
}

/** Handle one message (and the batches queued behind it); false once stopped. */
function handle(message: CommitRequest): boolean {
  if (message === 'stop') {
    db.close();
    port.close();
    return false;
  }
  if (message === 'resume') {
    halted = false;
    return true;
  }
  // Batches sent meanwhile join this one (one transaction), up to the next control message.
  const batches = [message];
  let control: 'resume' | 'stop' | undefined;
  for (let next = receiveMessageOnPort(port); next !== undefined; next = receiveMessageOnPort(port)) {
    const queued = next.message as CommitRequest;
    if (typeof queued === 'string') {
      control = queued;
      break;
    }
    batches.push(queued);
  }
  if (halted) reply(batches, { code: HALTED, message: 'a batch before this one failed' });
  else commit(batches);
  return control === undefined || handle(control);
}

port.on('message', handle);
port.postMessage('ready' satisfies CommitReply);
