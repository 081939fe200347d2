/**
 * Model spans in the local store hold the messages they add, not the whole history again (ADR 0034). A model
 * span records the conversation it sent (`gen_ai.request.messages`); each turn's is the previous turn's plus a few
 * messages, so storing every one whole made a run's traces grow with its length times its turns (200 tool results
 * of 1 KB: 6.25 MB of span attributes, 31x the payload). Now a model span whose history the previous model span of
 * the same run (same history, same store) recorded stores, in its row only:
 *
 *   gen_ai.request.messages         a JSON array of the messages added since that span
 *   agentkit.llm.messages_base      that span's id
 *   agentkit.llm.messages_offset    how many messages that span held
 *
 * `TraceStore.spans` rebuilds the whole list before anyone sees a span (Replay, the UI, export-trace), so readers get
 * exactly what was sent, and the two keys are gone. A row whose base is not in the trace keeps them: its messages are
 * then only the added ones, and the keys say so. Spans sent elsewhere (OTLP) carry the whole history, as the GenAI
 * conventions expect: only the local row differs.
 */
import { LLM_ATTR } from './attributes.js';
import { readRedactionHashes, REDACTION_HMAC_ATTR, writeRedactionHashes } from './redaction-hash.js';
import type { LeanSpan } from './lean-span.js';

export const MESSAGES_BASE = 'agentkit.llm.messages_base';
export const MESSAGES_OFFSET = 'agentkit.llm.messages_offset';

/** Have `span`'s local row store `json` (the added messages) against `base`, which held `offset` messages. */
export function storeMessagesAsDelta(span: LeanSpan, delta: { base: string; offset: number; json: string }): void {
  span.storedAttributes = { [LLM_ATTR.messages]: delta.json, [MESSAGES_BASE]: delta.base, [MESSAGES_OFFSET]: delta.offset };
}

/** A span as read back from the store, as far as rebuilding needs it. */
interface StoredSpan {
  span_id: string;
  attributes: Record<string, unknown>;
}

/**
 * Rebuild the whole message list of every model span stored as a delta, in place. `spans` in start order (a base
 * always starts before the spans built on it).
 */
export function resolveMessageDeltas(spans: readonly StoredSpan[]): void {
  let messages: Map<string, string> | undefined;
  // The keyed hashes of masked messages (redaction-hash.ts), by span: a rebuilt list carries its base's too.
  let hashes: Map<string, string> | undefined;
  for (const span of spans) {
    const attributes = span.attributes;
    const own = attributes[LLM_ATTR.messages];
    if (typeof own !== 'string') continue;
    const base = attributes[MESSAGES_BASE];
    if (typeof base === 'string') {
      const whole = messages?.get(base);
      // The base is not in this trace: leave the delta and the keys that say it is one.
      if (whole === undefined) continue;
      attributes[LLM_ATTR.messages] = joinArrays(whole, own);
      delete attributes[MESSAGES_BASE];
      delete attributes[MESSAGES_OFFSET];
      const inherited = hashes?.get(base);
      if (inherited !== undefined) attributes[REDACTION_HMAC_ATTR] = mergedHashes(inherited, attributes[REDACTION_HMAC_ATTR]);
    }
    (messages ??= new Map()).set(span.span_id, attributes[LLM_ATTR.messages] as string);
    if (typeof attributes[REDACTION_HMAC_ATTR] === 'string') (hashes ??= new Map()).set(span.span_id, attributes[REDACTION_HMAC_ATTR]);
  }
}

/** `own` (a span's `agentkit.redaction.hmac`, or nothing) with the message hashes of `inherited` (its base's) added. */
function mergedHashes(inherited: string, own: unknown): string {
  const base = readRedactionHashes({ [REDACTION_HMAC_ATTR]: inherited }).messages;
  const mine = readRedactionHashes({ [REDACTION_HMAC_ATTR]: own });
  const messages: Record<string, string> = {};
  for (const [index, hash] of base) messages[index] = hash;
  for (const [index, hash] of mine.messages) messages[index] = hash;
  return writeRedactionHashes(messages, mine.args) ?? inherited;
}

/** Two JSON array texts as one: `[a,b]` and `[c]` give `[a,b,c]`. */
function joinArrays(first: string, second: string): string {
  const head = first.trim();
  const tail = second.trim();
  if (head === '[]') return tail;
  if (tail === '[]') return head;
  return `${head.slice(0, -1)},${tail.slice(1)}`;
}
