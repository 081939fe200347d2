/**
 * An HTTP server whose requests and responses are born with the prototypes Express gives them, instead of being
 * re-parented by Express as each request arrives.
 *
 * Why: Express gives every request and response its prototype with `Object.setPrototypeOf(req, app.request)`. V8
 * gives an object re-parented that way a hidden class (map) that records no transitions, so every property added to it
 * afterwards (by Node, Express, the router, body parsing, validation, the route itself) makes one more map of its
 * own, per request. No two requests then share a shape: every inline cache that reads or writes a request or
 * response misses and takes V8's runtime slow path (in a served agent's `perf` profile, about a fifth of the request
 * thread went to those misses and the maps they made). An object that already has the prototype Express sets is left
 * as it is (V8 returns early when the prototype does not change), so its maps are shared across requests.
 *
 * How: a subclass of Node's `IncomingMessage` (and `ServerResponse`) whose prototype takes the place of
 * `app.request` (`app.response`): it has the same prototype chain and the same own properties, and the app is
 * pointed at it. A subclass, not a function calling Node's constructor on an object of another prototype: V8 sizes a
 * class's objects from the whole constructor chain, while such a function's objects had almost no room for fields
 * and fell back to slow dictionary properties.
 */
import http, { IncomingMessage, ServerResponse, type Server } from 'node:http';
import type { Express } from 'express';

interface ShapedClasses {
  IncomingMessage: typeof IncomingMessage;
  ServerResponse: typeof ServerResponse;
}

/** Apps already shaped, with their classes: listening twice on one app shapes it once. */
const shapedApps = new WeakMap<Express, ShapedClasses>();

/**
 * `http.createServer(app)` with the requests and responses shaped as Express will have them: Express's own
 * `app.listen` server otherwise. Points `app.request` and `app.response` at the subclasses' prototypes (see above).
 */
export function createShapedServer(app: Express): Server {
  const shaped = shapedMessageClasses(app);
  return shaped ? http.createServer(shaped, app) : http.createServer(app);
}

/** The two classes for `http.createServer`'s options, or null when the app's prototypes are not built on Node's. */
export function shapedMessageClasses(app: Express): ShapedClasses | null {
  const known = shapedApps.get(app);
  if (known) return known;
  const holder = app as unknown as { request: object; response: object };
  // Express's prototypes must already inherit from Node's: the subclasses' prototypes stand in for them.
  if (!(holder.request instanceof IncomingMessage) || !(holder.response instanceof ServerResponse)) return null;
  const Request = class Request extends IncomingMessage {};
  const Response = class Response extends ServerResponse {};
  holder.request = standIn(Request.prototype, holder.request);
  holder.response = standIn(Response.prototype, holder.response);
  const classes = { IncomingMessage: Request, ServerResponse: Response as unknown as typeof ServerResponse };
  shapedApps.set(app, classes);
  return classes;
}

/** `proto` given `original`'s prototype and own properties (Express's `app` back-reference), to replace it. */
function standIn(proto: object, original: object): object {
  Object.setPrototypeOf(proto, Object.getPrototypeOf(original));
  Object.defineProperties(proto, Object.getOwnPropertyDescriptors(original));
  return proto;
}
