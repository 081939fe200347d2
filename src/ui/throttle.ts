/**
 * Login throttling per client address: 5 failed logins within 5 minutes start a cooldown of 60 s, which doubles on
 * each further failure after it (up to 1 hour). While cooling down every login is refused with the seconds left
 * (`Retry-After`), even with the right password, so guessing gains nothing. A success clears the address.
 */
export interface ThrottleOptions {
  maxFailures?: number;
  windowMs?: number;
  baseCooldownMs?: number;
  maxCooldownMs?: number;
  now?: () => number;
}

interface Entry {
  failures: number[];
  cooldownMs: number;
  blockedUntil: number;
}

export class LoginThrottle {
  private readonly entries = new Map<string, Entry>();
  private readonly maxFailures: number;
  private readonly windowMs: number;
  private readonly baseCooldownMs: number;
  private readonly maxCooldownMs: number;
  private readonly now: () => number;

  constructor(options: ThrottleOptions = {}) {
    this.maxFailures = options.maxFailures ?? 5;
    this.windowMs = options.windowMs ?? 300_000;
    this.baseCooldownMs = options.baseCooldownMs ?? 60_000;
    this.maxCooldownMs = options.maxCooldownMs ?? 3_600_000;
    this.now = options.now ?? Date.now;
  }

  /** Seconds the client must wait before trying again, or 0 when it may try now. */
  retryAfter(client: string): number {
    const entry = this.entries.get(client);
    if (!entry) return 0;
    const left = entry.blockedUntil - this.now();
    return left > 0 ? Math.ceil(left / 1000) : 0;
  }

  /** Record a failed login. */
  fail(client: string): void {
    const now = this.now();
    const entry = this.entries.get(client) ?? { failures: [], cooldownMs: 0, blockedUntil: 0 };
    entry.failures = entry.failures.filter((at) => now - at < this.windowMs);
    entry.failures.push(now);
    if (entry.failures.length >= this.maxFailures) {
      entry.cooldownMs = entry.cooldownMs === 0 ? this.baseCooldownMs : Math.min(entry.cooldownMs * 2, this.maxCooldownMs);
      entry.blockedUntil = now + entry.cooldownMs;
    }
    this.entries.set(client, entry);
    if (this.entries.size > 10_000) this.sweep(now);
  }

  /** A successful login: forget the client's failures. */
  succeed(client: string): void {
    this.entries.delete(client);
  }

  /** Bound memory: drop clients neither cooling down nor with failures in the window. */
  private sweep(now: number): void {
    for (const [client, entry] of this.entries) {
      if (entry.blockedUntil <= now && entry.failures.every((at) => now - at >= this.windowMs)) this.entries.delete(client);
    }
  }
}
