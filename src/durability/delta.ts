/**
 * Delta checkpoints (ADR 0028): a stored row's `state_snapshot` holds either the full state (`delta_base` NULL)
 * or what changed since the row named by `delta_base`, an earlier row of the same execution:
 *
 *   { "set": { key: value }, "append": { key: [items] | "text" }, "unset": [key] }   (empty parts omitted)
 *
 * `append` adds items to an array (an Agent's `messages`, a Chain list) or text to a string; `set` replaces a key;
 * `unset` removes one. So the bytes a step writes are those of the step's own output, not of the whole history.
 *
 * Reading follows `delta_base` back to a full row and applies the deltas forward: every reader (getLast, getById,
 * list, fetchUnsynced, resume, fork, the UI, export-trace) sees full states. A full snapshot is written again when
 * the deltas since the last one outgrow the state itself (`SNAPSHOT_RATIO` times its size, at least
 * `SNAPSHOT_MIN_BYTES`), or after `MAX_DEPTH` rows: a read replays at most about (1 + ratio) times the state's own
 * size, over a bounded number of rows. A history that only grows (messages appended) is written once, plus one
 * snapshot per `MAX_DEPTH` rows; a key rewritten at every step gets a fresh snapshot every few rows instead.
 *
 * The writer remembers the last state it stored per execution (`DeltaWriter`); with nothing remembered (a new
 * execution, a resume in a fresh process, a write that failed) the row is a full snapshot. Values handed to a
 * checkpointer are treated as immutable once stored (Chain and Agent build new values for each step); arrays may grow
 * in place, since the writer keeps its own shallow copy of each.
 */
import type { JsonRecord } from './json.js';
import { isPlainObject } from './json.js';
import { ChainCheckpointError } from './errors.js';
import { hasSecrets, secretsGeneration } from '../config/redact.js';
import { storedDelta, storedFullState, type DeltaDoc } from './stored-state.js';

/** Write a full snapshot once the deltas since the last one reach this many times the state's size... */
export const SNAPSHOT_RATIO = 4;
/** ...and at least this many bytes. */
export const SNAPSHOT_MIN_BYTES = 16 * 1024;
/** A full snapshot after at most this many delta rows, whatever their size. */
export const MAX_DEPTH = 1000;
/** Executions a writer remembers at once (least recently written forgotten first). */
const REMEMBERED = 256;

/** What a row stores for its state. */
export interface StoredState {
  /** JSON text of the full state, or of the delta when `deltaBase` is set. */
  text: string;
  deltaBase: string | null;
  /** The full state as a reader of the row will get it (secrets masked): the row `put` returns. */
  state: JsonRecord;
}

interface Remembered {
  checkpointId: string;
  /** The state as the caller handed it (what the next row is compared with). */
  state: JsonRecord;
  /** The same state as stored: masked (the same object when no secret is registered). */
  stored: JsonRecord;
  /** `secretsGeneration()` when it was stored: a newer secret makes the next row a full, masked snapshot. */
  generation: number;
  /** A shallow copy of each array value as stored (the caller may push onto the original). */
  arrays: Map<string, unknown[]>;
  /** Stored bytes of each key's value (kept up to date through deltas): their sum is the state's size. */
  sizes: Map<string, number>;
  sinceSnapshotBytes: number;
  depth: number;
}

/** The per-checkpointer memory of each execution's last stored state, and the encoding of new rows against it. */
export class DeltaWriter {
  #last = new Map<string, Remembered>();
  /** The stored (masked) state of each row last encoded, for the row `put` returns. */
  #storedStates = new WeakMap<object, JsonRecord>();

