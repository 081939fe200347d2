/** A runner's `description` option (Agent, Chain, Swarm, Supervisor): what it does, for people and MCP clients. */
import { ConfigError } from '../errors.js';

/** The description trimmed, '' when absent; anything but a string is a ConfigError naming `runner`. */
export function describedAs(description: unknown, runner: string): string {
  if (description === undefined || description === null) return '';
  if (typeof description !== 'string') throw new ConfigError(`${runner}: description must be a string, not ${typeof description}`);
  return description.trim();
}
