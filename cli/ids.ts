/**
 * The ids a person types (issue 49, docs/adr/0060): wherever a command reads a trace id or an execution id, the whole
 * id works, and so does a unique prefix or suffix of at least 8 characters. An exact id always wins; an ambiguous
 * fragment is a usage error (exit 2) listing the candidates; a fragment matching nothing keeps the command's own
 * not-found error.
 */
import { UsageError } from 'clipanion';
import type { Checkpointer } from '../src/durability/checkpointer.js';
import { matchExecutionIds } from '../src/durability/execution-ids.js';
import { NotFoundError } from '../src/errors.js';
import { isShortIdCandidate, MAX_ID_CANDIDATES } from '../src/ids/short-id.js';
import type { TraceStore } from '../src/tracing/trace-store.js';

/** What `--help` says about the ids a command accepts. */
export const ID_FORMS =
  'An id may be given whole or as a unique prefix or suffix of at least 8 characters (e.g. the tail a table shows); a fragment matching several ids exits 2 listing them.';

/** The trace id `given` names in `store`: itself when the store knows it (or a caller trace of one run), else the one trace it is a prefix or suffix of. */
export async function resolveTraceId(store: TraceStore, given: string): Promise<string> {
  try {
    return await store.resolve(given);
  } catch (error) {
    if (!(error instanceof NotFoundError) || !isShortIdCandidate(given)) throw error;
    const matches = await store.matchIds(given, MAX_ID_CANDIDATES + 1);
    if (matches.length === 0) throw error;
    return chooseOne('trace', given, matches);
  }
}

/**
 * The execution id `given` names in `checkpointer`: itself when it has checkpoints, else the one execution it is a
 * prefix or suffix of; `given` unchanged when nothing matches (the command then reports it unknown).
 */
export async function resolveExecutionId(checkpointer: Checkpointer, given: string): Promise<string> {
  if ((await checkpointer.list(given, { limit: 1 })).length > 0 || !isShortIdCandidate(given)) return given;
  const matches = await matchExecutionIds(checkpointer, given, MAX_ID_CANDIDATES + 1);
  return matches.length === 0 ? given : chooseOne('execution', given, matches);
}

/** The single match, or a usage error naming the candidates (at most 10, then "and more"). */
function chooseOne(kind: 'trace' | 'execution', given: string, matches: readonly string[]): string {
  if (matches.length === 1) return matches[0]!;
  const listed = matches.slice(0, MAX_ID_CANDIDATES).join(', ');
  const more = matches.length > MAX_ID_CANDIDATES ? ', and more' : '';
  throw new UsageError(`${kind} id '${given}' is ambiguous: it matches ${listed}${more}; give more characters`);
}
