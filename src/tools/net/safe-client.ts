/**
 * The one HTTP client of outbound tool calls (REST tools, MCP servers over HTTP). Every connection goes through the
 * SSRF guard at connect time, every redirect hop is vetted the same way, redirects are capped, credential headers are
 * dropped once a redirect leaves the origin, each attempt has a time limit and responses a size cap.
 */
import http, { type IncomingHttpHeaders, type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';
import https from 'node:https';
import { Readable } from 'node:stream';
import { ToolError } from '../tool-error.js';
import { SsrfGuard, type GuardOptions } from './ssrf-guard.js';

export const DEFAULT_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_REDIRECTS = 5;
export const DEFAULT_MAX_RESPONSE_BYTES = 25 * 1024 * 1024;

export interface SafeClientOptions extends GuardOptions {
  /** Redirects followed before the call fails (default 5). */
  maxRedirects?: number;
  /** Time limit of one request, redirects and body included, in ms (default 30 s); 0 for none. */
  timeoutMs?: number;
  /** Larger response bodies fail the call (default 25 MiB). */
  maxResponseBytes?: number;
  /**
   * Header names (any case) `fetch` removes once a redirect leaves the origin, besides Authorization, Cookie and
   * Proxy-Authorization (which it always removes then).
   */
  credentialHeaders?: readonly string[];
}

export interface SafeRequest {
  method: string;
  url: string | URL;
  /**
   * The raw path and query of the first hop, sent verbatim (already percent-encoded): a URL parser would collapse
   * `%2E%2E` segments. Default: the URL's own path and query.
   */
  path?: string;
  headers?: Record<string, string>;
  /** Header names (any case) removed from the request once a redirect leaves the first hop's origin. */
  credentialHeaders?: readonly string[];
  body?: string | Uint8Array;
  signal?: AbortSignal;
  /** Overrides the client's time limit for this request. */
  timeoutMs?: number;
  /** `manual`: return a redirect response as it is instead of following it (default `follow`). */
  redirect?: 'follow' | 'manual';
}

export interface SafeResponse {
  status: number;
  statusText: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** The URL of the hop that answered (after redirects), without credentials. */
  url: string;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** A URL for messages: origin and path, never the query string (it may carry keys) or user info. */
export function describeUrl(url: URL): string {
  return `${url.origin}${url.pathname}`;
}

export class SafeHttpClient {
  readonly guard: SsrfGuard;
  private readonly maxRedirects: number;
  private readonly timeoutMs: number;
  private readonly maxResponseBytes: number;
  private readonly httpAgent: http.Agent;
  private readonly httpsAgent: https.Agent;
  private readonly fetchCredentials: string[];

  /** Throws ConfigError for an unusable allowHosts entry. */
  constructor(options: SafeClientOptions = {}) {
    this.guard = new SsrfGuard(options);
    this.maxRedirects = options.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    this.fetchCredentials = ['authorization', 'cookie', 'proxy-authorization', ...(options.credentialHeaders ?? [])];
    // The guard's lookup is the agents' resolver: the vetted address is the one connected to.
    this.httpAgent = new http.Agent({ keepAlive: true, lookup: this.guard.lookup as never });
    this.httpsAgent = new https.Agent({ keepAlive: true, lookup: this.guard.lookup as never });
  }

  /** Send a request and read the whole body (at most maxResponseBytes). Throws ToolError on refusal or failure. */
  async request(request: SafeRequest): Promise<SafeResponse> {
    const limit = request.timeoutMs ?? this.timeoutMs;
    const { signal, timedOut, dispose } = deadline(limit, request.signal);
    try {
      const { response, url } = await this.open({ ...request, signal });
      const body = await readCapped(response, this.maxResponseBytes, url);
      return { status: response.statusCode ?? 0, statusText: response.statusMessage ?? '', headers: response.headers, body, url: describeUrl(url) };
    } catch (error) {
      if (timedOut())
        throw new ToolError('tool_execution_error', `${request.method} ${describeUrl(new URL(request.url))} timed out after ${limit} ms`, { retryable: true });
      throw error;
    } finally {
      dispose();
    }
  }

  /**
   * A `fetch` with the same protections, for libraries that take one (the MCP SDK's HTTP transport). The body is
   * streamed (no size cap, no time limit: a server-sent event stream lives as long as the session).
   */
  readonly fetch = async (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    const url = typeof input === 'string' || input instanceof URL ? new URL(input) : new URL(input.url);
    const headers: Record<string, string> = {};
    new Headers(init.headers ?? (input instanceof Request ? input.headers : undefined)).forEach((value, key) => {
      headers[key] = value;
    });
    const method = (init.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
    const body = await bodyOf(init.body ?? null);
    const { response } = await this.open({
      method,
      url,
      headers,
      credentialHeaders: this.fetchCredentials,
      redirect: init.redirect === 'manual' ? 'manual' : 'follow',
      ...(body !== undefined ? { body } : {}),
      ...(init.signal ? { signal: init.signal } : {}),
    });
    const status = response.statusCode ?? 0;
    const responseHeaders = new Headers();
    for (const [key, value] of Object.entries(response.headers)) {
      if (Array.isArray(value)) for (const v of value) responseHeaders.append(key, v);
      else if (value !== undefined) responseHeaders.set(key, value);
    }
    const empty = status === 204 || status === 205 || status === 304 || method === 'HEAD';
    if (empty) response.resume();
    return new Response(empty ? null : (Readable.toWeb(response) as ReadableStream), {
      status,
      statusText: response.statusMessage ?? '',
      headers: responseHeaders,
    });
  };

  /** Close idle keep-alive connections. */
  close(): void {
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }

  /** Follow redirects (each hop vetted) and return the final response, its body unread. */
  private async open(request: SafeRequest): Promise<{ response: IncomingMessage; url: URL }> {
    let url = parseUrl(request.url);
    let path = request.path ?? `${url.pathname}${url.search}`;
    let method = request.method.toUpperCase();
    let body = request.body;
    const headers: Record<string, string> = { ...request.headers };
    const credentials = new Set((request.credentialHeaders ?? []).map((h) => h.toLowerCase()));
    const origin = url.origin;
    for (let hop = 0; ; hop++) {
      const response = await this.send(url, path, method, headers, body, request.signal);
      const status = response.statusCode ?? 0;
      const location = response.headers.location;
      if (!REDIRECTS.has(status) || !location || request.redirect === 'manual') return { response, url };
      response.resume();
      if (hop >= this.maxRedirects) {
        throw new ToolError(
          'tool_execution_error',
          `${request.method.toUpperCase()} ${describeUrl(parseUrl(request.url))} redirected more than ${this.maxRedirects} times`,
        );
      }
      let next: URL;
      try {
        next = new URL(location, url);
      } catch {
        throw new ToolError('tool_execution_error', `${describeUrl(url)} redirected to an invalid location`);
      }
      if (next.protocol !== 'http:' && next.protocol !== 'https:') {
        throw new ToolError('ssrf_blocked', `refused to follow a redirect from ${describeUrl(url)} to a '${next.protocol}' URL`);
      }
      if (next.origin !== origin) {
        for (const name of Object.keys(headers)) if (credentials.has(name.toLowerCase())) delete headers[name];
      }
      if ((status === 303 && method !== 'HEAD') || ((status === 301 || status === 302) && method === 'POST')) {
        method = 'GET';
        body = undefined;
        for (const name of Object.keys(headers)) if (/^content-(type|length|encoding)$/i.test(name)) delete headers[name];
      }
      url = next;
      path = `${next.pathname}${next.search}`;
    }
  }

  private async send(
    url: URL,
    path: string,
    method: string,
    headers: Record<string, string>,
    body: string | Uint8Array | undefined,
    signal?: AbortSignal,
  ): Promise<IncomingMessage> {
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new ToolError('tool_execution_error', `only http and https URLs can be called, not '${url.protocol}'`);
    if (url.username || url.password)
      throw new ToolError('tool_execution_error', `${describeUrl(url)}: credentials in the URL are not supported; use a header`);
    // IP literals never reach the agent's lookup, so they are vetted here; names are vetted at connect time.
    if (SsrfGuard.isLiteral(url.hostname)) await this.guard.vetHost(url.hostname);
    const secure = url.protocol === 'https:';
    const outgoing: OutgoingHttpHeaders = { ...headers };
    return new Promise<IncomingMessage>((resolve, reject) => {
      const req = (secure ? https : http).request(
        {
          protocol: url.protocol,
          hostname: url.hostname.replace(/^\[(.*)\]$/, '$1'),
          port: url.port || (secure ? 443 : 80),
          path,
          method,
          headers: outgoing,
          agent: secure ? this.httpsAgent : this.httpAgent,
          ...(signal ? { signal } : {}),
        },
        resolve,
      );
      req.on('error', (error) => reject(error instanceof ToolError ? error : connectionError(method, url, error)));
      req.end(body);
    });
  }
}

function parseUrl(value: string | URL): URL {
  try {
    return new URL(value);
  } catch {
    throw new ToolError('tool_execution_error', `invalid URL ${JSON.stringify(String(value).slice(0, 200))}`);
  }
}

function connectionError(method: string, url: URL, error: Error): Error {
  if (error.name === 'AbortError') return error;
  const code = (error as NodeJS.ErrnoException).code;
  return new ToolError('tool_execution_error', `${method} ${describeUrl(url)} failed: ${code ?? error.message}`, { cause: error, retryable: true });
}

/** A signal aborted by `signal` or after `ms` (0: never), and whether the time limit is what fired. */
function deadline(ms: number, signal: AbortSignal | undefined): { signal: AbortSignal | undefined; timedOut: () => boolean; dispose: () => void } {
  if (!ms) return { signal, timedOut: () => false, dispose: () => {} };
  const controller = new AbortController();
  let fired = false;
  const timer = setTimeout(() => {
    fired = true;
    controller.abort(new Error('timed out'));
  }, ms);
  const forward = () => controller.abort(signal?.reason);
  signal?.addEventListener('abort', forward, { once: true });
  return {
    signal: controller.signal,
    timedOut: () => fired,
    dispose: () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', forward);
    },
  };
}

async function readCapped(response: IncomingMessage, max: number, url: URL): Promise<Buffer> {
  const declared = Number(response.headers['content-length']);
  const tooLarge = () => new ToolError('tool_execution_error', `the response of ${describeUrl(url)} is larger than ${max} bytes`);
  if (declared > max) {
    response.destroy();
    throw tooLarge();
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response) {
    size += (chunk as Buffer).length;
    if (size > max) {
      response.destroy();
      throw tooLarge();
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

async function bodyOf(body: RequestInit['body']): Promise<string | Uint8Array | undefined> {
  if (body === null || body === undefined) return undefined;
  if (typeof body === 'string') return body;
  if (body instanceof Uint8Array) return body;
  return new Uint8Array(await new Response(body as ConstructorParameters<typeof Response>[0]).arrayBuffer());
}
