/** local.db: one SQLite file for traces, checkpoints, idempotency records, guardrail events and more. */
export { openLocalStore, migrate, checkStorePath, type OpenOptions } from './open.js';
export { LATEST_SCHEMA_VERSION, MIGRATIONS, schemaVersion, type Migration } from './migrations.js';
export { StoreOpenError, StoreVersionError } from './errors.js';
export { utcNow } from './time.js';
