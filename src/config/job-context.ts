/**
 * The per-job frame of `jobScope` (AsyncLocalStorage): connection overrides, the project id stamped on spans and the
 * trace-normalize flags. A leaf module in the base layer, so tracing (runtime) reads it without importing the
 * Platform (a feature), which sets it; `src/platform/job-context.ts` re-exports it.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

export interface JobFrame {
  /** Connection fields set by the job; undefined ones inherit the process-global connection. */
  readonly apiKey?: string;
  readonly target?: string;
  readonly project?: string;
  readonly normalize?: boolean;
  readonly framework?: string;
  /** Set by `withSavedConnection` from a command's environment: AGENTKIT_RESTORE_FROM_PLANE as that command sees it. */
  readonly restoreFromPlane?: boolean;
}

export const jobStorage = new AsyncLocalStorage<JobFrame>();

/** The enclosing job frame, or undefined outside any `jobScope`. */
export function currentJob(): JobFrame | undefined {
  return jobStorage.getStore();
}
