/**
 * `resume --db`: the store the resumed run must be on. The runner's own checkpointer decides where its checkpoints
 * are (the CLI never swaps it); `--db` names the store the operator means, and a runner whose checkpointer is on
 * another store is refused with one line naming both, redacted. The resumed run's traces go to `--db` too.
 */
import { UsageError } from 'clipanion';
import { parseStoreValue, storeKey, storeLabel, withoutPassword, type StoreRef } from '../../src/config/store-value.js';
import type { ReplicaSource } from '../../src/durability/checkpointer.js';

/** The store a checkpointer writes to, when it says (SQLite and Postgres checkpointers do); null otherwise. */
export function checkpointerStore(checkpointer: unknown): StoreRef | null {
  const source = (checkpointer as { replicaSource?: () => ReplicaSource | null } | null | undefined)?.replicaSource?.();
  if (!source) return null;
  if (source.driver === 'sqlite') return { engine: 'sqlite', path: source.path };
  const url = new URL(source.url);
  url.searchParams.set('schema', source.schema);
  return parseStoreValue(url.toString());
}

/** Refuse (UsageError) a runner whose checkpointer is on a store other than `wanted`. */
export function checkRunnerStore(wanted: StoreRef, checkpointer: unknown, runner: string): void {
  const actual = checkpointerStore(checkpointer);
  if (actual === null || sameStore(actual, wanted)) return;
  throw new UsageError(
    `--db names ${storeLabel(wanted)}, but the runner '${runner}' keeps its checkpoints in ${storeLabel(actual)}; resume through a runner on that store, or name it with --db`,
  );
}

/** Same store: same file, or same server, database, user and schema (a password is not part of the identity). */
function sameStore(a: StoreRef, b: StoreRef): boolean {
  if (a.engine !== b.engine) return false;
  if (a.engine === 'sqlite' || b.engine === 'sqlite') return storeKey(a) === storeKey(b);
  return withoutPassword(a.url) === withoutPassword(b.url) && a.schema === b.schema;
}
