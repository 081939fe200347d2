/**
 * A reader for `text/event-stream` bodies whose frames carry one JSON event each (`data: <json>`), validating every
 * event against its contract component before handing it out. Copied into generated/clients/ by `make generate` so
 * that the contract layer depends on nothing of ours.
 */

/** The checks a reader needs from a compiled typebox validator. */
export interface EventValidator<T> {
  Check(value: unknown): value is T;
  Errors(value: unknown): [boolean, ReadonlyArray<{ instancePath: string; message: string }>];
}

/** A frame of the stream that is not JSON, or not a valid event of the contract. */
export class StreamEventError extends Error {
  readonly code = 'validation_failed';
  /** The raw `data` of the offending frame. */
  readonly frame: string;

  constructor(message: string, frame: string) {
    super(message);
    this.name = 'StreamEventError';
    this.frame = frame;
  }
}

/**
 * Yield each event of the stream in order. Lines other than `data:` (comments, `event:`, `id:`, `retry:`) are
 * ignored; multi-line `data` is joined with `\n` as the SSE standard says. The body is released when the consumer
 * stops early.
 */
export async function* readEvents<T>(
  body: ReadableStream<Uint8Array>,
  validator: EventValidator<T>,
  component: string,
): AsyncGenerator<T, void, undefined> {
  // A TextDecoder rather than TextDecoderStream: the same code type-checks against Node's and the DOM's stream types.
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let data: string[] = [];
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) {
        buffer += decoder.decode();
        break;
      }
      buffer += decoder.decode(value, { stream: true });
      let newline: number;
      while ((newline = buffer.search(/\r\n|\r|\n/)) >= 0) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(buffer[newline] === '\r' && buffer[newline + 1] === '\n' ? newline + 2 : newline + 1);
        if (line === '') {
          if (data.length > 0) yield parseFrame(data.join('\n'), validator, component);
          data = [];
        } else if (line.startsWith('data:')) {
          data.push(line.slice(line[5] === ' ' ? 6 : 5));
        }
      }
    }
    if (buffer.startsWith('data:')) data.push(buffer.slice(buffer[5] === ' ' ? 6 : 5));
    if (data.length > 0) yield parseFrame(data.join('\n'), validator, component);
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

function parseFrame<T>(frame: string, validator: EventValidator<T>, component: string): T {
  let event: unknown;
  try {
    event = JSON.parse(frame);
  } catch {
    throw new StreamEventError(`stream frame is not JSON: ${truncate(frame)}`, frame);
  }
  if (validator.Check(event)) return event;
  const [, errors] = validator.Errors(event);
  const why = errors.map((e) => `${e.instancePath || '/'} ${e.message}`).join('; ');
  throw new StreamEventError(`stream frame is not a valid ${component}: ${why} (frame: ${truncate(frame)})`, frame);
}

function truncate(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}...` : text;
}
