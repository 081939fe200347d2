/**
 * Marking a trace from code: a favorite flag and a note per trace, written through the annotations owner
 * (src/annotations/), the same rows the local UI's star sets, on a SQLite file or a Postgres store. `eval curate
 * --filter favorites|noted` builds datasets from them; `traces prune` keeps them.
 */
import { annotationStoreOf, type TraceAnnotation } from '../annotations/index.js';
import type { Where } from '../config/paths.js';
import { flushPendingSpans } from './pending-flush.js';
import { TraceStore } from './trace-store.js';

export type { TraceAnnotation } from '../annotations/index.js';

export interface AnnotationOptions extends Where {
  /** The store: a file or a `postgres://...?schema=` URL (default `AGENTKIT_LOCAL_DB` in `env`, else `./.agentkit/local.db` under `cwd`). */
  dbPath?: string;
}

/**
 * Mark a trace as a favorite (or not, with `favorite: false`), keeping any note; `note` replaces the note when given
 * (null clears it). Resolves to the annotation as stored. Rejects with NotFoundError (`trace_not_found`) when the store
 * holds no span of the trace, AmbiguousTraceError when the id is a caller's trace of several runs (ADR 0009).
 */
export async function markFavorite(
  requestedId: string,
  options: AnnotationOptions & { favorite?: boolean; note?: string | null } = {},
): Promise<TraceAnnotation> {
  flushPendingSpans();
  const traces = new TraceStore({ dbPath: options.dbPath, env: options.env, cwd: options.cwd });
  const annotations = annotationStoreOf(traces.dbPath);
  try {
    // A caller's trace id names the run recorded under it (ADR 0009); the annotation keys on the stored id.
    const traceId = await traces.resolve(requestedId);
    return await annotations.set(traceId, { favorite: options.favorite ?? true, ...(options.note === undefined ? {} : { note: options.note }) });
  } finally {
    await annotations.close();
    await traces.close();
  }
}
