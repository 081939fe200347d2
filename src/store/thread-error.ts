/**
 * One line of text for what a worker thread's `error` event carries, registered secrets masked (the text ends up in
 * process warnings and in the reasons callers get). An uncaught exception reaches the parent serialised, and one that
 * is not a plain `Error` may arrive as a bare object: better-sqlite3's `SqliteError` comes as `{ code }` with no
 * `message` (Node 20). Listeners that read `error.message` as a string then threw a TypeError of their own from the
 * event, which crashed the process instead of the fallback the listener was there to start.
 */
import { redactText } from '../config/redact.js';

export function threadErrorText(error: unknown): string {
  return redactText(firstLine(error));
}

function firstLine(error: unknown): string {
  if (error !== null && typeof error === 'object') {
    const { message, code } = error as { message?: unknown; code?: unknown };
    if (typeof message === 'string' && message !== '') return message.split('\n')[0]!;
    if (typeof code === 'string' || typeof code === 'number') return `error code ${code}`;
  }
  return String(error).split('\n')[0]!;
}
