/**
 * An Express 5 app that serves one generated OpenAPI document and enforces it. Every agentkit server (served agent,
 * local UI, Platform) is built on it, so each gets the same rules:
 *
 * - strict routing on the document's own paths (case-sensitive, no trailing-slash alias, no decoding); an unmatched
 *   path is a JSON 404, a known path with another method a JSON 405 `method_not_allowed` with `Allow`; `HEAD` works
 *   on every `GET` route;
 * - deny by default: with an `authenticate` hook, every matched route except the listed `openRoutes` is
 *   authenticated, decided on the matched route after routing, never by comparing raw paths;
 * - bounded work: the body cap (declared, chunked or compressed), nesting depth and key count checked on the raw
 *   bytes before parsing, at most 20 validation issues listed, `100 Continue` only once the request is accepted;
 * - requests and responses validated by express-openapi-validator, every failure written as the contract's body.
 *
 * Order: CORS preflight (only with `corsOrigins`) -> declared-size check -> guards -> route match (404/405) ->
 * authentication -> 100 Continue -> JSON parser
 * (cap, shape limits) -> validator -> `use` middleware -> the matched operation's handler -> 404 -> error mapper.
 *
 * Routing happens once, in the route table: the matched operation picks its handler directly (Express's router is
 * not used for routes). The validator still finds the operation's schemas by its own lookup (docs/adr/0002).
 */
