/**
 * `idempotent(fn, { keyFn })`: run a side effect once per execution. Inside a durable run (a scope with a
 * checkpointer), the first call with a given key runs `fn` and stores its result as JSON; later calls with the same
 * key in the same execution (typically the re-execution of a resumed step) return the stored JSON without running
 * `fn`. Outside a durable run there is no caching: `fn` runs every time.
 *
 * The spec's rules, and where this does better than the Python SDK:
 *   1. key = execution id + hash(function identity, arguments); `keyFn(...args)` replaces the argument part only, so
 *      two functions never share a key even when their `keyFn`s return the same string;
 *   2. the first call in an execution runs the body and stores the result;
 *   3. later calls with the same key return the stored value without running the body;
 *   4. another execution id is a miss;  5. outside any durable run nothing is cached;
 *   6. stored as JSON: a hit returns the JSON form, the first call the original object; `null` (and `undefined`,
 *      stored as null) is cached like any value, so a void side effect also runs once;
 *   7. a result that is not JSON raises IdempotencyError at the first call, before anything is stored.
 */
import { createHash } from 'node:crypto';
import { ConfigError } from '../errors.js';
import { currentScope } from './execution-scope.js';
import { IdempotencyError } from './errors.js';
import { jsonForm, nonJsonReason, type JsonValue } from './json.js';

export interface IdempotentOptions<A extends unknown[]> {
  /** Returns the string that identifies a call instead of the arguments (e.g. an order id). */
  keyFn?: (...args: A) => string;
  /** The function's identity in keys (default `fn.name`); give one for anonymous functions or to qualify a name. */
  name?: string;
}

/**
 * Wrap `fn` (sync or async) so it runs once per execution and key. The wrapper always returns a promise. Throws
 * ConfigError at wrap time when the function has no identity (an anonymous function without `name`).
 */
export function idempotent<A extends unknown[], R>(fn: (...args: A) => R, options: IdempotentOptions<A> = {}): (...args: A) => Promise<Awaited<R>> {
  if (typeof fn !== 'function') throw new ConfigError('idempotent() needs a function');
  const identity = options.name ?? fn.name;
  if (!identity) {
    throw new ConfigError('idempotent() needs a named function or { name }: the name is part of every cache key, so two functions never share one');
  }
  const { keyFn } = options;
  return async function (this: unknown, ...args: A): Promise<Awaited<R>> {
    const scope = currentScope();
    if (!scope?.checkpointer) return await fn.apply(this, args);
    const key = functionKey(identity, keyFn ? ['key', callKeyFn(identity, keyFn, args)] : ['args', args]);
    const cached = await scope.checkpointer.getIdempotent(scope.executionId, key);
    if (cached !== undefined) return cached as Awaited<R>;
    const result = await fn.apply(this, args);
    const stored: unknown = result === undefined ? null : result;
    const reason = nonJsonReason(stored, '$');
    if (reason) {
      throw new IdempotencyError(
        `idempotent function '${identity}' returned a value that cannot be stored as JSON (${reason}); return plain data (objects, arrays, strings, numbers, booleans, null)`,
      );
    }
    await scope.checkpointer.putIdempotent(scope.executionId, key, jsonForm<JsonValue>(stored));
    return result;
  };
}

/** `<identity>:<sha256 hex>` of the identity and the call's key part (readable in the store, collision-free). */
export function functionKey(identity: string, part: readonly ['key' | 'args', unknown]): string {
  const digest = createHash('sha256')
    .update(stableStringify([identity, part]))
    .digest('hex');
  return `${identity}:${digest}`;
}

function callKeyFn<A extends unknown[]>(identity: string, keyFn: (...args: A) => string, args: A): string {
  const key = keyFn(...args);
  if (typeof key !== 'string') throw new ConfigError(`keyFn of idempotent function '${identity}' must return a string, got ${typeof key}`);
  return key;
}

/**
 * JSON with object keys sorted, so `{a, b}` and `{b, a}` hash alike; Maps and Sets by their entries; other non-JSON
 * leaves (functions, bigints, symbols) by their string form.
 */
function stableStringify(value: unknown): string {
  if (value === undefined) return 'null';
  if (value === null || typeof value === 'number' || typeof value === 'boolean' || typeof value === 'string') {
    return JSON.stringify(value) ?? 'null';
  }
  if (Array.isArray(value)) return `[${value.map(stableStringify).join(',')}]`;
  if (typeof value === 'object') {
    const withJson = value as { toJSON?: () => unknown };
    if (typeof withJson.toJSON === 'function') return stableStringify(withJson.toJSON());
    if (value instanceof Map) return stableStringify({ Map: [...value.entries()] });
    if (value instanceof Set) return stableStringify({ Set: [...value.values()] });
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, item]) => `${JSON.stringify(k)}:${stableStringify(item)}`).join(',')}}`;
  }
  return JSON.stringify(String(value));
}
