/**
 * Credential shapes (docs/adr/0010): each documented token format is masked wherever an observation copy is made; text
 * that merely resembles one is left alone (the false-positive policy).
 */
import * as assert from 'uvu/assert';
import { suite } from '../../test-support/uvu.js';
import { AgentkitError } from '../errors.js';
import { CREDENTIAL_SHAPES, maskCredentialShapes, mayHoldCredentialShape } from './credential-shapes.js';
import { describeErrorSafely, maskCredentials, redactText } from './redact.js';
import { registerSecret } from './secrets.js';

const test = suite('config: credential shapes');

const TOKENS: Record<string, string> = {
  'github-token': 'ghp_R4nd0mL00k1ngT0k3nF0rT3st1ngOnly00001',
  'github-oauth': 'gho_16C7e42F292c6912E7710c838347Ae178B4a00',
  'github-pat': 'github_pat_11ABCDEFG0abcdefghijkl_mnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUV',
  'slack-bot': 'xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx',
  'slack-app': 'xapp-1-A0123456789-1234567890123-abcdef0123456789',
  'aws-access-key-id': 'AKIAIOSFODNN7EXAMPLE',
  'aws-temporary': 'ASIAY34FZKBOKMUTVV7A',
  jwt: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1c2VyLTQyIiwicm9sZSI6ImFkbWluIn0.c2lnbmF0dXJlLW5vdC1yZWFsLTAxMjM0NTY3',
  'jwt-unsigned': 'eyJhbGciOiJub25lIn0.eyJzdWIiOiJ1c2VyLTQyIn0.',
  openai: 'sk-proj-L34k3dK3yF0rT3st1ngOnly0123456789',
  anthropic: 'sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789',
  xai: 'xai-AbCdEfGhIjKlMnOpQrSt',
  groq: 'gsk_AbCdEfGhIjKlMnOpQrStUv',
  'agentkit-platform': 'akp_0a1b2c3d_dFJX4HrTnRc-GuLm8otD_i3Ey2NjCPEd97lEzhRTW40',
  'url-password': 'postgres://app:s3cretPw@db.internal:5432/prod',
};

test('every documented shape is masked, inside text and at its edges', () => {
  for (const [kind, token] of Object.entries(TOKENS)) {
    for (const text of [token, `before ${token} after`, `"${token}"`, `key=${token};`, `(${token})`]) {
      const masked = maskCredentialShapes(text);
      assert.not.ok(masked.includes(token), `${kind} survives in ${JSON.stringify(text)}: ${masked}`);
      assert.ok(masked.includes('[REDACTED]'), kind);
    }
  }
  assert.is(maskCredentialShapes('Authorization: Bearer abc.def-ghi_jkl'), 'Authorization: Bearer [REDACTED]', 'the scheme word stays');
  assert.is(maskCredentialShapes('Basic dXNlcjpwYXNzd29yZA=='), 'Basic [REDACTED]');
  assert.is(CREDENTIAL_SHAPES.length, 12);
  assert.is(maskCredentialShapes('postgres://app:pw@db/prod?schema=x'), 'postgres://app:[REDACTED]@db/prod?schema=x', 'user and host stay');
  assert.is(maskCredentialShapes('https://example.com/a:b@c'), 'https://example.com/a:b@c', 'a colon in a path is no password');
});

test('lookalikes are left alone (the false-positive policy)', () => {
  const ordinary = [
    'we use sk-learn and sk-image for the models',
    'a Bearer token goes in the header',
    'Basic auth is off',
    'trace 4bf92f3577b34da6a3ce929d0e0e4736, span 00f067aa0ba902b7',
    'execution 3f2a9c1e-5b7d-4e8f-9a0b-1c2d3e4f5a6b',
    'ghp_short and gho_alsoShort',
    'xoxb-short',
    'AKIA1234 and AKIAIOSFODNN7EXAMPLEX (17 after the prefix)',
    'SGVsbG8gd29ybGQ= is base64, eyJzdWIiOiIxIn0 alone is no JWT',
    'the task-0123456789abcdefgh and ask-0123456789abcdefgh ids',
    'gh_pages, github_pat_ alone, xapp-x-y',
  ];
  for (const text of ordinary) assert.is(maskCredentialShapes(text), text, text);
});

test('the prefix test is a sound shortcut: no prefix, no mask', () => {
  assert.not.ok(mayHoldCredentialShape('plain text, order 42, 50 USD'));
  for (const token of Object.values(TOKENS)) assert.ok(mayHoldCredentialShape(token), token);
});

test('observation copies mask shapes and registered secrets; redactText stays registered-only', () => {
  registerSecret('registered-value-0007');
  const text = `key registered-value-0007 and ${TOKENS.openai}`;
  assert.is(maskCredentials(text), 'key [REDACTED] and [REDACTED]');
  assert.is(redactText(text), `key [REDACTED] and ${TOKENS.openai}`, 'what runs read (checkpoints) masks registered secrets only');
  assert.is(describeErrorSafely(new Error(`provider said ${TOKENS.jwt}`)), 'Error: provider said [REDACTED]');
  const error = new AgentkitError('llm_provider_error', `HTTP 401: bad key ${TOKENS.openai}, token ${TOKENS['github-token']}`);
  assert.is(error.message, 'HTTP 401: bad key [REDACTED], token [REDACTED]', 'an agentkit error never carries one');
});

test.run();
