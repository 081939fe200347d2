/**
 * `allowHosts`: the only way past the SSRF guard. Entries are host names (matched exactly, case-insensitively, no
 * wildcards), IP addresses, or CIDR ranges (`10.20.0.0/16`). A listed name lets every address it resolves to through;
 * a listed address or range lets those addresses through whatever name led to them. Metadata addresses pass only when
 * listed as addresses themselves, never through a name or a wider range.
 */
import ipaddr from 'ipaddr.js';
import { ConfigError } from '../../errors.js';
import { isMetadataAddress, parseAddress } from './address-policy.js';

export class AllowList {
  private readonly names = new Set<string>();
  private readonly exact = new Set<string>();
  private readonly ranges: Array<[ipaddr.IPv4 | ipaddr.IPv6, number]> = [];

  /** Throws ConfigError naming an entry that is neither a host name, an address nor a CIDR range. */
  constructor(entries: readonly string[] = []) {
    for (const raw of entries) {
      const entry = typeof raw === 'string' ? raw.trim() : '';
      if (entry.includes('/')) {
        try {
          const [base, bits] = ipaddr.parseCIDR(entry);
          const unwrapped = parseAddress(base.toString());
          this.ranges.push(unwrapped && unwrapped.kind() !== base.kind() ? [unwrapped, bits - 96] : [base, bits]);
        } catch {
          throw new ConfigError(`allowHosts entry ${JSON.stringify(raw)} is not a valid CIDR range`);
        }
        continue;
      }
      const address = parseAddress(entry);
      if (address) this.exact.add(address.toNormalizedString());
      else if (/^[A-Za-z0-9.-]+$/.test(entry) && entry.length <= 253) this.names.add(entry.toLowerCase().replace(/\.$/, ''));
      else throw new ConfigError(`allowHosts entry ${JSON.stringify(raw)} is not a host name, an IP address or a CIDR range`);
    }
  }

  get empty(): boolean {
    return this.names.size === 0 && this.exact.size === 0 && this.ranges.length === 0;
  }

  /** Whether the host name is listed. */
  allowsName(hostname: string): boolean {
    return this.names.has(hostname.toLowerCase().replace(/\.$/, ''));
  }

  /** Whether `address` is listed itself or lies in a listed range (metadata addresses only when listed exactly). */
  allowsAddress(address: string): boolean {
    const parsed = parseAddress(address);
    if (!parsed) return false;
    if (this.exact.has(parsed.toNormalizedString())) return true;
    if (isMetadataAddress(address)) return false;
    return this.ranges.some(([base, bits]) => base.kind() === parsed.kind() && parsed.match(base, bits));
  }
}
