/**
 * The process's one AsyncLocalStorage for what follows a run across `await`: the execution scope (../scope/scope.ts)
 * and the OpenTelemetry context (the active span, the trace's store; ./shared-context-manager.ts). Each frame holds
 * both, so entering one keeps the other as it was.
 *
 * Why one: on Node 20 every enabled AsyncLocalStorage copies its store onto every promise the process makes (an
 * init hook per promise, one more property on each). A served run makes about 180 promises; with the scope and
 * OpenTelemetry on separate storages that was 57 / 152 / 225 ns per awaited promise for 0 / 1 / 2 storages
 * (ADR 0048).
 *
 * It lives in tracing because scope may import tracing and not the reverse (ADR 0048).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Context } from '@opentelemetry/api';

/** One frame: the execution scope (typed by its owner, ../scope/scope.ts) and the OpenTelemetry context. */
export interface ContextFrame {
  /** The execution scope of this frame; undefined outside any executor. */
  readonly scope: unknown;
  /** The OpenTelemetry context of this frame; undefined when none was entered (readers use the root context). */
  readonly otel: Context | undefined;
}

/** The shared storage. A constant, like the storage each module had before: frames themselves are immutable. */
export const contextFrames = new AsyncLocalStorage<ContextFrame>();

/** Run `fn` in a frame holding `scope` and the enclosing frame's OpenTelemetry context. */
export function runWithScope<T>(scope: unknown, fn: () => T): T {
  return contextFrames.run({ scope, otel: contextFrames.getStore()?.otel }, fn);
}

/** Run `fn(...args)` in a frame holding `otel` and the enclosing frame's execution scope. */
export function runWithContext<A extends unknown[], R>(otel: Context, fn: (...args: A) => R, ...args: A): R {
  return contextFrames.run({ scope: contextFrames.getStore()?.scope, otel }, fn, ...args);
}