  /**
   * The stored form of a row's state, and the row remembered as the execution's newest. Call `forget` for the
   * execution when the write does not commit.
   */
  encode(row: { checkpoint_id: string; execution_id: string; step_type: string | null; state_snapshot: JsonRecord }): StoredState {
    const previous = this.#last.get(row.execution_id);
    this.#last.delete(row.execution_id);
    const state = row.state_snapshot;
    const generation = secretsGeneration();
    let stored: StoredState;
    let entry: Remembered;
    // Checked and masked here, as far as the row stores it (./stored-state.ts): a ValidationError stores nothing.
    if (!previous || snapshotDue(previous, generation)) {
      const sizes = new Map<string, number>();
      const full = storedFullState(state);
      stored = { text: objectText(full, sizes), deltaBase: null, state: full };
      entry = { checkpointId: row.checkpoint_id, state, stored: full, generation, arrays: arraysOf(state), sizes, sinceSnapshotBytes: 0, depth: 0 };
    } else {
      const sizes = new Map(previous.sizes);
      const before = stateAsStored(previous);
      const doc = storedDelta(diff(previous, state), before);
      const text = docText(doc, sizes);
      // Without a secret nothing was masked: the stored state is the caller's.
      const full = hasSecrets() ? applyDelta(previous.stored === previous.state ? before : previous.stored, doc, row.checkpoint_id) : state;
      stored = { text, deltaBase: previous.checkpointId, state: full };
      entry = {
        checkpointId: row.checkpoint_id,
        state,
        stored: full,
        generation,
        arrays: arraysOf(state),
        sizes,
        sinceSnapshotBytes: previous.sinceSnapshotBytes + text.length,
        depth: previous.depth + 1,
      };
    }
    if (stored.state !== state) this.#storedStates.set(row, stored.state);
    // A finished run writes nothing more (a resume of a failed one starts from a snapshot): free its memory.
    if (row.step_type !== 'run_end') {
      this.#last.set(row.execution_id, entry);
      if (this.#last.size > REMEMBERED) this.#last.delete(this.#last.keys().next().value!);
    }
    return stored;
  }

  /** `row` as a reader of it will get it: with its state as stored (masked) when that differs from the one handed in. */
  asStored<T extends { state_snapshot: JsonRecord }>(row: T): T {
    const state = this.#storedStates.get(row);
    // Its own arrays: the remembered stored state must not grow with what the caller pushes onto the returned one.
    return state === undefined ? row : { ...row, state_snapshot: withOwnArrays(state) };
  }

  /** What is remembered of an execution now (opaque), for `restore` when a write is retried before it reached the store. */
  remembered(executionId: string): unknown {
    return this.#last.get(executionId);
  }

  /**
   * Put back what `remembered` returned, after rows encoded since were not written (the store was locked, nothing
   * was stored): the retried rows are stored against the same base as before, not as full snapshots.
   */
  restore(executionId: string, remembered: unknown): void {
    if (remembered === undefined) this.#last.delete(executionId);
    else this.#last.set(executionId, remembered as Remembered);
  }

  /** Forget an execution: its next row is a full snapshot (after a failed write, a deletion, a vanished base). */
  forget(executionId: string): void {
    this.#last.delete(executionId);
  }

  /** Forget every execution (after a prune, which may delete rows a remembered one is based on). */
  forgetAll(): void {
    this.#last.clear();
  }
}

function snapshotDue(previous: Remembered, generation: number): boolean {
  if (previous.depth >= MAX_DEPTH || previous.generation !== generation) return true;
  let stateBytes = 0;
  for (const size of previous.sizes.values()) stateBytes += size;
  return previous.sinceSnapshotBytes >= Math.max(SNAPSHOT_MIN_BYTES, SNAPSHOT_RATIO * stateBytes);
}

/**
 * The remembered state as the caller handed it when it was stored: its arrays are the writer's copies, since the
 * caller's own may have grown in place since (the appended items a delta names start at their length).
 */
function stateAsStored(previous: Remembered): JsonRecord {
  const base: JsonRecord = { ...previous.state };
  for (const [key, items] of previous.arrays) base[key] = items;
  return base;
}

function withOwnArrays(state: JsonRecord): JsonRecord {
  const copy: JsonRecord = { ...state };
  for (const [key, value] of Object.entries(copy)) if (Array.isArray(value)) copy[key] = value.slice();
  return copy;
}

function arraysOf(state: JsonRecord): Map<string, unknown[]> {
  const arrays = new Map<string, unknown[]>();
  for (const [key, value] of Object.entries(state)) if (Array.isArray(value)) arrays.set(key, value.slice());
  return arrays;
}

/** JSON text of an object built key by key (as JSON.stringify would write it), recording each value's size. */
function objectText(object: JsonRecord, sizes?: Map<string, number>): string {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(object)) {
    const text = JSON.stringify(value);
    if (text === undefined) continue;
    sizes?.set(key, text.length);
    parts.push(`${JSON.stringify(key)}:${text}`);
  }
  return `{${parts.join(',')}}`;
}

