/** The Platform server (issue 42): its store family, keys, app and start. */
export type { IngestedSpan, IngestedSpanEvent, SpanAttributeValue } from './ingested-span.js';
export * from './store-types.js';
export { SQLitePlatformStore } from './sqlite-platform-store.js';
export { PostgresPlatformStore } from './pg-platform-store.js';
export { PG_PLATFORM_FAMILY } from './pg-schema.js';
export { openPlatformStore } from './open-platform-store.js';
export {
  createApiKey,
  verifyApiKey,
  resolveKeys,
  parseScopes,
  keyDigest,
  KEY_PREFIX_LENGTH,
  type CreatedApiKey,
  type CreateApiKeyInput,
  type KeyCheck,
} from './api-keys.js';
export { createPlatformApp, type PlatformAppOptions } from './app.js';
export { startPlatformServer, platformBindRefusal, type PlatformServerOptions, type RunningPlatformServer } from './serve.js';
