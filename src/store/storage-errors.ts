/**
 * Storage outages as one error: a database that refuses connections, drops one mid-query (an administrator's
 * `pg_terminate_backend`, a failover, a restart) or is shutting down surfaces as `StorageUnavailableError`
 * (`storage_unavailable`, HTTP 503), whose message says what happened without the server's address, so a served
 * agent can answer "retry later" instead of a 500 that leaks `connect ECONNREFUSED 10.0.0.5:5432`.
 */
import { AgentkitError } from '../errors.js';

/** The storage backend is unreachable or lost the connection; the operation did not complete. Retry later. */
export class StorageUnavailableError extends AgentkitError {
  constructor(message: string, options?: ErrorOptions) {
    super('storage_unavailable', message, options);
  }
}

/** SQLSTATE classes and codes of a lost or refused connection (08: connection exception; 57P0x: shutdown, crash). */
const LOST_SQLSTATE = /^(08|57P0[1-4]|53300)/;
/** Node socket errors of an unreachable or dropped server. */
const LOST_ERRNO = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
/** node-postgres' own messages for a connection that died (they carry no code). */
const LOST_MESSAGE =
  /Connection terminated|connection error and is not queryable|Client was closed|timeout exceeded when trying to connect|Connection terminated due to connection timeout/i;

/** What kind of outage `error` is, for the message; null when it is not a connection failure. */
export function outageReason(error: unknown): string | null {
  const e = error as { code?: unknown; message?: unknown } | null;
  const code = typeof e?.code === 'string' ? e.code : '';
  const message = typeof e?.message === 'string' ? e.message : '';
  if (code === '57P01') return 'the server terminated the connection (administrator command)';
  if (code === '57P02' || code === '57P03' || code === '57P04') return 'the server is shutting down or starting up';
  if (code === '53300') return 'the server has no free connection slots';
  if (LOST_SQLSTATE.test(code)) return 'the connection failed';
  if (code === 'ECONNREFUSED') return 'the server refused the connection';
  if (LOST_ERRNO.has(code)) return `the connection failed (${code})`;
  if (LOST_MESSAGE.test(message)) return 'the connection was lost';
  return null;
}

/** `error` as a StorageUnavailableError when it is a connection failure (the original kept as `cause`), else as is. */
export function asStorageError(error: unknown, store: string): unknown {
  if (error instanceof StorageUnavailableError) return error;
  const reason = outageReason(error);
  return reason === null ? error : new StorageUnavailableError(`${store} is unavailable: ${reason}; retry later`, { cause: error });
}

/** The StorageUnavailableError in `error`'s cause chain, if any (runs wrap what their checkpointer threw). */
export function findStorageError(error: unknown): StorageUnavailableError | null {
  for (let current = error, depth = 0; current && depth < 10; current = (current as { cause?: unknown }).cause, depth++) {
    if (current instanceof StorageUnavailableError) return current;
    if ((current as { code?: unknown }).code === 'storage_unavailable') return current as StorageUnavailableError;
  }
  return null;
}