/** A delta document as text; `sizes` (each key's stored bytes) updated to the state after it. */
function docText(doc: DeltaDoc, sizes: Map<string, number>): string {
  const parts: string[] = [];
  if (doc.set) parts.push(`"set":${objectText(doc.set, sizes)}`);
  if (doc.append) {
    const appended = new Map<string, number>();
    parts.push(`"append":${objectText(doc.append, appended)}`);
    for (const [key, size] of appended) sizes.set(key, (sizes.get(key) ?? 0) + size);
  }
  if (doc.unset) {
    for (const key of doc.unset) sizes.delete(key);
    parts.push(`"unset":${JSON.stringify(doc.unset)}`);
  }
  return `{${parts.join(',')}}`;
}

/** What changed from the remembered state to `next`. */
function diff(previous: Remembered, next: JsonRecord): DeltaDoc {
  const before = previous.state;
  const doc: DeltaDoc = {};
  for (const [key, value] of Object.entries(next)) {
    if (value === undefined) continue;
    const old = Object.hasOwn(before, key) ? before[key] : undefined;
    if (old === undefined) {
      (doc.set ??= {})[key] = value;
      continue;
    }
    const oldArray = previous.arrays.get(key);
    if (oldArray && Array.isArray(value)) {
      if (value.length >= oldArray.length && prefixEqual(oldArray, value)) {
        if (value.length > oldArray.length) (doc.append ??= {})[key] = value.slice(oldArray.length);
        continue;
      }
    } else if (typeof value === 'string' && typeof old === 'string') {
      if (value === old) continue;
      if (value.length > old.length && value.startsWith(old)) {
        (doc.append ??= {})[key] = value.slice(old.length);
        continue;
      }
    } else if (jsonEqual(old, value)) {
      continue;
    }
    (doc.set ??= {})[key] = value;
  }
  for (const [key, value] of Object.entries(before)) {
    if (value !== undefined && (!Object.hasOwn(next, key) || next[key] === undefined)) (doc.unset ??= []).push(key);
  }
  return doc;
}

function prefixEqual(prefix: readonly unknown[], array: readonly unknown[]): boolean {
  for (let i = 0; i < prefix.length; i++) if (!jsonEqual(prefix[i], array[i])) return false;
  return true;
}

/** Equal as JSON (what a reader of the stored copy would get back for each). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) {
    // Different primitives; or a primitive and an object with toJSON (a Date and its ISO string).
    return (typeof a === 'object' && a !== null) || (typeof b === 'object' && b !== null) ? JSON.stringify(a) === JSON.stringify(b) : false;
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i] === undefined ? null : a[i], b[i] === undefined ? null : b[i])) return false;
    return true;
  }
  if (isPlainObject(a) && isPlainObject(b)) {
    let count = 0;
    for (const [key, value] of Object.entries(a)) {
      if (value === undefined) continue;
      count++;
      if (!Object.hasOwn(b, key) || !jsonEqual(value, b[key])) return false;
    }
    for (const value of Object.values(b)) if (value !== undefined) count--;
    return count === 0;
  }
  return JSON.stringify(a) === JSON.stringify(b);
}

/** The full state of a delta row: `base` (a full state, not modified) with `delta` applied. */
export function applyDelta(base: JsonRecord, delta: unknown, checkpointId: string): JsonRecord {
  if (!isPlainObject(delta)) throw corrupt(checkpointId, 'its delta is not an object');
  // A full state written over a delta row by hand (without clearing delta_base) is refused, not half-applied.
  for (const part of Object.keys(delta))
    if (part !== 'set' && part !== 'append' && part !== 'unset') throw corrupt(checkpointId, `its delta has an unknown part '${part}'`);
  const doc = delta as DeltaDoc;
  const state: JsonRecord = { ...base };
  for (const key of doc.unset ?? []) delete state[key];
  for (const [key, value] of Object.entries(doc.set ?? {})) state[key] = value;
  for (const [key, added] of Object.entries(doc.append ?? {})) {
    const old = state[key];
    if (Array.isArray(added) && Array.isArray(old)) state[key] = old.concat(added);
    else if (typeof added === 'string' && typeof old === 'string') state[key] = old + added;
    else throw corrupt(checkpointId, `its delta appends to '${key}', which its base does not hold as ${Array.isArray(added) ? 'an array' : 'a string'}`);
  }
  return state;
}

