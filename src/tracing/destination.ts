/**
 * Which local store a trace is written to. Chosen once per trace, when its root span starts: the destination set on
 * the active context (`withTraceDestination`, used by `agent.run({ traceDb })`), else the store `AGENTKIT_LOCAL_DB`
 * names at that moment, else `./.agentkit/local.db`. Every span of the trace follows its root, so many runs against
 * different stores can share one process.
 */
import { context, createContextKey, type Context } from '@opentelemetry/api';
import path from 'node:path';
import { localDbPath } from '../config/paths.js';

const DESTINATION = createContextKey('agentkit.trace-destination');

/** `ctx` with `dbPath` as the store for traces started under it. */
export function setTraceDestination(ctx: Context, dbPath: string): Context {
  return ctx.setValue(DESTINATION, path.resolve(dbPath));
}

/** Run `fn` with traces started inside it written to `dbPath`. */
export function withTraceDestination<T>(dbPath: string, fn: () => T): T {
  return context.with(setTraceDestination(context.active(), dbPath), fn);
}

/** The store set on `ctx`, if any. */
export function traceDestinationOf(ctx: Context): string | undefined {
  return ctx.getValue(DESTINATION) as string | undefined;
}

/** The store for a trace starting now under `ctx`. */
export function resolveTraceDestination(ctx: Context): string {
  return traceDestinationOf(ctx) ?? localDbPath();
}
