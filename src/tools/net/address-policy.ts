/**
 * Which addresses an outbound tool call may reach. Everything that is not ordinary public unicast is refused:
 * loopback, private (RFC 1918, IPv6 unique-local), link-local, carrier-grade NAT, multicast, broadcast, reserved,
 * unspecified, IPv6 transition forms that embed an IPv4 address, and cloud metadata endpoints. IPv4-mapped IPv6
 * addresses are judged as the IPv4 address they carry. Parsing and range tables come from ipaddr.js.
 */
import ipaddr from 'ipaddr.js';

export type AddressVerdict = { allowed: true } | { allowed: false; reason: string };

/** Why each ipaddr.js range is refused, in words for an error message. */
const RANGE_REASONS: Record<string, string> = {
  unspecified: 'an unspecified address',
  broadcast: 'a broadcast address',
  multicast: 'a multicast address',
  linkLocal: 'a link-local address',
  loopback: 'a loopback address',
  carrierGradeNat: 'a carrier-grade NAT address',
  private: 'a private address',
  uniqueLocal: 'a private (unique-local) address',
  reserved: 'a reserved address',
  as112: 'a reserved (AS112) address',
  as112v6: 'a reserved (AS112) address',
  amt: 'a reserved (AMT) address',
  benchmarking: 'a reserved (benchmarking) address',
  deprecated: 'a reserved address',
  deprecatedSiteLocal: 'a private (site-local) address',
  discard: 'a reserved (discard) address',
  orchid2: 'a reserved (ORCHID) address',
  deprecatedOrchid: 'a reserved (ORCHID) address',
  droneRemoteIdProtocolEntityTags: 'a reserved address',
  segmentRouting: 'a reserved (segment routing) address',
  rfc6145: 'an IPv6 transition address embedding an IPv4 address',
  rfc6052: 'an IPv6 transition address embedding an IPv4 address',
  '6to4': 'an IPv6 transition address embedding an IPv4 address',
  teredo: 'an IPv6 transition address embedding an IPv4 address',
  ipv4Mapped: 'an IPv4-mapped address',
};

/**
 * Metadata services of cloud providers. Most already fall in a refused range (169.254/16, fd00::/8, 100.64/10); they
 * are listed so the reason says what they are, and so an allowlisted private range does not open them by accident.
 */
const METADATA_ADDRESSES = new Set(['169.254.169.254', '169.254.170.2', '169.254.169.253', '100.100.100.200', '192.0.0.192', 'fd00:ec2::254']);

/** Host names that name a metadata service whatever they resolve to. */
const METADATA_HOSTS = new Set(['metadata.google.internal', 'metadata.goog', 'metadata', 'instance-data', 'instance-data.ec2.internal']);

/** Parse an IP literal (any form ipaddr.js reads), unwrapping IPv4-mapped IPv6; null when it is not an address. */
export function parseAddress(address: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  if (!ipaddr.isValid(bare)) return null;
  const parsed = ipaddr.parse(bare);
  return parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress() ? (parsed as ipaddr.IPv6).toIPv4Address() : parsed;
}

/** The normal text form of an address (IPv4-mapped IPv6 as its IPv4 address). */
export function normalAddress(address: string): string | null {
  return parseAddress(address)?.toNormalizedString() ?? null;
}

/** Whether `address` is a cloud metadata endpoint. */
export function isMetadataAddress(address: string): boolean {
  const parsed = parseAddress(address);
  return parsed !== null && METADATA_ADDRESSES.has(parsed.kind() === 'ipv6' ? parsed.toString() : parsed.toNormalizedString());
}

/** Whether `hostname` names a cloud metadata service. */
export function isMetadataHost(hostname: string): boolean {
  return METADATA_HOSTS.has(hostname.toLowerCase().replace(/\.$/, ''));
}

/** Judge one IP address (a literal; a name is refused as not an address). */
export function classifyAddress(address: string): AddressVerdict {
  const parsed = parseAddress(address);
  if (!parsed) return { allowed: false, reason: 'not an IP address' };
  if (isMetadataAddress(address)) return { allowed: false, reason: 'a cloud metadata address' };
  const range = parsed.range();
  if (range === 'unicast') return { allowed: true };
  return { allowed: false, reason: RANGE_REASONS[range] ?? `a special-purpose address (${range})` };
}
