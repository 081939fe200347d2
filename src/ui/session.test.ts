import * as assert from 'uvu/assert';
import { suite } from '../../test-support/uvu.js';
import { cookie, csrfMatches, issueSession, parseCookies, verifySession } from './session.js';
import { LoginThrottle } from './throttle.js';
import { checkCredentials, hashPassword, verifyPassword } from './auth-file.js';
import { bindRefusal } from './server.js';
import { openerFor } from './open-browser.js';

const test = suite('local UI: sessions, CSRF, throttling, credentials');
const secret = 'ab'.repeat(32);

test('a session verifies with its secret until it expires; a tampered or foreign one never does', () => {
  const now = 1_700_000_000_000;
  const value = issueSession('alice', secret, now, 60);
  assert.is(verifySession(value, secret, now + 59_000), 'alice');
  assert.is(verifySession(value, secret, now + 60_000), null, 'expired');
  assert.is(verifySession(value, 'cd'.repeat(32), now), null, 'another secret');
  const [payload, mac] = value.split('.');
  const forged = Buffer.from(JSON.stringify({ u: 'admin', exp: now / 1000 + 60 })).toString('base64url');
  assert.is(verifySession(`${forged}.${mac}`, secret, now), null, 'payload swapped');
  assert.is(verifySession(`${payload}.`, secret, now), null);
  assert.is(verifySession(undefined, secret, now), null);
  assert.is(verifySession('garbage', secret, now), null);
});

test('CSRF: header and cookie must both be present and equal', () => {
  assert.ok(csrfMatches('abc', 'abc'));
  assert.not.ok(csrfMatches('abc', 'abd'));
  assert.not.ok(csrfMatches('', ''));
  assert.not.ok(csrfMatches(undefined, undefined));
  assert.not.ok(csrfMatches('abc', undefined));
});

test('cookies: parsed first-wins, written SameSite=Strict with HttpOnly only when asked', () => {
  assert.equal(parseCookies('a=1; b=x%20y; a=2; broken; c=%E0'), { a: '1', b: 'x y' });
  assert.is(cookie('s', 'v', { httpOnly: true, maxAge: 10 }), 's=v; Path=/; SameSite=Strict; Max-Age=10; HttpOnly');
  assert.is(cookie('c', 'v', { httpOnly: false, maxAge: 0 }), 'c=v; Path=/; SameSite=Strict; Max-Age=0');
});

test('throttle: 5 failures start a 60 s cooldown that doubles, capped at an hour; success clears it', () => {
  let now = 0;
  const throttle = new LoginThrottle({ now: () => now });
  for (let i = 0; i < 4; i++) throttle.fail('ip');
  assert.is(throttle.retryAfter('ip'), 0);
  throttle.fail('ip');
  assert.is(throttle.retryAfter('ip'), 60);
  assert.is(throttle.retryAfter('other'), 0, 'per client');
  now += 60_000;
  throttle.fail('ip');
  assert.is(throttle.retryAfter('ip'), 120);
  for (let i = 0; i < 10; i++) {
    now += 3_600_000;
    throttle.fail('ip');
  }
  assert.ok(throttle.retryAfter('ip') <= 3600);
  throttle.succeed('ip');
  assert.is(throttle.retryAfter('ip'), 0);
});

test('passwords: scrypt hash with a salt, verified in constant time; malformed hashes never match', async () => {
  const a = await hashPassword('correct horse');
  const b = await hashPassword('correct horse');
  assert.is.not(a, b, 'salted');
  assert.ok(await verifyPassword('correct horse', a));
  assert.not.ok(await verifyPassword('correct horsE', a));
  assert.not.ok(await verifyPassword('x', 'bcrypt$whatever'));
  assert.not.ok(await verifyPassword('x', 'scrypt$99999999$8$1$AA$AA'));
  assert.throws(() => checkCredentials('al ice', 'long enough'), /username 'al ice' is not allowed/);
  assert.throws(() => checkCredentials('alice', 'short'), /at least 8 characters/);
});

test('binds: loopback allowed, anything else refused unless acknowledged; a browser opens only with a display', () => {
  for (const host of ['127.0.0.1', 'localhost', '::1', '[::1]', '127.0.0.2']) assert.is(bindRefusal(host, false), null, host);
  assert.match(bindRefusal('0.0.0.0', false) ?? '', /--insecure-bind/);
  assert.match(bindRefusal('192.168.1.5', false) ?? '', /non-loopback address '192\.168\.1\.5'/);
  assert.is(bindRefusal('0.0.0.0', true), null);
  assert.is(openerFor('http://x', 'linux', {}), null);
  assert.equal(openerFor('http://x', 'linux', { DISPLAY: ':0' }), ['xdg-open', 'http://x']);
  assert.equal(openerFor('http://x', 'darwin', {}), ['open', 'http://x']);
});

test.run();
