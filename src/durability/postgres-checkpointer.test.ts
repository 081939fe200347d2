import * as assert from 'uvu/assert';
import { suite } from '../../test-support/uvu.js';
import { ConfigError } from '../errors.js';
import { InvalidSchemaNameError } from './errors.js';
import { PostgresCheckpointer } from './postgres-checkpointer.js';
import { validateSchemaName } from './schema-name.js';

const test = suite('PostgresCheckpointer (no server)');
// Nothing listens on port 1: any attempt to run SQL would fail with a connection error instead of the expected one.
const nowhere = 'postgres://postgres@127.0.0.1:1/none';

test('schema names must be plain identifiers, checked before any SQL or connection', () => {
  for (const schema of ['agentkit', 'A', '_x9', 'tenant_42']) assert.is(validateSchemaName(schema), schema);
  for (const schema of ['', '9lives', 'a-b', 'a.b', 'agentkit; DROP SCHEMA public', '"quoted"', 'ünï', 'a b']) {
    try {
      new PostgresCheckpointer(nowhere, { schema });
      assert.unreachable(`accepted ${schema}`);
    } catch (error) {
      assert.instance(error, InvalidSchemaNameError);
      assert.is((error as InvalidSchemaNameError).code, 'invalid_schema_name');
      assert.is((error as InvalidSchemaNameError).exitCode, 2);
      assert.match((error as Error).message, `invalid Postgres schema name ${JSON.stringify(schema)}: it must match [A-Za-z_][A-Za-z0-9_]*`);
    }
  }
});

test('defaults: schema agentkit; pool sizes are checked', async () => {
  const checkpointer = new PostgresCheckpointer(nowhere);
  assert.is(checkpointer.schema, 'agentkit');
  await checkpointer.close();
  for (const sizes of [{ minPoolSize: 3, maxPoolSize: 2 }, { maxPoolSize: 0 }, { minPoolSize: -1 }, { minPoolSize: 1.5 }]) {
    assert.throws(
      () => new PostgresCheckpointer(nowhere, sizes),
      (error: unknown) => error instanceof ConfigError && /invalid Postgres pool size/.test((error as Error).message),
    );
  }
  assert.throws(
    () => new PostgresCheckpointer(''),
    (error: unknown) => error instanceof ConfigError,
  );
});

test.run();
