/**
 * The per-job frame of `jobScope` (AsyncLocalStorage): connection overrides, the job-local tool registry, the
 * project id stamped on spans and the trace-normalize flags. Kept apart from jobScope itself so the connection,
 * tool lookup and tracing can read it without importing each other.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

export interface JobFrame {
  /** Connection fields set by the job; undefined ones inherit the process-global connection. */
  readonly apiKey?: string;
  readonly target?: string;
  readonly project?: string;
  /** Job-local tools by name: looked up before the global registry; tools registered inside the job land here. */
  readonly tools: Map<string, unknown>;
  readonly normalize?: boolean;
  readonly framework?: string;
}

export const jobStorage = new AsyncLocalStorage<JobFrame>();

/** The enclosing job frame, or undefined outside any `jobScope`. */
export function currentJob(): JobFrame | undefined {
  return jobStorage.getStore();
}
