/**
 * OTLP/HTTP trace ingestion for the Platform (`POST /v1/traces`): the Express handler, its options and caps. The
 * Platform server mounts the handler; docs/platform.md ("Sending traces to the Platform") describes what hosts send and what the endpoint answers.
 */
export { createOtlpTracesHandler, PROJECT_ATTRIBUTE, type OtlpAuthFailure, type OtlpIngestOptions, type OtlpPrincipal } from './handler.js';
export { DEFAULT_OTLP_LIMITS, resolveOtlpLimits, type OtlpLimits } from './limits.js';
export type { RejectedSpan } from './span-mapping.js';
