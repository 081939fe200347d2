/**
 * One model call over HTTP, the part every provider shares: POST the body (with retries), then either read one JSON
 * answer or follow the SSE stream. A provider supplies only its wire format: how to parse a whole answer and how to
 * turn SSE events into stream events. A stream request answered with plain JSON (some gateways do) is read as one turn.
 */
import { eventsOf } from './events.js';
import { parseJsonBody, postJson, readText, safeUrl, streamFailure, type TransportOptions } from './http.js';
import { readSse, type SseEvent } from './sse.js';
import type { LLMResponse, StreamEvent } from './types.js';

/** A provider's wire format, as the shared exchange needs it. */
export interface WireFormat {
  /** Provider name, for error messages. */
  provider: string;
  /** A whole (non-streamed) answer: the parsed JSON body to a response; throws LLMProviderError when malformed. */
  parse(body: unknown, where: string): LLMResponse;
  /** The provider's SSE events to stream events. */
  streamEvents(where: string, events: AsyncIterable<SseEvent>): AsyncIterable<StreamEvent>;
}

/** A request ready to send: where, with which headers and body. */
export interface Exchange {
  transport: TransportOptions;
  url: string;
  headers: Record<string, string>;
  body: unknown;
  signal?: AbortSignal;
}

/** One non-streamed call. Throws LLMProviderError on a final failure or a malformed body. */
export async function completeOnce(wire: WireFormat, call: Exchange): Promise<LLMResponse> {
  const where = safeUrl(call.url);
  const { response, deadline, attempts } = await postJson(call.transport, call.url, call.headers, call.body, call.signal);
  try {
    const text = await readText(response, deadline, call.transport, where, attempts, call.signal);
    return wire.parse(parseJsonBody(wire.provider, response.status, where, text), where);
  } finally {
    deadline.clear();
  }
}

/** One streamed call; the idle deadline is reset by every chunk received. */
export async function* streamOnce(wire: WireFormat, call: Exchange): AsyncGenerator<StreamEvent> {
  const where = safeUrl(call.url);
  const { response, deadline, attempts } = await postJson(call.transport, call.url, call.headers, call.body, call.signal);
  try {
    if (!(response.headers.get('content-type') ?? '').includes('text/event-stream') || !response.body) {
      const text = await readText(response, deadline, call.transport, where, attempts, call.signal);
      yield* eventsOf(wire.parse(parseJsonBody(wire.provider, response.status, where, text), where));
      return;
    }
    try {
      yield* wire.streamEvents(
        where,
        readSse(response.body, () => deadline.reset()),
      );
    } catch (error) {
      throw streamFailure(error, deadline, call.transport, where, call.signal);
    }
  } finally {
    deadline.clear();
  }
}
