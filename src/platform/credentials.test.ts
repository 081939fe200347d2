import * as assert from 'uvu/assert';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { suite } from '../../test-support/uvu.js';
import { knownSecrets } from '../config/secrets.js';
import { ConfigError } from '../errors.js';
import { credentialsPath, loadCredentials, maskKey, normalizeTarget, readCredentialsFile, writeCredentialsFile } from './credentials.js';

const test = suite('platform credentials');

function home(): string {
  return mkdtempSync(path.join(tmpdir(), 'agentkit-creds-'));
}

test('write then load: 0600 file in a 0700 folder, no temp file left, the key registered as a secret', () => {
  const dir = home();
  try {
    const file = writeCredentialsFile({ apiKey: 'ak_unit_0123456789', target: 'http://127.0.0.1:9/', project: null }, { home: dir });
    assert.is(file, credentialsPath({ home: dir }));
    assert.is(statSync(file).mode & 0o777, 0o600);
    assert.is(statSync(path.dirname(file)).mode & 0o777, 0o700);
    assert.equal(readdirSync(path.dirname(file)), ['credentials.toml']);
    assert.equal(loadCredentials({ home: dir, env: {} }), { source: 'file', apiKey: 'ak_unit_0123456789', target: 'http://127.0.0.1:9', project: null });
    assert.ok(knownSecrets().includes('ak_unit_0123456789'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a malformed file is a one-line ConfigError naming it; with the key in the environment it is only ignored', () => {
  const dir = home();
  try {
    mkdirSync(path.join(dir, '.agentkit'));
    writeFileSync(path.join(dir, '.agentkit', 'credentials.toml'), 'api_key = "unterminated\n');
    const error = (() => {
      try {
        readCredentialsFile({ home: dir });
      } catch (e) {
        return e;
      }
    })();
    assert.instance(error, ConfigError);
    assert.match((error as Error).message, /^cannot read .*credentials\.toml: .*; run `agentkit connect` again$/);
    assert.not.match((error as Error).message, /\n/);
    assert.equal(loadCredentials({ home: dir, env: { AGENTKIT_API_KEY: 'ak_env_key_0000' } })?.source, 'env');
    writeFileSync(path.join(dir, '.agentkit', 'credentials.toml'), 'target = "http://x"\n');
    assert.throws(() => loadCredentials({ home: dir, env: {} }), /holds no api_key/);
    assert.is(loadCredentials({ home: home(), env: {} }), null, 'no file, no env: not connected');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('targets: http(s) only, no credentials, query or fragment; masking', () => {
  assert.is(normalizeTarget(' https://platform.example.com/base/ '), 'https://platform.example.com/base');
  for (const bad of ['ftp://x', 'not a url', 'http://user:pw@host', 'http://host/?q=1', 'http://host/#f']) {
    assert.throws(
      () => normalizeTarget(bad),
      (e: unknown) => e instanceof ConfigError && !(e as Error).message.includes('pw'),
      bad,
    );
  }
  assert.is(maskKey('ak_live_0123456789abcdef'), 'ak_liv…cdef');
  assert.is(maskKey('short_key_12'), '…12');
});

test.run();
