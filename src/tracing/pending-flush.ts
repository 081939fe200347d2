/**
 * How a reader sees this process's own spans before they reach the store, without loading the tracer: setup.ts
 * registers its writer's synchronous flush when it loads; a process that never loaded it (a CLI listing traces) has
 * nothing pending, and reading stays free of OpenTelemetry's start-up cost.
 */
let flush: (() => void) | undefined;

/** Register the flush of pending spans (called once by setup.ts). */
export function registerPendingFlush(fn: () => void): void {
  flush = fn;
}

/** Write this process's pending spans to their stores now; nothing to do when tracing never started here. */
export function flushPendingSpans(): void {
  flush?.();
}

let flushAsync: (() => Promise<void>) | undefined;

/** Register the asynchronous flush that also writes spans bound for Postgres stores (called once by setup.ts). */
export function registerPendingFlushAsync(fn: () => Promise<void>): void {
  flushAsync = fn;
}

/** Write this process's pending spans, Postgres stores included; nothing to do when tracing never started here. */
export async function flushPendingPg(): Promise<void> {
  await flushAsync?.();
}