/** A stored row as the resolver needs it: the state column decoded, and its base. */
export interface StoredRow {
  checkpoint_id: string;
  delta_base: string | null;
  state_snapshot: unknown;
}

/**
 * The full state of every row in `rows`: delta rows are resolved through their bases, found among `rows` or fetched
 * with `fetchChains` (given base ids, it returns those rows and every row they depend on, down to full rows). A row
 * whose state is shared with another of the result (a base and the rows built on it) gets its own copy, so callers
 * may modify what they are handed, as before.
 */
export async function resolveStates(
  rows: readonly StoredRow[],
  fetchChains: (ids: string[]) => Promise<StoredRow[]>,
  cache?: ResolvedStateCache,
): Promise<Map<string, JsonRecord>> {
  const missing = missingBases(rows, cache);
  return resolveAll(rows, missing.length > 0 ? await fetchChains(missing) : [], cache);
}

/** `resolveStates` with a synchronous fetch (SQLite). */
export function resolveStatesSync(
  rows: readonly StoredRow[],
  fetchChains: (ids: string[]) => StoredRow[],
  cache?: ResolvedStateCache,
): Map<string, JsonRecord> {
  const missing = missingBases(rows, cache);
  return resolveAll(rows, missing.length > 0 ? fetchChains(missing) : [], cache);
}

/**
 * The full state of the last row read of each recently read execution (`REMEMBERED` executions, least recently read
 * forgotten first), for a reader that goes forward through the rows in batches: the replication drain reads the
 * outbox oldest first, so the next batch's rows are built on rows of the batch before, and without this every batch
 * fetched its rows' chains back to the last full snapshot again (up to `MAX_DEPTH` rows per batch). Rows never change
 * once written, so a remembered state stays right; a remembered row deleted since is only used for rows built on it,
 * which a store cannot hold without it. Holds its own copies: nothing handed to a caller is remembered.
 */
export class ResolvedStateCache {
  readonly #byExecution = new Map<string, { id: string; state: JsonRecord }>();
  readonly #byId = new Map<string, JsonRecord>();

  get(checkpointId: string): JsonRecord | undefined {
    return this.#byId.get(checkpointId);
  }

  /** Remember `rows`' last row of each execution (rows in write order), with `states` resolved for them. */
  rememberLast(rows: ReadonlyArray<{ checkpoint_id: string; execution_id: string }>, states: ReadonlyMap<string, JsonRecord>): void {
    const last = new Map<string, string>();
    for (const row of rows) last.set(row.execution_id, row.checkpoint_id);
    for (const [execution, id] of last) {
      const state = states.get(id);
      if (!state) continue;
      const old = this.#byExecution.get(execution);
      if (old) {
        this.#byId.delete(old.id);
        this.#byExecution.delete(execution);
      }
      const copy = structuredClone(state);
      this.#byExecution.set(execution, { id, state: copy });
      this.#byId.set(id, copy);
      if (this.#byExecution.size > REMEMBERED) {
        const [oldest, entry] = this.#byExecution.entries().next().value as [string, { id: string }];
        this.#byExecution.delete(oldest);
        this.#byId.delete(entry.id);
      }
    }
  }

