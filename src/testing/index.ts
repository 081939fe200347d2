/** `agentkit/testing`: helpers for testing agents deterministically, with no API key and no network. */
export { TimeoutError, withTimeout } from './timeout.js';
