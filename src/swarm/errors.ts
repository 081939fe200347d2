import { AgentkitError } from '../errors.js';

/**
 * A Swarm was built wrongly (duplicate or unknown agent names, a negative `maxHandoffs`) or broke its own rules at
 * run time (a handoff beyond `maxHandoffs`, a handoff the allowlist does not permit). The message names the problem.
 */
export class SwarmError extends AgentkitError {
  constructor(message: string, options?: ErrorOptions) {
    super('swarm_error', message, options);
  }
}
