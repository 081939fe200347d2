/** Connected mode: credentials, the connection, the typed Platform client, the outboxes, restore and jobScope. */
export * from './credentials.js';
export * from './errors.js';
export * from './client.js';
export * from './connection.js';
export * from './eval-outbox.js';
