/**
 * Reading an OTLP/HTTP request body within the caps (limits.ts): the bytes as sent are counted while they arrive and
 * reading stops at the cap, and gzip is undone with an output cap so a small compressed body cannot inflate into a
 * large allocation (a gzip bomb stops after `maxDecodedBytes`, whatever its nominal size).
 */
import type { IncomingMessage } from 'node:http';
import { gunzip } from 'node:zlib';
import { OtlpRefusal } from './refusal.js';

export type BodyEncoding = 'gzip' | 'identity';

/** The request's `Content-Encoding`: gzip or none; anything else is refused with 415 (OTLP/HTTP defines only gzip). */
export function bodyEncoding(header: string | undefined): BodyEncoding {
  const value = (header ?? '').trim().toLowerCase();
  if (value === '' || value === 'identity') return 'identity';
  if (value === 'gzip' || value === 'x-gzip') return 'gzip';
  throw new OtlpRefusal(415, `Content-Encoding '${value.slice(0, 40)}' is not accepted: send gzip or no encoding`);
}

function tooLarge(what: string, limit: number): OtlpRefusal {
  return new OtlpRefusal(413, `the request body ${what} more than ${limit} bytes; send smaller batches`);
}

/**
 * The body of `req`, at most `maxBytes`. A declared Content-Length over the cap is refused before a byte is read;
 * otherwise bytes are counted as they arrive and reading stops (the request is paused, nothing more is buffered) as
 * soon as they pass the cap. Rejects with OtlpRefusal 413 over the cap, 400 when the client aborts mid-body.
 * After a refusal the caller answers and then `discardRest`s the body. Rejects with a plain Error (a server fault)
 * when the stream was consumed before (the handler was mounted after a body parser).
 */
export function readBody(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  // A body parser mounted before the handler already read the stream; waiting for its end would hang the request.
  if (req.readableEnded) return Promise.reject(new Error('the request body was read before the OTLP handler ran: mount it before any body parser'));
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > maxBytes) return Promise.reject(tooLarge('declares', maxBytes));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    const stop = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('aborted', onAborted);
    };
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received > maxBytes) {
        stop();
        req.pause();
        chunks.length = 0;
        reject(tooLarge('holds', maxBytes));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      stop();
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, received));
    };
    const onError = (error: Error) => {
      stop();
      reject(new OtlpRefusal(400, `the request body could not be read: ${error.message}`));
    };
    const onAborted = () => onError(new Error('the client closed the connection'));
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('aborted', onAborted);
  });
}

/**
 * After an answer to a request whose body was not read to its end: read and drop what still arrives (a client reads
 * the answer once it has sent its body, or stops sending when it sees it), and destroy the connection once more than
 * `maxBytes` were dropped, so a client that keeps sending costs neither memory nor unbounded bandwidth. Destroying at
 * once instead would reset the connection before many clients have read the answer.
 */
export function discardRest(req: IncomingMessage, maxBytes: number): void {
  let dropped = 0;
  req.on('data', (chunk: Buffer) => {
    dropped += chunk.length;
    if (dropped > maxBytes) req.destroy();
  });
  req.on('error', () => undefined);
  req.resume();
}

/**
 * zlib's output chunk when inflating: large enough that a bomb's 32 MiB are a hundred-odd allocations, each above
 * malloc's mmap threshold so its memory goes back to the system when collected (zlib's default 16 KiB chunks are
 * thousands of small heap blocks, slower to inflate and kept by the heap).
 */
const INFLATE_CHUNK_BYTES = 256 * 1024;

/**
 * `body` decoded per `encoding`: as is, or gunzipped (concatenated gzip members included) into at most `maxBytes`.
 * zlib stops inflating once its output passes `maxBytes`, so the allocation is bounded by the cap, not by what the
 * body would inflate to. Rejects with OtlpRefusal 413 past the cap and 400 for data that is not gzip.
 */
export function decodeBody(body: Buffer, encoding: BodyEncoding, maxBytes: number): Promise<Buffer> {
  if (encoding === 'identity') {
    return body.length > maxBytes ? Promise.reject(tooLarge('holds', maxBytes)) : Promise.resolve(body);
  }
  return new Promise((resolve, reject) => {
    gunzip(body, { maxOutputLength: maxBytes, chunkSize: INFLATE_CHUNK_BYTES }, (error, inflated) => {
      if (!error) resolve(inflated);
      else if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE' || error instanceof RangeError) reject(tooLarge('inflates to', maxBytes));
      else reject(new OtlpRefusal(400, `the request body is not valid gzip: ${error.message}`));
    });
  });
}
