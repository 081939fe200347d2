/**
 * The JSON text of a run's message history, as each model span records it (`gen_ai.request.messages`). A run's
 * history only grows, and encoding all of it again on every turn made recording it quadratic in the number of turns,
 * so the text is built incrementally: the messages encoded for the last turn are kept (per history array, weakly) and
 * only the ones appended since are encoded.
 *
 * The local store keeps each model span's messages as those added since the previous model span of the same history
 * (`historyDelta`; readers rebuild the whole list, ../tracing/message-deltas.ts): a run's traces grow with what it
 * says, not with its length times its turns.
 *
 * Contract: a message is never changed in place once it is in a history (agentkit appends new message objects and
 * replaces the whole array when it restores one). Messages removed, replaced or reordered are noticed (the cached
 * prefix is checked by identity) and the whole history is encoded again.
 */
import type { Message } from '../llm/messages.js';

interface Encoded {
  /** The messages encoded so far, by identity. */
  messages: Message[];
  /** Their JSON texts joined by commas (the array's text without its brackets). */
  body: string;
  /** The JSON texts of the messages encoded since the last span recorded this history, joined by commas. */
  added: string;
  /** The last span that recorded this history: its id and store, and how many messages it held. */
  recorded?: { spanId: string; dbPath: string; count: number };
}

const encoded = new WeakMap<readonly Message[], Encoded>();

/** `JSON.stringify(history)`, reusing the encoding of the prefix it had the last time it was encoded. */
export function historyJson(history: readonly Message[]): string {
  return `[${encode(history).body}]`;
}

/** What a model span's local row stores of the history: the messages added since `base`'s, which held `offset`. */
export interface HistoryDelta {
  base: string;
  offset: number;
  /** A JSON array of the added messages. */
  json: string;
}

/**
 * Note that span `spanId`, written to the store at `dbPath`, records `history`; return the messages added since the
 * last span that recorded the same history into the same store (../tracing/message-deltas.ts), or null when there is
 * none or the history changed other than by appending (its encoding starts over, and so does the chain).
 */
export function historyDelta(history: readonly Message[], spanId: string, dbPath: string): HistoryDelta | null {
  const known = encode(history);
  const last = known.recorded;
  // Kept apart from the body: slicing the body would flatten it, a copy of the whole history on every turn.
  const added = known.added;
  known.recorded = { spanId, dbPath, count: history.length };
  known.added = '';
  if (!last || last.dbPath !== dbPath || last.count === 0) return null;
  return { base: last.spanId, offset: last.count, json: `[${added}]` };
}

function encode(history: readonly Message[]): Encoded {
  let known = encoded.get(history);
  if (!known || !isPrefix(known.messages, history)) {
    known = { messages: [], body: '', added: '' };
    encoded.set(history, known);
  }
  for (let i = known.messages.length; i < history.length; i++) {
    const message = history[i]!;
    const text = JSON.stringify(message) ?? 'null';
    known.body += (i === 0 ? '' : ',') + text;
    known.added += (known.added === '' ? '' : ',') + text;
    known.messages.push(message);
  }
  return known;
}

function isPrefix(prefix: readonly Message[], history: readonly Message[]): boolean {
  if (prefix.length > history.length) return false;
  for (let i = 0; i < prefix.length; i++) if (prefix[i] !== history[i]) return false;
  return true;
}
