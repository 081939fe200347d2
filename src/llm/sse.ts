/**
 * Server-Sent Events as providers send them: `event:` and `data:` fields, events separated by a blank line, lines
 * ending in LF, CRLF or CR, and chunks split anywhere (mid-line, mid-character). Comments (`:`) are skipped.
 */

export interface SseEvent {
  /** The `event:` field, or 'message' when absent. */
  event: string;
  /** The `data:` lines joined with '\n'. */
  data: string;
}

/**
 * Yield the events of an SSE body. `onChunk` runs on every chunk received (providers push their idle deadline back
 * with it). A final event without a trailing blank line is still delivered.
 */
export async function* readSse(body: ReadableStream<Uint8Array>, onChunk: () => void = () => undefined): AsyncGenerator<SseEvent> {
  const decoder = new TextDecoder();
  let buffer = '';
  let event = '';
  let data: string[] = [];
  let sawData = false;

  function* takeLines(final: boolean): Generator<SseEvent> {
    for (;;) {
      const match = /\r\n|\r|\n/.exec(buffer);
      if (!match) break;
      // A lone CR at the very end may be the first half of CRLF: wait for the next chunk unless the body ended.
      if (match[0] === '\r' && match.index === buffer.length - 1 && !final) break;
      const line = buffer.slice(0, match.index);
      buffer = buffer.slice(match.index + match[0].length);
      const dispatched = takeLine(line);
      if (dispatched) yield dispatched;
    }
  }

  function takeLine(line: string): SseEvent | null {
    if (line === '') {
      if (!sawData) {
        event = '';
        return null;
      }
      const out = { event: event || 'message', data: data.join('\n') };
      event = '';
      data = [];
      sawData = false;
      return out;
    }
    if (line.startsWith(':')) return null;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') event = value;
    else if (field === 'data') {
      data.push(value);
      sawData = true;
    }
    return null;
  }

  const reader = body.getReader();
  let finished = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) {
        finished = true;
        break;
      }
      onChunk();
      buffer += decoder.decode(value, { stream: true });
      yield* takeLines(false);
    }
    buffer += decoder.decode();
    yield* takeLines(true);
    if (buffer !== '') {
      const last = takeLine(buffer);
      buffer = '';
      if (last) yield last;
    }
    const tail = takeLine('');
    if (tail) yield tail;
  } finally {
    // A consumer that stops early (or a failure) must not leave the connection open.
    if (finished) reader.releaseLock();
    else await reader.cancel().catch(() => undefined);
  }
}
