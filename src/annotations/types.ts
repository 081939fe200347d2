/**
 * Trace annotations as one table family (issue 39): a favorite flag and a note per stored trace, written by one owner
 * (this module) whatever marks them (the UI's star, `markFavorite()`), with one timestamp format (store/time.ts). A
 * favorite or noted trace is kept by `traces prune` and read by `eval curate --filter favorites|noted`.
 */

/** A trace's annotation. */
export interface TraceAnnotation {
  trace_id: string;
  favorite: boolean;
  note: string | null;
  /** UTC ISO-8601 with microseconds and `Z`. */
  updated_at: string;
}

/** What to change: each given field replaces the stored one; an omitted field keeps its value (false/null when new). */
export interface AnnotationChange {
  favorite?: boolean;
  /** null clears the note. */
  note?: string | null;
}

/**
 * Where annotations are kept: a local.db file or a Postgres store (`annotationStoreOf`). Every method answers from the
 * store itself, so a change made by another process is seen at the next call. Writes are atomic upserts: two
 * processes changing different fields of one trace at once both land.
 */
export interface AnnotationStore {
  /** How messages name the store (a Postgres URL with its password redacted). */
  readonly label: string;
  /** The annotation of `traceId`, or null when it has none. */
  get(traceId: string): Promise<TraceAnnotation | null>;
  /** Apply `change` to `traceId`'s annotation (creating it) and return it as stored. */
  set(traceId: string, change: AnnotationChange): Promise<TraceAnnotation>;
  /** Ids of the traces marked favorite. */
  favorites(): Promise<Set<string>>;
  /** Ids of the traces a person marked: favorite, or with a non-empty note (what prune keeps). */
  marked(): Promise<Set<string>>;
  /** Ids of the traces with a non-empty note. */
  noted(): Promise<Set<string>>;
  /** Every annotation, by trace id (a store copy reads them). */
  all(): Promise<TraceAnnotation[]>;
  /**
   * Add the given annotations as they are (their `updated_at` kept) where the store holds none for that trace; an
   * existing annotation is left as it is. Returns how many were added (a store copy, run again, adds 0).
   */
  importRows(rows: readonly TraceAnnotation[]): Promise<number>;
  /** Give back connections. Idempotent. */
  close(): Promise<void>;
}
