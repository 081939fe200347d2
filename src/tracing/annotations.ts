/**
 * Trace annotations in the local store (`trace_annotations`): a favorite flag and a note per trace. `eval curate
 * --filter favorites` builds datasets from the favorites; the local UI sets the same row.
 */
import { localDbPath, type Where } from '../config/paths.js';
import { NotFoundError } from '../errors.js';
import { openLocalStore } from '../store/open.js';
import { utcNow } from '../store/time.js';
import { flushTracesSync } from './setup.js';
import { resolveIn } from './trace-store.js';

export interface AnnotationOptions extends Where {
  /** The store (default `AGENTKIT_LOCAL_DB` in `env`, else `./.agentkit/local.db` under `cwd`). */
  dbPath?: string;
}

/** A trace's annotation. */
export interface TraceAnnotation {
  trace_id: string;
  favorite: boolean;
  note: string | null;
  updated_at: string;
}

/**
 * Mark a trace as a favorite (or not, with `favorite: false`), keeping any note; `note` replaces the note when given
 * (null clears it). Throws NotFoundError (`trace_not_found`) when the store holds no span of the trace, AmbiguousTraceError
 * when the id is a caller's trace of several runs (ADR 0009).
 */
export function markFavorite(requestedId: string, options: AnnotationOptions & { favorite?: boolean; note?: string | null } = {}): TraceAnnotation {
  flushTracesSync();
  const dbPath = options.dbPath ?? localDbPath(options);
  const db = openLocalStore(dbPath);
  try {
    return db
      .transaction(() => {
        // A caller's trace id names the run recorded under it (ADR 0009); the annotation keys on the stored id.
        const traceId = resolveIn(db, requestedId, dbPath);
        if (traceId === null) throw new NotFoundError('trace_not_found', `trace '${requestedId}' not found in ${dbPath}`);
        const before = db.prepare('SELECT note FROM trace_annotations WHERE trace_id = ?').get(traceId) as { note: string | null } | undefined;
        const row: TraceAnnotation = {
          trace_id: traceId,
          favorite: options.favorite ?? true,
          note: options.note === undefined ? (before?.note ?? null) : options.note,
          updated_at: utcNow(),
        };
        db.prepare(
          `INSERT INTO trace_annotations (trace_id, favorite, note, updated_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (trace_id) DO UPDATE SET favorite = excluded.favorite, note = excluded.note, updated_at = excluded.updated_at`,
        ).run(traceId, row.favorite ? 1 : 0, row.note, row.updated_at);
        return row;
      })
      .immediate();
  } finally {
    db.close();
  }
}
