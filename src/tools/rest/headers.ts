/**
 * A REST tool's headers: values may reference environment variables as `${NAME}`, resolved at each request (so a
 * rotated key is picked up and the definition never holds it). Every literal value and every resolved value is
 * registered as a secret, and serialized forms carry `***` instead of any value.
 */
import { registerSecret } from '../../config/secrets.js';
import { ConfigError } from '../../errors.js';
import { ToolError } from '../tool-error.js';

export const REDACTED = '***';

const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** Check names and values (no CR/LF smuggling) and register literal values as secrets. Throws ConfigError. */
export function checkHeaders(toolName: string, headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (!TOKEN.test(name)) throw new ConfigError(`tool '${toolName}': header name ${JSON.stringify(name)} is not a valid HTTP header name`);
    // The value itself never goes into the message: it is likely a credential.
    if (typeof value !== 'string') throw new ConfigError(`tool '${toolName}': header '${name}' must have a string value`);
    if (/[\r\n\0]/.test(value)) throw new ConfigError(`tool '${toolName}': header '${name}' contains a line break or NUL`);
    const literal = value.replace(REFERENCE, '\u0000').split('\u0000');
    for (const part of literal) registerSecret(part);
    registerSecret(value);
    out[name] = value;
  }
  return out;
}

/** The values to send: `${NAME}` replaced from `env`, every resolved value registered as a secret. */
export function resolveHeaders(toolName: string, headers: Record<string, string>, env: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, template] of Object.entries(headers)) {
    const value = template.replace(REFERENCE, (_match, variable: string) => {
      const found = env[variable];
      if (found === undefined || found === '') {
        throw new ToolError('tool_execution_error', `tool '${toolName}': header '${name}' references \${${variable}}, which is not set`);
      }
      registerSecret(found);
      return found;
    });
    if (/[\r\n\0]/.test(value)) throw new ToolError('tool_execution_error', `tool '${toolName}': header '${name}' resolves to a value with a line break or NUL`);
    registerSecret(value);
    out[name] = value;
  }
  return out;
}

/** The headers as they may be shown or stored: names kept, every value `***`. */
export function redactHeaders(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.keys(headers).map((name) => [name, REDACTED]));
}