import express, { type Express, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import type { AddressInfo, Socket } from 'node:net';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { maskCredentials } from '../config/redact.js';
import type { ErrorCode } from '../errors.js';
import { toErrorResponse } from './error-response.js';
import { corsMiddleware } from './cors.js';
import { checkJsonLimits, DEFAULT_JSON_LIMITS, type JsonLimits } from './json-limits.js';
import { OperationRoutes, type RouteRegistrar } from './operation-routes.js';
import { RouteTable, type MatchedRoute } from './route-table.js';

export type { MatchedRoute } from './route-table.js';
export type { RouteHandler, RouteRegistrar } from './operation-routes.js';

/** Why a request was refused by `authenticate`: written as the contract's error body. */
export interface AuthFailure {
  status: number;
  code: ErrorCode;
  detail: string;
  headers?: Record<string, string>;
}

/** A route served outside the OpenAPI document (static assets of the UI): matched after the document's routes. */
export interface ExtraRoute {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Matched against the raw path; anchor it (`^/assets/[^/]+$`). */
  pattern: RegExp;
  /** The key `openRoutes` names it by, e.g. `GET /assets/*`. */
  key: string;
}

export interface ValidatedAppOptions {
  /** The OpenAPI 3.1 document (a generated `doc`). It is cloned: the validator mutates what it is given. */
  doc: object;
  /** Largest accepted request body in bytes. */
  maxBodyBytes: number;
  /** Nesting depth and total key limits of a JSON body, checked before parsing (defaults 64 and 10,000). */
  jsonLimits?: Partial<JsonLimits>;
  /** Validate responses against the document (default true). A response off the contract becomes a 500. */
  validateResponses?: boolean;
  /** Middleware that runs first for every request, before routing (request tracking, logging). */
  guards?: RequestHandler[];
  /**
   * Decide whether a request may go on: `null` lets it through, an `AuthFailure` refuses it. Called for every request
   * except those matching `openRoutes`, with the matched route (`undefined` when no route matched: the caller gets
   * its 404/405 only once authenticated). Without a hook, nothing is authenticated.
   */
  authenticate?: (req: Request, route: MatchedRoute | undefined) => AuthFailure | null | Promise<AuthFailure | null>;
  /** Routes that never need authentication, as `METHOD /path` keys of the document (`GET /health`). */
  openRoutes?: readonly string[];
  /** Routes outside the document (static files); their handlers are installed by `routes` like any other. */
  extraRoutes?: readonly ExtraRoute[];
  /**
   * Install the handlers, one per operation of the document (Express-style paths: `/traces/:trace_id`); a path that
   * names no operation throws. Handlers may be async; a rejection reaches the error mapper.
   */
  routes: (app: RouteRegistrar) => void;
  /** Called for server-side failures (5xx), for logging. Never given request bodies. */
  onServerError?: (error: unknown, req: Request) => void;
  /**
   * Origins (exact, from `parseCorsOrigin`) whose pages may call the app (docs/adr/0057): their preflights are
   * answered first, before the size check, guards, routing and authentication. Empty or absent: no CORS at all.
   */
  corsOrigins?: readonly string[];
}

/** The path `warmUp` asks for: not a route, so the validator (loading the document) answers its 404. */
export const WARMUP_PATH = '/__agentkit_warmup__';

/** The path parameters the route table matched, as sent (see `dispatch`). */
const RAW_PARAMS = Symbol('agentkit.rawParams');

/** Set on requests that arrived with `Expect: 100-continue` through `listen`'s server: nothing was sent yet. */
const AWAITING_CONTINUE = Symbol('agentkit.awaitingContinue');

/** The route a request matched, once routing ran. */
export function matchedRoute(req: Request): MatchedRoute | undefined {
  return (req as Request & { agentkitRoute?: MatchedRoute }).agentkitRoute;
}

/** Build the app. Call `warmUp` after listening: the validator loads the document lazily on the first request. */
export function createValidatedApp(options: ValidatedAppOptions): Express {
  const table = new RouteTable(options.doc);
  const extra = options.extraRoutes ?? [];
  const known = new Set([...table.keys(), ...extra.map((route) => route.key)]);
  for (const key of options.openRoutes ?? []) {
    if (!known.has(key)) throw new Error(`openRoutes names '${key}', which is not a route of the document (routes: ${[...known].join(', ')})`);
  }
  const open = new Set(options.openRoutes ?? []);
  const limits: JsonLimits = { ...DEFAULT_JSON_LIMITS, ...options.jsonLimits };

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  // Must be set before the first app.use: Express reads them when it creates its router.
  app.set('case sensitive routing', true);
  app.set('strict routing', true);
  app.locals.maxBodyBytes = options.maxBodyBytes;

  if (options.corsOrigins && options.corsOrigins.length > 0) app.use(corsMiddleware(options.corsOrigins, table));
  app.use(rejectDeclaredOversize(options.maxBodyBytes));
  for (const guard of options.guards ?? []) app.use(guard);
  app.use(routeAndAuthenticate(table, extra, open, options.authenticate));
  app.use(continueWhenAccepted);
  // raw-body counts bytes as they stream, so a body without Content-Length is capped too; `verify` sees the raw
  // (decompressed) bytes before JSON.parse does.
  app.use(express.json({ limit: options.maxBodyBytes, strict: false, verify: (_req, _res, buffer) => checkJsonLimits(buffer, limits) }));
  app.use(
    OpenApiValidator.middleware({
      apiSpec: structuredClone(options.doc) as Parameters<typeof OpenApiValidator.middleware>[0]['apiSpec'],
      // Unknown query parameters are tolerated (cache busters, proxies' probes): `GET /health?x=1` is a 200.
      validateRequests: { allErrors: true, allowUnknownQueryParameters: true },
      validateResponses: options.validateResponses === false ? false : { allErrors: true },
      validateSecurity: false,
      validateApiSpec: true,
      ignoreUndocumented: false,
      ...(extra.length > 0 ? { ignorePaths: (path: string) => extra.some((route) => route.pattern.test(path)) } : {}),
    }),
  );
  const handlers = new OperationRoutes(known);
  options.routes(handlers);
  for (const middleware of handlers.middleware()) app.use(middleware);
  app.use(dispatch(handlers));
  app.use((req: Request, res: Response) => sendError(res, 404, 'not_found', `no route ${printable(req.method)} ${printable(req.path)}`));

  app.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
    const mapped = toErrorResponse(error, { maxBodyBytes: options.maxBodyBytes, contentType: req.headers['content-type'] });
    if (mapped.serverFault) options.onServerError?.(error, req);
    if (res.headersSent) {
      res.destroy();
      return;
    }
    // An error answered before the body was read leaves the body on the socket: close instead of parsing it as
    // the next request.
    if ((req as unknown as Record<symbol, boolean>)[AWAITING_CONTINUE] || !req.complete) res.setHeader('Connection', 'close');
    for (const [name, value] of Object.entries(mapped.headers ?? {})) res.setHeader(name, value);
    // Written raw: the response validator must not re-check an error body the mapper produced. A detail may quote the
    // request (a JSON parser's excerpt): no registered secret or credential shape goes back out (docs/adr/0010).
    res
      .status(mapped.status)
      .type('application/json')
      .send(JSON.stringify({ ...mapped.body, detail: maskCredentials(mapped.body.detail) }));
  });
  return app;
}

