/**
 * Compiled route patterns, kept: express-openapi-validator (5.6) finds a request's route by compiling every documented
 * path with path-to-regexp's `pathToRegexp` on every request, until one matches (`lookupRoute`). On a served `/run`
 * that was about 2-3% of the request thread and 4 KB of garbage a request, for the same two or three patterns each
 * time. `pathToRegexp` is a pure function of its path and options, and the validator only reads what it returns (a
 * regular expression without the `g` or `y` flag keeps no state between `exec` calls), so the compiled result of a
 * (path, options) pair is kept and handed out again.
 *
 * The cache is installed on the copy of path-to-regexp the validator itself resolves, once per process, and only
 * for string paths whose options are only `sensitive`, `strict`, `end` and `trailing` as booleans; any other call, and
 * any call that throws, goes to the original untouched. It holds at most `MAX_PATTERNS` entries (the documents'
 * paths; it starts over when full, so a caller compiling unbounded distinct paths cannot grow it).
 */
import { createRequire } from 'node:module';

/** Entries kept before the cache starts over: far more than the routes of every document a process serves. */
export const MAX_PATTERNS = 1024;

/** The options the key covers, each `true`, `false` or absent; a call with any other option or value is not cached. */
const KEYED_OPTIONS = ['sensitive', 'strict', 'end', 'trailing'] as const;
/** Distinct option combinations: three states for each keyed option. */
const COMBINATIONS = 3 ** KEYED_OPTIONS.length;

type PathToRegexp = (path: unknown, options?: Record<string, unknown>) => unknown;

const CACHED = Symbol.for('agentkit.routePatternCache');

/**
 * `compile` wrapped with the cache. Exported for tests; `installRoutePatternCache` applies it to the validator's copy
 * of path-to-regexp.
 */
export function cachedPathToRegexp(compile: PathToRegexp): PathToRegexp & { size(): number } {
  // Per path, the results by option combination: the lookup hashes the path string (V8 keeps a string's hash) and
  // builds no key, since the validator calls with the same path strings every time.
  const compiled = new Map<string, unknown[]>();
  let size = 0;
  const cached = (path: unknown, options?: Record<string, unknown>): unknown => {
    const combination = typeof path === 'string' ? optionsIndex(options) : -1;
    if (combination < 0) return compile(path, options);
    let byOptions = compiled.get(path as string);
    const hit = byOptions?.[combination];
    if (hit !== undefined) return hit;
    const result = compile(path, options);
    if (size >= MAX_PATTERNS) {
      compiled.clear();
      size = 0;
      byOptions = undefined;
    }
    if (byOptions === undefined) {
      byOptions = new Array<unknown>(COMBINATIONS);
      compiled.set(path as string, byOptions);
    }
    byOptions[combination] = result;
    size++;
    return result;
  };
  return Object.assign(cached, { size: () => size });
}

/** The option combination's index, or -1 when the options cannot be keyed. */
function optionsIndex(options: Record<string, unknown> | undefined): number {
  if (options === undefined) return 0;
  if (typeof options !== 'object' || options === null) return -1;
  let index = 0;
  let known = 0;
  for (let i = 0; i < KEYED_OPTIONS.length; i++) {
    const value = options[KEYED_OPTIONS[i]!];
    if (value === undefined) continue;
    if (typeof value !== 'boolean') return -1;
    known++;
    index += (value ? 2 : 1) * 3 ** i;
  }
  // Any option the key does not cover (delimiter, encodePath, ...): not cached.
  for (const _name in options) if (--known < 0) return -1;
  return known === 0 ? index : -1;
}

/**
 * Put the cache in front of the `pathToRegexp` that express-openapi-validator calls (it reads the module's export at
 * each call). Idempotent: an export already wrapped (by this or another copy of this module) is left as it is.
 * Returns false, changing nothing, when that module cannot be found or has no such export.
 */
export function installRoutePatternCache(): boolean {
  try {
    const fromValidator = createRequire(createRequire(import.meta.url).resolve('express-openapi-validator'));
    const module = fromValidator('path-to-regexp') as { pathToRegexp?: PathToRegexp & { [CACHED]?: true } };
    if (typeof module.pathToRegexp !== 'function') return false;
    if (!module.pathToRegexp[CACHED]) module.pathToRegexp = Object.assign(cachedPathToRegexp(module.pathToRegexp), { [CACHED]: true as const });
    return true;
  } catch {
    return false;
  }
}
