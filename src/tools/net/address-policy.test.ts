import * as assert from 'uvu/assert';
import { suite } from '../../../test-support/uvu.js';
import { classifyAddress, isMetadataHost } from './address-policy.js';
import { AllowList } from './allow-list.js';

const test = suite('address policy');

const refused: Array<[string, RegExp]> = [
  ['127.0.0.1', /loopback/],
  ['127.255.0.9', /loopback/],
  ['::1', /loopback/],
  ['10.1.2.3', /private/],
  ['172.16.0.1', /private/],
  ['172.31.255.255', /private/],
  ['192.168.1.1', /private/],
  ['169.254.1.1', /link-local/],
  ['169.254.169.254', /cloud metadata/],
  ['fd00:ec2::254', /cloud metadata/],
  ['100.100.100.200', /cloud metadata/],
  ['100.64.0.1', /carrier-grade NAT/],
  ['224.0.0.1', /multicast/],
  ['ff02::1', /multicast/],
  ['0.0.0.0', /unspecified/],
  ['::', /unspecified/],
  ['255.255.255.255', /broadcast/],
  ['240.0.0.1', /reserved/],
  ['fe80::1', /link-local/],
  ['fc00::1', /unique-local/],
  ['::ffff:127.0.0.1', /loopback/],
  ['::ffff:10.0.0.1', /private/],
  ['::ffff:7f00:1', /loopback/],
  ['64:ff9b::a00:1', /embedding an IPv4/],
  ['2002:a00:1::', /embedding an IPv4/],
  // Literal forms ipaddr.js reads besides dotted decimal: one decimal number, octal and hex parts.
  ['2130706433', /loopback/],
  ['0177.0.0.1', /loopback/],
  ['0x7f.0.0.1', /loopback/],
  ['0x0a000001', /private/],
  ['example.com', /not an IP address/],
];

for (const [address, reason] of refused) {
  test(`refuses ${address}`, () => {
    const verdict = classifyAddress(address);
    assert.is(verdict.allowed, false);
    if (!verdict.allowed) assert.match(verdict.reason, reason);
  });
}

test('allows public unicast addresses, IPv4, IPv6 and IPv4-mapped', () => {
  for (const address of ['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8', '172.32.0.1', '100.128.0.1']) {
    assert.equal(classifyAddress(address), { allowed: true }, address);
  }
});

test('metadata host names are recognised whatever their case or trailing dot', () => {
  assert.ok(isMetadataHost('Metadata.Google.Internal.'));
  assert.not.ok(isMetadataHost('example.com'));
});

test('an allow list matches names, addresses and ranges; metadata only when listed exactly', () => {
  const list = new AllowList(['API.internal', '127.0.0.1', '10.20.0.0/16', '::1', '169.254.0.0/16']);
  assert.ok(list.allowsName('api.internal'));
  assert.ok(list.allowsName('api.internal.'));
  assert.not.ok(list.allowsName('other.internal'));
  assert.ok(list.allowsAddress('127.0.0.1'));
  assert.ok(list.allowsAddress('::ffff:127.0.0.1'));
  assert.not.ok(list.allowsAddress('127.0.0.2'));
  assert.ok(list.allowsAddress('10.20.3.4'));
  assert.not.ok(list.allowsAddress('10.21.0.1'));
  assert.ok(list.allowsAddress('::1'));
  assert.ok(list.allowsAddress('169.254.1.1'));
  assert.not.ok(list.allowsAddress('169.254.169.254'), 'a range does not open the metadata address');
  assert.ok(new AllowList(['169.254.169.254']).allowsAddress('169.254.169.254'));
});

test('an unusable allow list entry is a ConfigError naming it', () => {
  assert.throws(() => new AllowList(['10.0.0.0/99']), /allowHosts entry "10.0.0.0\/99" is not a valid CIDR range/);
  assert.throws(() => new AllowList(['bad host!']), /allowHosts entry "bad host!" is not a host name, an IP address or a CIDR range/);
});

test.run();