  clear(): void {
    this.#byExecution.clear();
    this.#byId.clear();
  }
}

function missingBases(rows: readonly StoredRow[], cache?: ResolvedStateCache): string[] {
  const ids = new Set(rows.map((r) => r.checkpoint_id));
  return [...new Set(rows.map((r) => r.delta_base).filter((id): id is string => id !== null && !ids.has(id) && cache?.get(id) === undefined))];
}

function resolveAll(rows: readonly StoredRow[], fetched: readonly StoredRow[], cache?: ResolvedStateCache): Map<string, JsonRecord> {
  const known = new Map<string, StoredRow>();
  for (const row of fetched) known.set(row.checkpoint_id, row);
  for (const row of rows) known.set(row.checkpoint_id, row);
  const resolved = new Map<string, JsonRecord>();
  const shared = new Set<string>();
  let fromCache = false;
  const resolve = (id: string): JsonRecord => {
    const path: StoredRow[] = [];
    let cursor: StoredRow | undefined = known.get(id);
    let state: JsonRecord | undefined;
    while (cursor) {
      const done = resolved.get(cursor.checkpoint_id);
      if (done) {
        state = done;
        break;
      }
      path.push(cursor);
      if (cursor.delta_base === null) break;
      const base = cursor.delta_base;
      cursor = known.get(base);
      if (!cursor) {
        const cached = cache?.get(base);
        if (!cached) throw corrupt(path.at(-1)!.checkpoint_id, `its base checkpoint '${base}' is missing`);
        // The cache's own copy: built on (applyDelta copies), never handed out (delta rows are cloned below).
        state = cached;
        fromCache = true;
        break;
      }
    }
    for (let i = path.length - 1; i >= 0; i--) {
      const row = path[i]!;
      if (state === undefined) {
        if (!isPlainObject(row.state_snapshot)) throw corrupt(row.checkpoint_id, 'its state is not an object');
        state = row.state_snapshot;
      } else {
        shared.add(row.delta_base!);
        state = applyDelta(state, row.state_snapshot, row.checkpoint_id);
      }
      resolved.set(row.checkpoint_id, state);
    }
    return state!;
  };
  const out = new Map<string, JsonRecord>();
  for (const row of rows) out.set(row.checkpoint_id, resolve(row.checkpoint_id));
  if (rows.length > 1 || fromCache) {
    for (const row of rows)
      if (row.delta_base !== null || shared.has(row.checkpoint_id)) out.set(row.checkpoint_id, structuredClone(out.get(row.checkpoint_id)!));
  }
  return out;
}

/**
 * The state keys a row's `node_output` is made of, when it is exactly those values of the row's state (a Chain node
 * returning `{ log: [...state.log, entry] }` has its update merged into the state as is): the output is then stored
 * as those keys (column `output_keys`) instead of a second copy. Null when it is anything else.
 */
export function outputKeys(row: { state_snapshot: JsonRecord; node_output: unknown }): string[] | null {
  const output = row.node_output;
  if (!isPlainObject(output)) return null;
  const keys = Object.keys(output);
  if (keys.length === 0) return null;
  for (const key of keys) if (output[key] === undefined || output[key] !== row.state_snapshot[key]) return null;
  return keys;
}

/** A stored `output_keys` row's node output: those keys of its full state (copied: the caller may modify it). */
export function outputFromState(state: JsonRecord, keysText: string | string[], checkpointId: string): JsonRecord {
  const keys = typeof keysText === 'string' ? (JSON.parse(keysText) as unknown) : keysText;
  if (!Array.isArray(keys)) throw corrupt(checkpointId, 'its output_keys is not a list');
  const output: JsonRecord = {};
  for (const key of keys as string[]) {
    if (!Object.hasOwn(state, key)) throw corrupt(checkpointId, `its output names state key '${key}', which its state does not hold`);
    output[key] = state[key];
  }
  return structuredClone(output);
}

function corrupt(checkpointId: string, why: string): ChainCheckpointError {
  return new ChainCheckpointError(`checkpoint '${checkpointId}' cannot be read: ${why}`);
}
