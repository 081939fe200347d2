/** Moved to store/pg-text.ts (base layer), so the trace store on Postgres escapes text the same way (issue 38). */
export * from '../store/pg-text.js';
