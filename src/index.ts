/**
 * agentkit: operate LLM agents in production. This is the SDK's public API; `agentkit/client` holds the typed HTTP
 * client for served agents and `agentkit/testing` the deterministic test helpers.
 */
// First: refuse an unsupported Node.js before any native module loads.
import './node-support-guard.js';
export { VERSION } from './version.js';
export {
  AgentkitError,
  AmbiguousTraceError,
  ConfigError,
  NotFoundError,
  NotImplementedError,
  ValidationError,
  errorTable,
  toError,
  type ErrorCode,
  type ErrorMapping,
} from './errors.js';
export type * from './types.js';
export * from './durability/index.js';
export { checkpointerFor } from './durability/checkpointer-for.js';
export { openStore, Store, type OpenStoreOptions } from './store/store-handle.js';
export { copyStore, type StoreCopyOptions, type StoreCopyResult } from './store-copy/index.js';
export { DEFAULT_PG_SCHEMA, parseStoreValue, redactStoreValue, StoreSchemaNameError, type StoreRef } from './config/store-value.js';
export * from './scope/index.js';
export {
  Chain,
  ChainCycleError,
  ChainError,
  ChainRoutingError,
  type ChainOptions,
  type Condition,
  type EdgeOptions,
  type ForkOptions,
  type NodeContext,
  type NodeFunction,
  type NodeOptions,
  type ResumeOptions,
  type Runner,
  type RunOptions as ChainRunOptions,
} from './chain/index.js';
export { loadTarget, parseTarget, describeValue, TargetLoadError, type LoadedTarget, type TargetSpec } from './targets.js';
export * from './llm/index.js';
export * from './tools/index.js';
export * from './guardrails/index.js';
export * from './tracing/index.js';
export * from './agent/index.js';
export type { JsonObject, JsonValue } from './json.js';
export * from './swarm/index.js';
export type { MemberAgent, MemberResumeOptions, MemberRunOptions } from './multi/member.js';
export * from './supervisor/index.js';
export * from './replay/index.js';
export * from './prompts/index.js';
export * from './kb/index.js';
export * from './migrate/index.js';
export { registerSecret } from './config/secrets.js';
export { maskCredentials, redactText, redactValue } from './config/redact.js';
export { processIdentity, serviceInstanceId, type ProcessIdentity } from './config/process-identity.js';
export * from './eval/index.js';
export * from './recovery/index.js';
/** TypeBox's builder and its two types, re-exported so tool schemas need no second import (`typebox` is a dependency). */
export { Type, type Static, type TSchema } from 'typebox';
export * from './platform/index.js';
