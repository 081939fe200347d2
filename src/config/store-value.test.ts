import * as assert from 'uvu/assert';
import path from 'node:path';
import { suite } from '../../test-support/uvu.js';
import { maskCredentials } from './redact.js';
import { agentkitDir, checkpointStore, localDbPath, localStore } from './paths.js';
import { isStoreUrl, parseStoreValue, redactStoreValue, storeLabel, storeValue } from './store-value.js';

const test = suite('config: a store named by one value');
const cwd = '/srv/app';

test('a path is resolved against the working directory; a URL is never a path', () => {
  assert.equal(parseStoreValue('data/local.db', cwd), { engine: 'sqlite', path: path.join(cwd, 'data/local.db') });
  assert.equal(parseStoreValue('/abs/x.db', cwd), { engine: 'sqlite', path: '/abs/x.db' });
  assert.equal(parseStoreValue('postgres://app@db:5432/prod', cwd), { engine: 'postgres', url: 'postgres://app@db:5432/prod', schema: 'agentkit' });
  assert.equal(parseStoreValue('postgresql://app:pw@db/prod?schema=team_a&sslmode=disable', cwd), {
    engine: 'postgres',
    url: 'postgresql://app:pw@db/prod?sslmode=disable',
    schema: 'team_a',
  });
  assert.ok(isStoreUrl(' postgres://x/y'));
  assert.not.ok(isStoreUrl('C:\\stores\\local.db'));
});

test('a bad schema, another scheme or an empty value is refused with one line that hides the password', () => {
  assert.throws(
    () => parseStoreValue('postgres://u:hunter2@h/db?schema=1bad', cwd),
    (e: Error & { code?: string }) => {
      return e.code === 'invalid_schema_name' && /"1bad"/.test(e.message) && !e.message.includes('hunter2');
    },
  );
  assert.throws(
    () => parseStoreValue('postgres://u:hunter2@h/db?schema=a;drop', cwd),
    (e: Error & { code?: string }) => e.code === 'invalid_schema_name',
  );
  assert.throws(
    () => parseStoreValue('mysql://u:hunter2@h/db', cwd),
    (e: Error & { code?: string }) =>
      e.code === 'config_error' && e.message === 'unsupported store mysql://u:[REDACTED]@h/db: a store is a file path (SQLite) or a postgres:// URL',
  );
  assert.throws(() => parseStoreValue('  ', cwd), /empty value/);
  assert.throws(
    () => parseStoreValue('postgres://u:hunter2@[bad/db', cwd),
    (e: Error) => /does not parse/.test(e.message) && !e.message.includes('hunter2'),
  );
});

test('labels and redaction show user, host, database and schema, never the password', () => {
  assert.is(redactStoreValue('postgres://app:s3cret@db:5432/prod?schema=x'), 'postgres://app:[REDACTED]@db:5432/prod?schema=x');
  assert.is(redactStoreValue('postgres://app@db/prod'), 'postgres://app@db/prod');
  assert.is(redactStoreValue('postgres://app:p%40ss@db/prod'), 'postgres://app:[REDACTED]@db/prod');
  assert.is(redactStoreValue('./local.db'), './local.db');
  const ref = parseStoreValue('postgres://app:s3cret@db:5432/prod?schema=team', cwd);
  assert.is(storeLabel(ref), 'postgres://app:[REDACTED]@db:5432/prod?schema=team');
  assert.equal(parseStoreValue(storeValue(ref), cwd), ref, 'storeValue names the same store again');
  assert.is(
    maskCredentials('cannot reach postgres://app:s3cret@db/prod'),
    'cannot reach postgres://app:[REDACTED]@db/prod',
    'the credential shape masks any URL password in observation copies',
  );
});

test('AGENTKIT_LOCAL_DB may be a path or a URL; what needs a file refuses a URL instead of resolving it', () => {
  const url = 'postgres://app:s3cret@db/prod?schema=fleet';
  assert.equal(localStore({ env: {}, cwd }), { engine: 'sqlite', path: path.join(cwd, '.agentkit/local.db') });
  assert.equal(localStore({ env: { AGENTKIT_LOCAL_DB: 'x.db' }, cwd }), { engine: 'sqlite', path: path.join(cwd, 'x.db') });
  assert.equal(localStore({ env: { AGENTKIT_LOCAL_DB: url }, cwd }), { engine: 'postgres', url: 'postgres://app:s3cret@db/prod', schema: 'fleet' });
  assert.throws(
    () => localDbPath({ env: { AGENTKIT_LOCAL_DB: url }, cwd }),
    (e: Error) => e.message === 'this needs a SQLite store file, but AGENTKIT_LOCAL_DB names a Postgres store (postgres://app:[REDACTED]@db/prod?schema=fleet)',
  );
  assert.is(agentkitDir({ env: { AGENTKIT_LOCAL_DB: url }, cwd }), path.join(cwd, '.agentkit'), 'what stays per host stays in the working directory');
});

test('the legacy AGENTKIT_CHECKPOINT_DB_PATH naming a file while the store is a URL is refused with one line', () => {
  const url = 'postgres://app:s3cret@db/prod';
  assert.throws(
    () => checkpointStore({ env: { AGENTKIT_LOCAL_DB: url, AGENTKIT_CHECKPOINT_DB_PATH: 'cp.db' }, cwd }),
    (e: Error) =>
      e.message ===
      'AGENTKIT_CHECKPOINT_DB_PATH names a file (cp.db) while AGENTKIT_LOCAL_DB names a Postgres store (postgres://app:[REDACTED]@db/prod); unset AGENTKIT_CHECKPOINT_DB_PATH so checkpoints and traces stay in one store',
  );
  assert.equal(
    checkpointStore({ env: { AGENTKIT_CHECKPOINT_DB_PATH: 'cp.db' }, cwd }),
    { engine: 'sqlite', path: path.join(cwd, 'cp.db') },
    'alone it is honoured',
  );
  assert.equal(checkpointStore({ env: { AGENTKIT_LOCAL_DB: 'a.db', AGENTKIT_CHECKPOINT_DB_PATH: 'cp.db' }, cwd }), {
    engine: 'sqlite',
    path: path.join(cwd, 'a.db'),
  });
});

test.run();
