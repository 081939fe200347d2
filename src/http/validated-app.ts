/**
 * An Express 5 app that serves one generated OpenAPI document and enforces it: request bodies capped (declared or
 * streamed), requests and responses validated by express-openapi-validator, every failure written as the contract's
 * error body. Both agentkit servers (served agent, local UI) are built on it.
 *
 * Order: declared-size check -> guards (auth) -> JSON parser with the same cap -> validator -> routes -> 404 ->
 * error mapper. Guards run before parsing so an unauthenticated caller learns nothing about body validation.
 */
import express, { type Express, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { toErrorResponse } from './error-response.js';

export interface ValidatedAppOptions {
  /** The OpenAPI 3.1 document (a generated `doc`). It is cloned: the validator mutates what it is given. */
  doc: object;
  /** Largest accepted request body in bytes. */
  maxBodyBytes: number;
  /** Validate responses against the document (default true). A response off the contract becomes a 500. */
  validateResponses?: boolean;
  /** Middleware that runs before the body is read, e.g. authentication. */
  guards?: RequestHandler[];
  /** Install the routes. Handlers may be async; a rejection reaches the error mapper. */
  routes: (app: Express) => void;
  /** Called for server-side failures (5xx), for logging. Never given request bodies. */
  onServerError?: (error: unknown, req: Request) => void;
}

/** Build the app. Call `warmUp` after listening: the validator loads the document lazily on the first request. */
export function createValidatedApp(options: ValidatedAppOptions): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);

  app.use(rejectDeclaredOversize(options.maxBodyBytes));
  for (const guard of options.guards ?? []) app.use(guard);
  // raw-body counts bytes as they stream, so a body without Content-Length is capped too.
  app.use(express.json({ limit: options.maxBodyBytes, strict: false }));
  app.use(
    OpenApiValidator.middleware({
      apiSpec: structuredClone(options.doc) as Parameters<typeof OpenApiValidator.middleware>[0]['apiSpec'],
      validateRequests: { allErrors: true },
      validateResponses: options.validateResponses === false ? false : { allErrors: true },
      validateSecurity: false,
      validateApiSpec: true,
      ignoreUndocumented: false,
    }),
  );
  options.routes(app);

  app.use((_error: unknown, _req: Request, _res: Response, next: NextFunction) => next(_error));
  app.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
    const mapped = toErrorResponse(error, options.maxBodyBytes);
    if (mapped.serverFault) options.onServerError?.(error, req);
    if (res.headersSent) {
      res.destroy();
      return;
    }
    for (const [name, value] of Object.entries(mapped.headers ?? {})) res.setHeader(name, value);
    // Written raw: the response validator must not re-check an error body the mapper produced.
    res.status(mapped.status).type('application/json').send(JSON.stringify(mapped.body));
  });
  return app;
}

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
    const s = app.listen(port, host, (error?: Error) => (error ? reject(error) : resolve(s)));
    s.once('error', reject);
  });
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
