/**
 * A REST tool's headers: values may reference environment variables as `${NAME}`, resolved at each request (so a
 * rotated key is picked up and the definition never holds it). Every literal value and every resolved value (and
 * what each reference resolved to) is registered as a secret, and serialized forms carry `***` instead of any value.
 */
import { registerSecret } from '../../config/secrets.js';
import { ConfigError } from '../../errors.js';
import { ToolError } from '../tool-error.js';

export const REDACTED = '***';

const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;
const TEMPLATED = /\$\{[A-Za-z_][A-Za-z0-9_]*\}/;
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/**
 * Headers that describe content, never carry a credential, and hold values common in ordinary text
 * (`application/json`): registering those would mask them everywhere. They are still serialized as `***`.
 */
const DESCRIPTIVE = new Set(['accept', 'accept-language', 'accept-encoding', 'content-type', 'content-language', 'user-agent', 'cache-control']);

function register(name: string, value: string): void {
  if (!DESCRIPTIVE.has(name.toLowerCase())) registerSecret(value);
}

/** Check names and values (no CR/LF smuggling) and register literal values as secrets. Throws ConfigError. */
export function checkHeaders(toolName: string, headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (!TOKEN.test(name)) throw new ConfigError(`tool '${toolName}': header name ${JSON.stringify(name)} is not a valid HTTP header name`);
    // The value itself never goes into the message: it is likely a credential.
    if (typeof value !== 'string') throw new ConfigError(`tool '${toolName}': header '${name}' must have a string value`);
    if (/[\r\n\0]/.test(value)) throw new ConfigError(`tool '${toolName}': header '${name}' contains a line break or NUL`);
    // A templated value is registered once resolved (resolveHeaders); its literal parts are usually a scheme such as
    // "Bearer", which must not be masked everywhere.
    if (!TEMPLATED.test(value)) register(name, value);
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
      register(name, found);
      return found;
    });
    if (/[\r\n\0]/.test(value))
      throw new ToolError('tool_execution_error', `tool '${toolName}': header '${name}' resolves to a value with a line break or NUL`);
    register(name, value);
    out[name] = value;
  }
  return out;
}

/** The headers as they may be shown or stored: names kept, every value `***`. */
export function redactHeaders(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.keys(headers).map((name) => [name, REDACTED]));
}
