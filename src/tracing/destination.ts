/**
 * Which local store a trace is written to. Chosen once per trace, when its root span starts: the destination set on
 * the active context (`setTraceDestination`, used by `agent.run({ traceDb })` and by `withTraceDestination`), else
 * the store `AGENTKIT_LOCAL_DB` names at that moment, else `./.agentkit/local.db`. Every span of the trace follows
 * its root, so many runs against different stores can share one process.
 */
import { createContextKey, type Context } from '@opentelemetry/api';
import path from 'node:path';
import { localDbPath } from '../config/paths.js';

const DESTINATION = createContextKey('agentkit.trace-destination');

/** `ctx` with `dbPath` as the store for traces started under it. */
export function setTraceDestination(ctx: Context, dbPath: string): Context {
  return ctx.setValue(DESTINATION, path.resolve(dbPath));
}

/** The store set on `ctx`, if any. */
export function traceDestinationOf(ctx: Context): string | undefined {
  return ctx.getValue(DESTINATION) as string | undefined;
}

/** The store for a trace starting now under `ctx`. */
export function resolveTraceDestination(ctx: Context): string {
  return traceDestinationOf(ctx) ?? localDbPath();
}
