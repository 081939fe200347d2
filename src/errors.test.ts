import * as assert from 'uvu/assert';
import { suite } from '../test-support/uvu.js';
import { errorCodes, httpErrors } from '../generated/errors.js';
import { AgentkitError, ConfigError, NotFoundError, ValidationError, errorBody, errorTable, toError } from './errors.js';

const test = suite('errors');

test('every HTTP error model of the contract has the status the error table gives its code', () => {
  assert.ok(httpErrors.length > 20, 'the generated table lists the error models');
  for (const row of httpErrors) {
    assert.is(errorTable[row.code].status, row.status, `${row.service} ${row.model} (${row.code})`);
  }
});

test('the error table maps exactly the contract codes', () => {
  assert.equal(Object.keys(errorTable).sort(), [...errorCodes].sort());
});

test('errors name themselves after their class and carry code, status and exit code', () => {
  const error = new NotFoundError('execution_not_found', "Execution 'x' not found");
  assert.is(error.name, 'NotFoundError');
  assert.is(error.code, 'execution_not_found');
  assert.is(error.status, 404);
  assert.is(error.exitCode, 1);
  assert.ok(error instanceof AgentkitError);
  assert.equal(errorBody(error), { detail: "Execution 'x' not found", code: 'execution_not_found' });
  const config = new ConfigError('bad option');
  assert.is(config.name, 'ConfigError');
  assert.is(config.exitCode, 2);
  const validation = new ValidationError('bad', [{ path: '/input', message: 'must be string' }]);
  assert.is(validation.status, 400);
  assert.equal(validation.issues, [{ path: '/input', message: 'must be string' }]);
});

test('toError keeps errors and wraps anything else', () => {
  const original = new Error('x');
  assert.is(toError(original), original);
  assert.is(toError('text').message, 'text');
  assert.is(toError({ a: 1 }).message, '{"a":1}');
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  assert.is(toError(cyclic).message, '[object Object]');
});

test.run();
