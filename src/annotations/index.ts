/** Trace annotations on the store (issue 39): one owner of the `trace_annotations` family, SQLite and Postgres behind one interface. */
import { openStore, type Store } from '../store/store-handle.js';
import { PgAnnotationStore } from './pg-annotation-store.js';
import { SqliteAnnotationStore } from './sqlite-annotation-store.js';
import type { AnnotationStore } from './types.js';

export type { AnnotationChange, AnnotationStore, TraceAnnotation } from './types.js';
export { PG_ANNOTATION_FAMILY } from './pg-annotation-store.js';

/** The annotation store of `store` (an opened store or a value: a file path or a `postgres://...?schema=` URL). */
export function annotationStoreOf(store: Store | string): AnnotationStore {
  const opened = typeof store === 'string' ? openStore(store, { min: 0, max: 2 }) : store;
  return opened.engine === 'sqlite' ? new SqliteAnnotationStore(opened.path!) : new PgAnnotationStore(opened);
}
export {
  annotationStoreContract,
  runAnnotationContractCase,
  type AnnotationContractCase,
  type AnnotationContractInitializer,
  type AnnotationContractStore,
} from './contract.js';
