/**
 * HTTP requests with the request target sent exactly as given: no URL normalisation (fetch resolves `/./run` and
 * `/a/../run` before sending; attacks rely on the server seeing them raw). One request per connection.
 */
import http from 'node:http';

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

export interface RawRequest {
  method: string;
  /** The request target as it goes on the wire: `/run/`, `/%72un`, `http://127.0.0.1:1/run`. */
  target: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
}

/** Send one request to `base` (`http://127.0.0.1:<port>`) and read the whole answer. */
export function rawRequest(base: string, request: RawRequest): Promise<RawResponse> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        method: request.method,
        path: request.target,
        headers: {
          connection: 'close',
          ...(request.body !== undefined ? { 'content-length': String(Buffer.byteLength(request.body)) } : {}),
          ...request.headers,
        },
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(request.body);
  });
}
