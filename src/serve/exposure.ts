/** Whether a bind address is reachable only from this machine, and the startup warning when it is not. */
import { isLoopback } from '../http/loopback.js';

export { isLoopback };

/**
 * The warning printed at startup, or null when there is nothing to warn about. Non-loopback without a token is
 * dangerous: anyone who can reach the port can run the agent (and spend its tokens, call its tools).
 */
export function exposureWarning(host: string, hasToken: boolean): string | null {
  if (isLoopback(host)) return null;
  if (!hasToken) {
    return (
      `WARNING: serving on a non-loopback address (${host}) with NO authentication: anyone who can reach this ` +
      'port can run the agent and its tools. Set --auth-token or AGENTKIT_SERVE_TOKEN, and terminate TLS at a reverse proxy.'
    );
  }
  return `note: serving on ${host} with a bearer token; the token travels in clear text unless a reverse proxy terminates TLS.`;
}