/**
 * Route on the document, then authenticate. Deny by default: with an `authenticate` hook, every request except one
 * matching an open route is authenticated first, an unmatched one too (so an unauthenticated caller cannot even
 * learn which paths exist, and no spelling of a path escapes the check); then unmatched paths and methods get their
 * 404/405 and never reach the parser, the validator or a handler. `HEAD` on a `GET` route continues as that `GET`
 * (Node still omits the body).
 */
function routeAndAuthenticate(
  table: RouteTable,
  extra: readonly ExtraRoute[],
  open: ReadonlySet<string>,
  authenticate: ValidatedAppOptions['authenticate'],
): RequestHandler {
  return (req, res, next) => {
    // Absolute form (`GET http://host/run`, what proxies send) becomes origin form, so the router, the validator and
    // the handlers all see the one path that was matched and authenticated.
    // The path is cut out raw (no URL parser: it would resolve dot segments the origin form keeps).
    const absolute = /^https?:\/\/[^/?#]*/i.exec(req.url);
    if (absolute) {
      const rest = req.url.slice(absolute[0].length);
      req.url = rest.startsWith('/') ? rest : `/${rest}`;
      req.originalUrl = req.url;
    }
    const path = req.path;
    const match = table.match(req.method, path);
    let route: MatchedRoute | undefined;
    if (match.kind === 'matched') {
      route = match.route;
      (req as unknown as Record<symbol, unknown>)[RAW_PARAMS] = match.params;
    } else {
      const method = req.method === 'HEAD' ? 'GET' : req.method;
      const found = extra.find((candidate) => candidate.method === method && candidate.pattern.test(path));
      if (found) route = { method: found.method, path, key: found.key };
    }
    // The warm-up probe is no route: it can only reach the validator's 404, which proves the document loaded.
    const warmUpProbe = !route && path === WARMUP_PATH && req.method === 'GET';
    const proceed = () => {
      if (route) {
        (req as Request & { agentkitRoute?: MatchedRoute }).agentkitRoute = route;
        if (req.method === 'HEAD') req.method = 'GET';
        next();
      } else if (warmUpProbe) {
        next();
      } else if (match.kind === 'method_not_allowed') {
        res.setHeader('Allow', match.allow.join(', '));
        sendError(res, 405, 'method_not_allowed', `${req.method} is not allowed on ${match.path}; allowed: ${match.allow.join(', ')}`);
      } else {
        sendError(res, 404, 'not_found', `no route ${printable(req.method)} ${printable(path)}`);
      }
    };
    if (!authenticate || warmUpProbe || (route && open.has(route.key))) {
      proceed();
      return;
    }
    Promise.resolve(authenticate(req, route)).then((failure) => {
      if (!failure) {
        proceed();
        return;
      }
      for (const [name, value] of Object.entries(failure.headers ?? {})) res.setHeader(name, value);
      sendError(res, failure.status, failure.code, failure.detail);
    }, next);
  };
}

/**
 * Run the matched operation's handler, its path parameters percent-decoded into `req.params` (a malformed escape is
 * a 400). A request whose operation has no handler goes on to the 404.
 */
function dispatch(handlers: OperationRoutes): RequestHandler {
  return (req, res, next) => {
    const route = matchedRoute(req);
    const handler = route && handlers.handler(route.key);
    if (!handler) {
      next();
      return;
    }
    const raw = (req as unknown as Record<symbol, Record<string, string> | undefined>)[RAW_PARAMS] ?? {};
    const params: Record<string, string> = {};
    try {
      for (const [name, value] of Object.entries(raw)) params[name] = decodeURIComponent(value);
    } catch {
      next(Object.assign(new Error(`malformed percent-encoding in the path ${printable(req.path)}`), { status: 400 }));
      return;
    }
    req.params = params;
    try {
      Promise.resolve(handler(req, res, next)).catch(next);
    } catch (error) {
      next(error);
    }
  };
}

function sendError(res: Response, status: number, code: ErrorCode, detail: string): void {
  const req = res.req as Request & Record<symbol, boolean>;
  if (req[AWAITING_CONTINUE] || !req.complete) res.setHeader('Connection', 'close');
  res
    .status(status)
    .type('application/json')
    .send(JSON.stringify({ detail: maskCredentials(detail), code }));
}

/** A path for an error message: bounded, control characters escaped. */
function printable(path: string): string {
  const shown = JSON.stringify(path.length > 200 ? `${path.slice(0, 200)}...` : path);
  return shown.slice(1, -1);
}

/** The request was accepted (routed, authenticated, not over the cap): now let an `Expect: 100-continue` client send. */
export const continueWhenAccepted: RequestHandler = (req, res, next) => {
  const flags = req as unknown as Record<symbol, boolean>;
  if (flags[AWAITING_CONTINUE]) {
    flags[AWAITING_CONTINUE] = false;
    res.writeContinue();
  }
  next();
};

/** 413 at once when Content-Length already says the body is over the cap; nothing is read. */
function rejectDeclaredOversize(maxBodyBytes: number): RequestHandler {
  return (req, _res, next) => {
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > maxBodyBytes) {
      next(Object.assign(new Error('request entity too large'), { status: 413, type: 'entity.too.large' }));
      return;
    }
    next();
  };
}

