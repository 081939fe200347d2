/**
 * The handlers of a validated app, keyed by the document's operations. A request is routed once, by the app's
 * `RouteTable` (see validated-app.ts); here the matched operation only picks its handler: no second router compiles
 * or tries path patterns. Handlers are registered with Express-style paths (`/api/traces/:trace_id`) that must name
 * an operation of the document (or an extra route), so a typo fails when the app is built, not on a request.
 */
import type { NextFunction, Request, RequestHandler, Response } from 'express';

/** A route's handler; a returned promise that rejects reaches the app's error mapper. */
export type RouteHandler = (req: Request, res: Response, next: NextFunction) => unknown;

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** What `ValidatedAppOptions.routes` is given to install the app's handlers. */
export interface RouteRegistrar {
  get(path: string, handler: RouteHandler): void;
  post(path: string, handler: RouteHandler): void;
  put(path: string, handler: RouteHandler): void;
  patch(path: string, handler: RouteHandler): void;
  delete(path: string, handler: RouteHandler): void;
  /** Middleware run for every request that reaches the handlers, before them, in the order added (static pages). */
  use(middleware: RequestHandler): void;
}

/** `/a/:id/b` as the document writes it: `/a/{id}/b`. */
function documentPath(path: string): string {
  return path.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}');
}

/** The registered handlers and middleware of one app. */
export class OperationRoutes implements RouteRegistrar {
  readonly #handlers = new Map<string, RouteHandler>();
  readonly #middleware: RequestHandler[] = [];

  /** `known`: every `METHOD /path` key the app serves (the document's operations and its extra routes). */
  constructor(private readonly known: ReadonlySet<string>) {}

  get(path: string, handler: RouteHandler): void {
    this.#add('get', path, handler);
  }
  post(path: string, handler: RouteHandler): void {
    this.#add('post', path, handler);
  }
  put(path: string, handler: RouteHandler): void {
    this.#add('put', path, handler);
  }
  patch(path: string, handler: RouteHandler): void {
    this.#add('patch', path, handler);
  }
  delete(path: string, handler: RouteHandler): void {
    this.#add('delete', path, handler);
  }
  use(middleware: RequestHandler): void {
    this.#middleware.push(middleware);
  }

  /** The handler of a matched operation key (`GET /executions/{id}`), if one was registered. */
  handler(key: string): RouteHandler | undefined {
    return this.#handlers.get(key);
  }

  /** The middleware added with `use`, in order. */
  middleware(): readonly RequestHandler[] {
    return this.#middleware;
  }

  #add(method: Method, path: string, handler: RouteHandler): void {
    const key = `${method.toUpperCase()} ${documentPath(path)}`;
    if (!this.known.has(key))
      throw new Error(`no operation '${key}' in the document: a handler needs a declared route (routes: ${[...this.known].join(', ')})`);
    if (this.#handlers.has(key)) throw new Error(`'${key}' has a handler already`);
    this.#handlers.set(key, handler);
  }
}
