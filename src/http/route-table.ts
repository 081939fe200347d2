/**
 * The routes an OpenAPI document declares, matched strictly: case-sensitive, no trailing-slash alias, no decoding,
 * no dot-segment or double-slash normalisation. A request path either names exactly one declared path template or
 * none. Every agentkit server decides 404/405 and authentication on this match, so no spelling of a path can reach
 * a handler while skipping a check that another spelling gets.
 */

/** One declared operation: `GET /executions/{id}`. */
export interface MatchedRoute {
  /** Upper-case method as declared in the document (`GET`, `POST`, ...). */
  method: string;
  /** The path template as written in the document, e.g. `/executions/{id}`. */
  path: string;
  /** `METHOD path`, the key used by `openRoutes`. */
  key: string;
  operationId?: string;
}

/** The outcome of matching a method and path. */
export type RouteMatch =
  | { kind: 'matched'; route: MatchedRoute; params: Record<string, string> }
  | { kind: 'method_not_allowed'; path: string; allow: string[] }
  | { kind: 'not_found' };

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

interface PathEntry {
  path: string;
  /** Literal segments as strings; `null` for a `{param}` segment (one or more characters other than `/`). */
  segments: Array<string | null>;
  /** The parameter name of each `null` segment, in order. */
  names: string[];
  operations: Map<string, MatchedRoute>;
}

/** The document's `paths`, compiled once. */
export class RouteTable {
  private readonly entries: PathEntry[] = [];

  constructor(doc: object) {
    const paths = (doc as { paths?: Record<string, Record<string, { operationId?: string }>> }).paths ?? {};
    for (const [path, item] of Object.entries(paths)) {
      const operations = new Map<string, MatchedRoute>();
      for (const method of METHODS) {
        const operation = item[method];
        if (!operation) continue;
        const upper = method.toUpperCase();
        operations.set(upper, {
          method: upper,
          path,
          key: `${upper} ${path}`,
          ...(operation.operationId ? { operationId: operation.operationId } : {}),
        });
      }
      const parts = path.split('/');
      const segments = parts.map((segment) => (/^\{[^}]+\}$/.test(segment) ? null : segment));
      const names = parts.filter((segment) => /^\{[^}]+\}$/.test(segment)).map((segment) => segment.slice(1, -1));
      this.entries.push({ path, segments, names, operations });
    }
    // Literal paths before templated ones, so `/executions/stats` wins over `/executions/{id}`.
    this.entries.sort((a, b) => countParams(a) - countParams(b));
  }

  /** Every declared `METHOD path` key. */
  keys(): string[] {
    return this.entries.flatMap((entry) => [...entry.operations.values()].map((route) => route.key));
  }

  /**
   * Match a raw request path (no query string) and method. `HEAD` matches a `GET` operation when the document
   * declares no `HEAD` of its own. `params` holds the path parameters as sent (not percent-decoded).
   */
  match(method: string, rawPath: string): RouteMatch {
    const entry = this.find(rawPath);
    if (!entry) return { kind: 'not_found' };
    const route = entry.operations.get(method) ?? (method === 'HEAD' ? entry.operations.get('GET') : undefined);
    if (route) return { kind: 'matched', route, params: paramsOf(entry, rawPath) };
    return { kind: 'method_not_allowed', path: entry.path, allow: this.methodsOf(rawPath)! };
  }

  /** The methods a raw path has (with `HEAD` beside a `GET`), or null when it names no declared path. */
  methodsOf(rawPath: string): string[] | null {
    const entry = this.find(rawPath);
    if (!entry) return null;
    const methods = [...entry.operations.keys()];
    if (methods.includes('GET') && !methods.includes('HEAD')) methods.push('HEAD');
    return methods;
  }

  private find(rawPath: string): PathEntry | undefined {
    const parts = rawPath.split('/');
    for (const entry of this.entries) {
      if (entry.segments.length !== parts.length) continue;
      let ok = true;
      for (let i = 0; i < parts.length && ok; i++) {
        const want = entry.segments[i];
        const got = parts[i]!;
        ok = want === null ? got.length > 0 && got !== '.' && got !== '..' : want === got;
      }
      if (ok) return entry;
    }
    return undefined;
  }
}

function paramsOf(entry: PathEntry, rawPath: string): Record<string, string> {
  const params: Record<string, string> = {};
  if (entry.names.length === 0) return params;
  const parts = rawPath.split('/');
  let next = 0;
  for (let i = 0; i < parts.length; i++) if (entry.segments[i] === null) params[entry.names[next++]!] = parts[i]!;
  return params;
}

function countParams(entry: PathEntry): number {
  return entry.segments.filter((segment) => segment === null).length;
}