/** Listen on host:port (port 0 picks a free one) and resolve with the bound address. */
export async function listen(app: Express, port: number, host: string): Promise<{ server: Server; url: string; port: number }> {
  const server = await new Promise<Server>((resolve, reject) => {
    const s = createServer(app);
    s.once('error', reject);
    s.listen(port, host, () => resolve(s));
  });
  hardenServer(server);
  const address = server.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return { server, url: `http://${shownHost}:${address.port}`, port: address.port };
}

/**
 * Load the document now instead of on the first real request: a request to a path no document declares must come
 * back as the contract's 404. Anything else means the document failed to load, and startup fails with why.
 */
export async function warmUp(url: string): Promise<void> {
  const response = await fetch(`${url}/__agentkit_warmup__`, { headers: { accept: 'application/json' } });
  const text = await response.text();
  if (response.status !== 404 || !text.includes('"not_found"')) {
    throw new Error(`the OpenAPI document failed to load (warm-up answered ${response.status}: ${text.slice(0, 300)})`);
  }
}

/**
 * Server-level rules no middleware can apply: `Expect: 100-continue` is answered by the app only once the request is
 * accepted (so an over-cap upload gets its 413 before any `100 Continue`), and requests Node's parser refuses
 * (malformed request line or headers, headers over 16 KiB) get a JSON error body instead of a bare status line.
 */
export function hardenServer(server: Server): void {
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
    (req as unknown as Record<symbol, boolean>)[AWAITING_CONTINUE] = true;
    server.emit('request', req, res);
  });
  // CONNECT is no route of ours; without a listener Node would drop the socket without a word.
  server.on('connect', (_req: IncomingMessage, socket: Socket) => {
    const body = JSON.stringify({ detail: 'CONNECT is not supported', code: 'method_not_allowed' });
    socket.end(
      `HTTP/1.1 405 Method Not Allowed\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
  server.on('clientError', (error: Error & { code?: string }, socket: Socket) => {
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const [status, reason, code, detail] =
      error.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'Request Header Fields Too Large', 'headers_too_large', 'request headers are larger than 16 KiB']
        : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? [408, 'Request Timeout', 'request_timeout', 'the request was not received in time']
          : [400, 'Bad Request', 'validation_failed', 'malformed HTTP request'];
    const body = JSON.stringify({ detail, code, ...(code === 'validation_failed' ? { errors: [] } : {}) });
    socket.end(
      `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
}
