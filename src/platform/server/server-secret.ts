/**
 * The server secret API keys are HMACed with (ADR 0067). `AGENTKIT_PLATFORM_SECRET` (64 hex characters) wins when
 * set, so an operator can keep it out of the database; otherwise each store keeps its own, made on first use.
 */
import { ConfigError } from '../../errors.js';

/** The secret `AGENTKIT_PLATFORM_SECRET` names, or null; ConfigError when it is set but not 32+ bytes of hex. */
export function envSecret(): Buffer | null {
  const value = process.env.AGENTKIT_PLATFORM_SECRET?.trim();
  if (!value) return null;
  if (!/^(?:[0-9a-fA-F]{2}){32,}$/.test(value)) {
    throw new ConfigError('AGENTKIT_PLATFORM_SECRET must be at least 64 hex characters (32 bytes), e.g. the output of `openssl rand -hex 32`');
  }
  return Buffer.from(value, 'hex');
}
