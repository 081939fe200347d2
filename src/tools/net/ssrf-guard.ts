/**
 * The SSRF guard: decides whether a host may be connected to, on the addresses it resolves to at connect time.
 * Used through `lookup` by the HTTP agents of SafeHttpClient, so the address that was vetted is the address that is
 * connected to (no second resolution a DNS-rebinding server could answer differently). IP literals never reach a
 * lookup, so callers vet them with `vetHost` before connecting.
 */
import type { LookupAddress } from 'node:dns';
import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { ToolError } from '../tool-error.js';
import { classifyAddress, isMetadataAddress, isMetadataHost, parseAddress } from './address-policy.js';
import { AllowList } from './allow-list.js';

/** Resolves a host name to its addresses (default: the system resolver, as Node's own connections use). */
export type Resolver = (hostname: string) => Promise<ReadonlyArray<{ address: string; family: number }>>;

export interface GuardOptions {
  /** Host names, IP addresses or CIDR ranges let through although they are not public (see AllowList). */
  allowHosts?: readonly string[];
  /** Replaces the system resolver (tests answer with private addresses without any network). */
  resolver?: Resolver;
}

const systemResolver: Resolver = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

export class SsrfGuard {
  readonly allowList: AllowList;
  private readonly resolver: Resolver;

  /** Throws ConfigError for an unusable allowHosts entry. */
  constructor(options: GuardOptions = {}) {
    this.allowList = new AllowList(options.allowHosts ?? []);
    this.resolver = options.resolver ?? systemResolver;
  }

  /** Whether `hostname` (a name or a literal, IPv6 with or without brackets) is an IP literal. */
  static isLiteral(hostname: string): boolean {
    return parseAddress(hostname) !== null;
  }

  /**
   * Resolve `hostname` (a literal resolves to itself) and return its addresses when every one of them may be
   * reached. Throws ToolError `ssrf_blocked` naming the host, the refused address and why; ToolError
   * `tool_execution_error` when the name does not resolve.
   */
  async vetHost(hostname: string): Promise<LookupAddress[]> {
    const host = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
    const literal = parseAddress(host);
    if (literal) {
      this.check(host, host, false);
      return [{ address: host, family: isIP(host) === 6 ? 6 : 4 }];
    }
    if (isMetadataHost(host) && !this.allowList.allowsName(host)) {
      throw new ToolError(
        'ssrf_blocked',
        `refused to connect to '${host}': it names a cloud metadata service; add it to allowHosts if this tool is meant to reach it`,
      );
    }
    let answers: ReadonlyArray<{ address: string; family: number }>;
    try {
      answers = await this.resolver(host);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException)?.code ?? (error instanceof Error ? error.message : String(error));
      throw new ToolError('tool_execution_error', `cannot resolve host '${host}': ${code}`, { cause: error });
    }
    if (answers.length === 0) throw new ToolError('tool_execution_error', `cannot resolve host '${host}': no addresses`);
    // Every answer must pass: a name that resolves to a public and a private address is refused, since the
    // connection could go to either.
    for (const answer of answers) this.check(host, answer.address, true);
    return answers.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
  }

  private check(host: string, address: string, resolved: boolean): void {
    if (this.allowList.allowsAddress(address)) return;
    if (resolved && this.allowList.allowsName(host) && !isMetadataAddress(address)) return;
    const verdict = classifyAddress(address);
    if (verdict.allowed) return;
    const where = resolved ? `'${host}' (resolves to ${address})` : `'${host}'`;
    throw new ToolError('ssrf_blocked', `refused to connect to ${where}: it is ${verdict.reason}; add it to allowHosts if this tool is meant to reach it`);
  }

  /** A `lookup` for http/https agents: connect only to addresses vetted by this guard. */
  readonly lookup = (hostname: string, options: { all?: boolean; family?: number | string }, callback: LookupCallback): void => {
    this.vetHost(hostname).then(
      (answers) => {
        const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : Number(options.family) || 0;
        const usable = family ? answers.filter((a) => a.family === family) : answers;
        if (usable.length === 0) {
          const error: NodeJS.ErrnoException = new Error(`cannot resolve host '${hostname}': no IPv${family} address`);
          error.code = 'ENOTFOUND';
          callback(error, '');
        } else if (options.all) callback(null, usable);
        else callback(null, usable[0]!.address, usable[0]!.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, ''),
    );
  };
}
