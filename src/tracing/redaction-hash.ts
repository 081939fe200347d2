/**
 * Keyed hashes of masked values (docs/adr/0010). When the trace writer masks a value replay matches on (a model
 * request's messages, a tool call's arguments), the stored row keeps, beside the masked text, an HMAC-SHA256 (its first
 * 128 bits, hex) of the unmasked value under a random key that lives in the store (`trace_keys`, local.db v32). A rerun
 * in recorded mode then matches a masked recorded call when its own value has the same keyed hash. The key never
 * leaves the store, so a hash in an exported document cannot confirm a guess of the secret.
 *
 * Stored as the span attribute `agentkit.redaction.hmac`: a JSON object whose `gen_ai.request.messages` entry maps each
 * masked message's index in the conversation to the hash of that message (its canonical JSON), and whose `tool.args`
 * entry is the hash of the arguments (their canonical JSON when they are JSON, else their text).
 */
import { createHmac, createSecretKey } from 'node:crypto';
import { canonicalJson } from '../json.js';
import { LLM_ATTR, TOOL_ATTR } from './attributes.js';

/** The span attribute holding the hashes. */
export const REDACTION_HMAC_ATTR = 'agentkit.redaction.hmac';

/** The `trace_keys` row of the key. */
export const REDACTION_KEY_NAME = 'redaction_hmac';

/** A keyed hash: 32 hex characters. */
export type KeyedHash = (text: string) => string;

/** The keyed hash under `key`. */
export function keyedHash(key: Uint8Array): KeyedHash {
  // A KeyObject made once: an HMAC given the raw key imports it again on every call (about seven times the cost).
  const secret = createSecretKey(key);
  return (text) => createHmac('sha256', secret).update(text).digest('hex').slice(0, 32);
}

/** The text a tool call's arguments are hashed as: their canonical JSON when they parse as JSON, else the text itself. */
export function argumentsText(args: string): string {
  try {
    return canonicalJson(JSON.parse(args));
  } catch {
    return args;
  }
}

/** The hashes of a stored span's masked values, as `agentkit.redaction.hmac` holds them. */
export interface RedactionHashes {
  /** Index of a masked message in the conversation -> the hash of the message's canonical JSON. */
  messages: Map<number, string>;
  /** The hash of the masked tool arguments. */
  args: string | undefined;
}

/** Parse `agentkit.redaction.hmac` (absent or malformed: no hashes). */
export function readRedactionHashes(attributes: Readonly<Record<string, unknown>>): RedactionHashes {
  const out: RedactionHashes = { messages: new Map(), args: undefined };
  const text = attributes[REDACTION_HMAC_ATTR];
  if (typeof text !== 'string') return out;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return out;
  }
  if (!parsed || typeof parsed !== 'object') return out;
  const record = parsed as Record<string, unknown>;
  const messages = record[LLM_ATTR.messages];
  if (messages && typeof messages === 'object')
    for (const [index, hash] of Object.entries(messages)) if (typeof hash === 'string' && /^\d+$/.test(index)) out.messages.set(Number(index), hash);
  const args = record[TOOL_ATTR.args];
  if (typeof args === 'string') out.args = args;
  return out;
}

/** `agentkit.redaction.hmac` text for `hashes` (undefined when there are none). */
export function writeRedactionHashes(messages: Readonly<Record<string, string>> | undefined, args: string | undefined): string | undefined {
  const out: Record<string, unknown> = {};
  if (messages && Object.keys(messages).length > 0) out[LLM_ATTR.messages] = messages;
  if (args !== undefined) out[TOOL_ATTR.args] = args;
  return Object.keys(out).length > 0 ? JSON.stringify(out) : undefined;
}
