/**
 * What "stored as JSON" means for durability: checkpoint state, node outputs and idempotent results are written as
 * JSON and read back as JSON, so a value that `JSON.stringify` would silently change (a Map becoming `{}`, NaN
 * becoming null, a class instance losing its prototype, a bigint throwing) is refused up front with its path named,
 * instead of coming back different after a resume.
 */

import type { JsonValue } from '../json.js';

export type { JsonValue };

/**
 * A JSON-shaped object as callers hand it in (state snapshots, interrupt contexts, metadata): its values are checked
 * at run time (`nonJsonReason`) rather than typed, so plain application objects need no casts.
 */
export type JsonRecord = { [key: string]: unknown };

/**
 * The first reason `value` would not survive JSON, as `<path>: <what>` (path `$` is the value itself), or null when
 * it is JSON. Plain objects, arrays, strings, booleans, null and finite numbers are JSON; so is any object with a
 * `toJSON()` (Date, Buffer), judged by what it returns. `undefined` object properties are dropped as JSON drops them.
 */
export function nonJsonReason(value: unknown, path = '$', seen?: Set<object>): string | null {
  // Nearly every value is JSON: check that first without building a path per value (this runs on every step's state
  // and output), and walk again naming the path only when it is not.
  if (seen === undefined && isJson(value, [])) return null;
  return reasonAt(value, path, seen ?? new Set());
}

/** Whether `nonJsonReason` finds nothing; `open` holds the objects being walked (a circular reference is not JSON). */
function isJson(value: unknown, open: object[]): boolean {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  if (typeof value !== 'object') return false;
  if (open.includes(value)) return false;
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return isJson((value as { toJSON(): unknown }).toJSON(), open);
  open.push(value);
  try {
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) if (!isJson(value[i], open)) return false;
      return true;
    }
    const proto = Object.getPrototypeOf(value) as object | null;
    if (proto !== Object.prototype && proto !== null) return false;
    for (const key in value) {
      if (!Object.hasOwn(value, key)) continue;
      const item = (value as Record<string, unknown>)[key];
      if (item !== undefined && !isJson(item, open)) return false;
    }
    return true;
  } finally {
    open.pop();
  }
}

function reasonAt(value: unknown, path: string, seen: Set<object>): string | null {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return null;
  if (typeof value === 'number') return Number.isFinite(value) ? null : `${path}: ${value} is not a finite number`;
  if (typeof value === 'undefined') return `${path}: undefined`;
  if (typeof value === 'bigint') return `${path}: a bigint`;
  if (typeof value === 'function') return `${path}: a function`;
  if (typeof value === 'symbol') return `${path}: a symbol`;
  const object = value as object;
  if (seen.has(object)) return `${path}: a circular reference`;
  if (typeof (object as { toJSON?: unknown }).toJSON === 'function') {
    return reasonAt((object as { toJSON(): unknown }).toJSON(), path, seen);
  }
  seen.add(object);
  try {
    if (Array.isArray(object)) {
      for (let i = 0; i < object.length; i++) {
        const reason = reasonAt(object[i], `${path}[${i}]`, seen);
        if (reason) return reason;
      }
      return null;
    }
    const proto = Object.getPrototypeOf(object) as object | null;
    if (proto !== Object.prototype && proto !== null) {
      const name = (object as { constructor?: { name?: string } }).constructor?.name || 'object';
      return `${path}: a ${name} instance (return a plain object, or give the class a toJSON())`;
    }
    for (const [key, item] of Object.entries(object)) {
      if (item === undefined) continue;
      const reason = reasonAt(item, `${path}.${key}`, seen);
      if (reason) return reason;
    }
    return null;
  } finally {
    seen.delete(object);
  }
}

/** True for a plain object (not an array, not a class instance). */
export function isPlainObject(value: unknown): value is JsonRecord {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as object | null;
  return proto === Object.prototype || proto === null;
}

/** The JSON form of a value already known to be JSON (what a reader of the stored copy gets back). */
export function jsonForm<T = JsonValue>(value: unknown): T {
  return JSON.parse(JSON.stringify(value ?? null)) as T;
}
