/**
 * The JSON text of a run's message history, as each model span records it (`gen_ai.request.messages`). A run's
 * history only grows, and encoding all of it again on every turn made recording it quadratic in the number of turns,
 * so the text is built incrementally: the messages encoded for the last turn are kept (per history array, weakly) and
 * only the ones appended since are encoded.
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
}

const encoded = new WeakMap<readonly Message[], Encoded>();

/** `JSON.stringify(history)`, reusing the encoding of the prefix it had the last time it was encoded. */
export function historyJson(history: readonly Message[]): string {
  let known = encoded.get(history);
  if (!known || !isPrefix(known.messages, history)) {
    known = { messages: [], body: '' };
    encoded.set(history, known);
  }
  for (let i = known.messages.length; i < history.length; i++) {
    const message = history[i]!;
    known.body += (i === 0 ? '' : ',') + (JSON.stringify(message) ?? 'null');
    known.messages.push(message);
  }
  return `[${known.body}]`;
}

function isPrefix(prefix: readonly Message[], history: readonly Message[]): boolean {
  if (prefix.length > history.length) return false;
  for (let i = 0; i < prefix.length; i++) if (prefix[i] !== history[i]) return false;
  return true;
}
