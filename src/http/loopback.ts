/** Whether a bind address is loopback: what every agentkit server (served agent, UI, Platform) binds by default. */
import { isIP } from 'node:net';

/** True for `localhost`, 127.0.0.0/8 and `::1` (also IPv4-mapped). */
export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost') return true;
  if (isIP(h) === 4) return h.startsWith('127.');
  if (isIP(h) === 6) return h === '::1' || /^::ffff:127\./.test(h);
  return false;
}
