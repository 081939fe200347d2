/**
 * An HTTP server whose requests and responses are born with the Express app's own prototypes (`app.request`,
 * `app.response`) instead of being re-parented by Express as each request arrives.
 *
 * Why: Express gives every request and response its prototype with `Object.setPrototypeOf(req, app.request)`. V8
 * gives an object re-parented that way a hidden class (map) that records no transitions, so every property added to it
 * afterwards (by Node, Express, the router, body parsing, validation, the route itself) makes one more map of its
 * own, per request. No two requests then share a shape: every inline cache that reads or writes a request or
 * response misses and takes V8's runtime slow path (in a served agent's CPU profile, about a fifth of the request
 * thread went to those misses and the maps they made). An object that already has the prototype Express sets is left
 * as it is (V8 returns early when the prototype does not change), so its maps are shared across requests.
 *
 * The constructors call Node's `IncomingMessage` and `ServerResponse` as functions on the new object, which is how
 * Node itself subclasses them. Where they cannot be called that way (a Node whose classes need `new`), the server is
 * Node's default one: correct, only slower.
 */
import http, { IncomingMessage, ServerResponse, type Server } from 'node:http';
import type { Express } from 'express';

type Constructor = new (...args: never[]) => object;

/**
 * `http.createServer(app)` with the requests and responses shaped as Express will have them. Same behaviour as
 * Express's own `app.listen` server otherwise.
 */
export function createShapedServer(app: Express): Server {
  const shaped = shapedMessageClasses(app);
  return shaped ? http.createServer(shaped, app) : http.createServer(app);
}

/** The two classes for `http.createServer`'s options, or null when this Node's classes cannot be built on. */
export function shapedMessageClasses(app: Express): { IncomingMessage: typeof IncomingMessage; ServerResponse: typeof ServerResponse } | null {
  const requestProto = (app as unknown as { request: object }).request;
  const responseProto = (app as unknown as { response: object }).response;
  // Express's prototypes must already inherit from Node's: they are what the new objects are instances of.
  if (!(requestProto instanceof IncomingMessage) || !(responseProto instanceof ServerResponse)) return null;
  if (!callableAsFunction(IncomingMessage) || !callableAsFunction(ServerResponse)) return null;
  const Request = function (this: IncomingMessage, socket: unknown) {
    (IncomingMessage as unknown as (socket: unknown) => void).call(this, socket);
  } as unknown as typeof IncomingMessage;
  Request.prototype = requestProto as IncomingMessage;
  const Response = function (this: ServerResponse, req: unknown, options: unknown) {
    (ServerResponse as unknown as (req: unknown, options: unknown) => void).call(this, req, options);
  } as unknown as typeof ServerResponse;
  Response.prototype = responseProto as ServerResponse;
  return { IncomingMessage: Request, ServerResponse: Response };
}

/** A class keyword constructor throws when called without `new`; Node's message constructors are plain functions. */
function callableAsFunction(ctor: Constructor): boolean {
  return !/^class[\s{]/.test(Function.prototype.toString.call(ctor));
}
