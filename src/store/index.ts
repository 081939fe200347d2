/** local.db: one SQLite file for traces, checkpoints, idempotency records, guardrail events and more. */
export { openLocalStore, migrate, type OpenOptions } from './open.js';
export { LATEST_SCHEMA_VERSION, MIGRATIONS, schemaVersion, type Migration } from './migrations.js';
export { StoreVersionError } from './errors.js';
export { utcNow } from './time.js';
