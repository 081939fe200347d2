/** Connected mode: credentials, the connection, the typed Platform client, the outboxes, restore and jobScope. */
export * from './credentials.js';
export * from './errors.js';
export * from './client.js';
export * from './connection.js';
export { exportQueuedRuns, queueForExport, type EvalExportOutcome } from './eval-outbox.js';
export * from './wire.js';
export * from './replication.js';
export * from './restore.js';
export { jobScope, withSavedConnection, type JobScopeOptions } from './job-scope.js';
export { currentJob, type JobFrame } from './job-context.js';
