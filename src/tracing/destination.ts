/**
 * Which local store a trace is written to. Chosen once per trace, when its root span starts: the destination set on
 * the active context (`setTraceDestination`, used by `agent.run({ traceDb })` and by `withTraceDestination`), else
 * the store `AGENTKIT_LOCAL_DB` names at that moment, else `./.agentkit/local.db`. Every span of the trace follows
 * its root, so many runs against different stores can share one process.
 */
import { createContextKey, type Context } from '@opentelemetry/api';
import path from 'node:path';
import { localStore, localStoreValue } from '../config/paths.js';
import { isStoreUrl, parseStoreValue, storeValue } from '../config/store-value.js';

const DESTINATION = createContextKey('agentkit.trace-destination');

/** `ctx` with `store` (a file path, or a `postgres://` URL: never resolved as a path) as the store for traces started under it. */
export function setTraceDestination(ctx: Context, store: string): Context {
  return ctx.setValue(DESTINATION, isStoreUrl(store) ? storeValue(parseStoreValue(store)) : path.resolve(store));
}

/**
 * The configured store as a trace destination: the file (absolute), or the Postgres URL with its `schema` parameter.
 * Never throws, so a bad setting never fails a run: a value naming no store is returned as it is, and the writer
 * drops its spans with one warning (the commands that read the store report the value).
 */
export function defaultTraceDestination(): string {
  try {
    const store = localStore();
    return store.engine === 'sqlite' ? store.path : storeValue(store);
  } catch {
    return localStoreValue();
  }
}

/** The store set on `ctx`, if any. */
export function traceDestinationOf(ctx: Context): string | undefined {
  return ctx.getValue(DESTINATION) as string | undefined;
}

/** The store for a trace starting now under `ctx`. */
export function resolveTraceDestination(ctx: Context): string {
  return traceDestinationOf(ctx) ?? defaultTraceDestination();
}
