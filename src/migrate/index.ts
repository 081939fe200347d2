/** `agentkit migrate`: import the legacy trace store, checkpoint store and prompt directory into local.db, once. */
export {
  importLegacyStores,
  type ImportLegacyOptions,
  type ImportLegacyReport,
  type LegacyKind,
  type SourceReport,
  type SourceStatus,
} from './import-legacy.js';
export { LegacySourceError } from './errors.js';
