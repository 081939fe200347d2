import * as assert from 'uvu/assert';
import { createHmac } from 'node:crypto';
import { suite } from '../../test-support/uvu.js';
import { doc } from '../../generated/schemas/ui.js';
import { ConfigError } from '../errors.js';
import { newAuthFile, parseAuthFile } from './auth-file.js';
import { ROUTE_ROLES, requiredRole, roleAllows } from './roles.js';
import { issueSession, readSession } from './session.js';
import { addUser, removeUser, setPassword, setRole, signOutEverywhere } from './users.js';

const test = suite('local UI: users, roles, session generations');
const secret = 'ab'.repeat(32);

test('every write route of the contract has a role in ROUTE_ROLES, and every listed route exists', () => {
  const writes: string[] = [];
  for (const [route, item] of Object.entries((doc as { paths: Record<string, Record<string, unknown>> }).paths)) {
    for (const method of Object.keys(item)) if (['post', 'put', 'patch', 'delete'].includes(method)) writes.push(`${method.toUpperCase()} ${route}`);
  }
  const open = ['POST /api/auth/login'];
  assert.equal(writes.filter((key) => !open.includes(key)).sort(), Object.keys(ROUTE_ROLES).sort());
  assert.is(requiredRole('GET', 'GET /api/overview'), 'viewer');
  assert.is(requiredRole('DELETE', 'DELETE /api/nothing'), 'admin', 'an unlisted write needs admin');
  assert.ok(roleAllows('admin', 'approver'));
  assert.not.ok(roleAllows('approver', 'admin'));
  assert.not.ok(roleAllows('viewer', 'approver'));
});

test('a version 1 auth file reads as one admin at generation 0; malformed users are refused', () => {
  const v1 = { version: 1, username: 'ops', password_hash: 'scrypt$x', session_secret: secret, created_at: '2026-01-01T00:00:00Z' };
  const read = parseAuthFile(JSON.stringify(v1), 'auth.json');
  assert.equal(read.users, [{ username: 'ops', role: 'admin', password_hash: 'scrypt$x', generation: 0, created_at: '2026-01-01T00:00:00Z' }]);
  assert.is(read.version, 2);
  for (const users of [[{ username: 'a', role: 'owner', password_hash: 'h', generation: 0 }], [{ username: 'a', role: 'admin', password_hash: 'h' }], 'x']) {
    assert.throws(() => parseAuthFile(JSON.stringify({ version: 2, session_secret: secret, users }), 'auth.json'), /not a version 1 or 2 auth file/);
  }
  const twice = [0, 1].map(() => ({ username: 'a', role: 'admin', password_hash: 'h', generation: 0 }));
  assert.throws(() => parseAuthFile(JSON.stringify({ version: 2, session_secret: secret, users: twice }), 'auth.json'));
});

test('user changes: the last admin stays; what takes power away raises the generation', async () => {
  let file = await newAuthFile('root', 'correct horse');
  file = await addUser(file, 'bob', 'correct horse', 'approver');
  await addUser(file, 'bob', 'correct horse', 'viewer').then(
    () => assert.unreachable(),
    (error: unknown) => assert.match(String(error), /already exists/),
  );
  assert.throws(
    () => removeUser(file, 'root'),
    (error: unknown) => error instanceof ConfigError && /last admin/.test(error.message),
  );
  assert.throws(() => setRole(file, 'root', 'viewer'), /refusing to demote 'root': it is the last admin/);
  assert.throws(() => removeUser(file, 'zed'), /no UI user 'zed' \(users: root, bob\)/);
  const demoted = setRole(file, 'bob', 'viewer');
  assert.equal(
    demoted.users.map((u) => [u.username, u.role, u.generation]),
    [
      ['root', 'admin', 0],
      ['bob', 'viewer', 1],
    ],
  );
  assert.is(setRole(demoted, 'bob', 'viewer'), demoted, 'no change, no new generation');
  assert.is(signOutEverywhere(demoted, 'bob').users[1]!.generation, 2);
  assert.is((await setPassword(demoted, 'bob', 'a new password')).users[1]!.generation, 2);
  const promoted = setRole(file, 'bob', 'admin');
  assert.equal(
    removeUser(promoted, 'root').users.map((u) => u.username),
    ['bob'],
  );
});

test('a session carries the generation; one written before generations reads as generation 0', () => {
  const now = Date.now();
  assert.equal(readSession(issueSession('bob', secret, now, 60, 3), secret, now), { username: 'bob', generation: 3 });
  // The cookie format before issue 50: {u, exp} only.
  const payload = Buffer.from(JSON.stringify({ u: 'ops', exp: Math.floor(now / 1000) + 60 })).toString('base64url');
  const old = `${payload}.${createHmac('sha256', Buffer.from(secret, 'hex')).update(payload).digest('base64url')}`;
  assert.equal(readSession(old, secret, now), { username: 'ops', generation: 0 });
});

test.run();
