/**
 * The Resume value: exactly `approved` and `metadata`. Unknown keys are dropped (their content is lost, as the spec
 * says), so a resumer that sends `{ approved: true, data: ... }` gets `{ approved: true, metadata: {} }` and non-approval
 * payload has one place to go: `metadata`.
 */
import { ValidationError } from '../errors.js';
import type { Resume } from '../types.js';
import { isPlainObject, nonJsonReason } from './json.js';

/**
 * Build a Resume from anything shaped like one: keeps `approved` (required boolean) and `metadata` (optional JSON
 * object, default `{}`), drops every other key. Throws ValidationError naming the field when the shape is wrong.
 */
export function toResume(value: unknown): Resume {
  if (!isPlainObject(value)) {
    throw new ValidationError('a resume value must be an object like {"approved": true, "metadata": {}}', [
      { path: '', message: `expected an object, got ${describe(value)}` },
    ]);
  }
  if (typeof value.approved !== 'boolean') {
    throw new ValidationError('a resume value needs a boolean "approved"', [
      { path: '/approved', message: `expected a boolean, got ${describe(value.approved)}` },
    ]);
  }
  const metadata = value.metadata ?? {};
  if (!isPlainObject(metadata)) {
    throw new ValidationError('"metadata" of a resume value must be an object', [
      { path: '/metadata', message: `expected an object, got ${describe(metadata)}` },
    ]);
  }
  const reason = nonJsonReason(metadata, '$.metadata');
  if (reason) {
    throw new ValidationError(`"metadata" of a resume value must be JSON (${reason})`, [{ path: '/metadata', message: reason }]);
  }
  return { approved: value.approved, metadata: { ...metadata } };
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'a non-plain object' : `${typeof value} ${JSON.stringify(value)}`;
}
