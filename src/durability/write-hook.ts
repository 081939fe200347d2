/**
 * After-commit notification of checkpoint writes, so connected mode can replicate without the durability layer
 * knowing about the Platform. Checkpointers call `notifyCheckpointWrite(this)` once a `put`, `putWrites` or
 * `recordInterrupt` has committed. Listeners must return at once (they schedule work; they never await it on the
 * writer's path) and must not throw; a throwing listener is ignored so a write never fails because of it.
 */
import type { Checkpointer } from './checkpointer.js';

type Listener = (checkpointer: Checkpointer) => void;

const listeners = new Set<Listener>();

/** Hear about every committed write from now on; returns a function that stops it. */
export function onCheckpointWrite(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Called by checkpointers after a committed write. Costs one size check when nobody listens. */
export function notifyCheckpointWrite(checkpointer: Checkpointer): void {
  if (listeners.size === 0) return;
  for (const listener of listeners) {
    try {
      listener(checkpointer);
    } catch {
      // A listener's failure is its own; the write has committed.
    }
  }
}

type OpenedListener = (checkpointer: Checkpointer) => void;

const openedListeners = new Set<OpenedListener>();
/** Checkpointers that opened their store in this process, held weakly (a closed, dropped one goes away). */
const opened = new Set<WeakRef<Checkpointer>>();
let pruneAt = 256;

/**
 * Hear about every checkpointer that opens its store from now on (connected mode drains rows a previous process left
 * unsent). Same rules as write listeners: return at once, never throw.
 */
export function onCheckpointerOpened(listener: OpenedListener): () => void {
  openedListeners.add(listener);
  return () => openedListeners.delete(listener);
}

/** Called by checkpointers when they first open their store. */
export function notifyCheckpointerOpened(checkpointer: Checkpointer): void {
  // A process that opens a checkpointer per request must not collect dead references: prune as the set grows.
  if (opened.size >= pruneAt) {
    openedCheckpointers();
    pruneAt = Math.max(256, opened.size * 2);
  }
  opened.add(new WeakRef(checkpointer));
  for (const listener of openedListeners) {
    try {
      listener(checkpointer);
    } catch {
      // The store is open either way.
    }
  }
}

/** The checkpointers that opened their store in this process and are still referenced. */
export function openedCheckpointers(): Checkpointer[] {
  const live: Checkpointer[] = [];
  for (const ref of opened) {
    const checkpointer = ref.deref();
    if (checkpointer) live.push(checkpointer);
    else opened.delete(ref);
  }
  return live;
}

/**
 * Consent and project stamped on a row when it is written (docs/adr/0054): `queued` rows go to the replication outbox
 * and are sent to `project`; the others are local-only (stored as already synced, never sent unless pushed).
 */
export interface WriteStamp {
  queued: boolean;
  /** The project in effect when the row was written; '' for the key's default project. */
  project: string;
}

type StampSource = () => WriteStamp;

let stampSource: StampSource | null = null;
const stamps = new WeakMap<object, WriteStamp>();

/**
 * Install what decides a write's stamp (connected mode does, on `connect()` or `jobScope()`); it runs in the writer's
 * context and must return at once and not throw.
 */
export function setWriteStampSource(source: StampSource | null): void {
  stampSource = source;
}

/** The stamp of a row written here and now: local-only unless connected mode says otherwise. */
export function currentWriteStamp(): WriteStamp {
  if (stampSource) {
    try {
      return stampSource();
    } catch {
      // A failing source must not fail the write; without its answer nothing leaves the machine.
    }
  }
  return { queued: false, project: process.env.AGENTKIT_PROJECT ?? '' };
}

/**
 * Remember the writer's stamp for rows committed later, outside the writer's context (a group commit runs at the end
 * of the turn). Checkpointers call it when a write is made and `stampOf` when the row is stored.
 */
export function stampRows(rows: readonly object[]): void {
  const stamp = currentWriteStamp();
  for (const row of rows) stamps.set(row, stamp);
}

/** The stamp remembered for `row` by `stampRows`, else the one in effect now. */
export function stampOf(row: object): WriteStamp {
  return stamps.get(row) ?? currentWriteStamp();
}
