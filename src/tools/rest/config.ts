/**
 * REST tools from configuration: one object of the spec's fields (`RestToolConfig`, snake_case), or a JSON/YAML file
 * holding one, a list of them, or `{ tools: [...] }`. Configurations are checked against the contract's schema
 * first, so an unknown or mistyped field is an error naming the field and the tool, not a silently ignored key.
 */
import { readFile } from 'node:fs/promises';
import { parse as parseYaml } from 'yaml';
import { validator } from '../../../generated/schemas/resources.js';
import { ConfigError } from '../../errors.js';
import type { JsonObject } from '../../llm/messages.js';
import type { Resolver } from '../net/ssrf-guard.js';
import { currentToolRegistry, type ToolRegistry } from '../registry.js';
import type { BodyMapping } from './mapping.js';
import { RESTTool, type RestMethod, type RestToolConfig } from './rest-tool.js';

/** What code adds to a configuration: more allowed hosts, headers (merged over the file's), a resolver, a registry. */
export interface RestConfigOverrides {
  /** Merged over the configuration's headers (same `${NAME}` syntax). */
  headers?: Record<string, string>;
  /** Added to the configuration's `allow_hosts`. */
  allowHosts?: readonly string[];
  /** Where `${NAME}` header references are read from (default `process.env`). */
  env?: Record<string, string | undefined>;
  resolver?: Resolver;
  registry?: ToolRegistry | false;
}

/** Check `config` against RestToolConfig and build the tool. Throws ConfigError naming each offending field. */
export function restToolFromConfig(config: unknown, overrides: RestConfigOverrides = {}, where = 'REST tool configuration'): RESTTool {
  const check = validator('RestToolConfig');
  if (!check.Check(config)) {
    const [, errors] = check.Errors(config);
    const name = typeof (config as { name?: unknown })?.name === 'string' ? ` '${(config as { name: string }).name}'` : '';
    const problems = [...new Set(errors.map((e) => `${e.instancePath || '(root)'}: ${e.message}`))];
    throw new ConfigError(`${where}${name} is invalid: ${problems.join('; ')}`);
  }
  const c = config as RestToolConfig;
  return new RESTTool({
    name: c.name,
    ...(c.description !== undefined ? { description: c.description } : {}),
    url: c.url,
    ...(c.method !== undefined ? { method: c.method as RestMethod } : {}),
    headers: { ...(c.headers ?? {}), ...(overrides.headers ?? {}) },
    ...(c.body_mapping !== undefined ? { bodyMapping: c.body_mapping as BodyMapping } : {}),
    ...(c.parameters !== undefined ? { parameters: c.parameters as JsonObject } : {}),
    ...(c.replay_class !== undefined ? { replayClass: c.replay_class } : {}),
    allowHosts: [...(c.allow_hosts ?? []), ...(overrides.allowHosts ?? [])],
    ...(c.timeout_ms !== undefined ? { timeoutMs: c.timeout_ms } : {}),
    ...(c.max_response_bytes !== undefined ? { maxResponseBytes: c.max_response_bytes } : {}),
    ...(c.max_retries !== undefined ? { maxRetries: c.max_retries } : {}),
    ...(overrides.env ? { env: overrides.env } : {}),
    ...(overrides.resolver ? { resolver: overrides.resolver } : {}),
    ...(overrides.registry !== undefined ? { registry: overrides.registry } : {}),
  });
}

/**
 * Read REST tools from a `.json`, `.yaml` or `.yml` file: one configuration, a list, or `{ tools: [...] }`. Throws
 * ConfigError naming the file (and the tool and field) when it cannot be read, parsed or validated; no tool is
 * registered unless every configuration in the file is valid.
 */
export async function loadRestTools(path: string, overrides: RestConfigOverrides = {}): Promise<RESTTool[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new ConfigError(`cannot read REST tool file '${path}': ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  let document: unknown;
  try {
    document = /\.ya?ml$/i.test(path) ? parseYaml(text) : JSON.parse(text);
  } catch (error) {
    throw new ConfigError(
      `REST tool file '${path}' is not valid ${/\.ya?ml$/i.test(path) ? 'YAML' : 'JSON'}: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`,
    );
  }
  const list = Array.isArray(document) ? document : isObject(document) && Array.isArray(document.tools) ? document.tools : [document];
  // Build without registering first, so a bad entry late in the file leaves the registry untouched.
  const built = list.map((entry, index) => restToolFromConfig(entry, { ...overrides, registry: false }, `'${path}' entry ${index + 1}`));
  const names = new Set<string>();
  for (const tool of built) {
    if (names.has(tool.name)) throw new ConfigError(`REST tool file '${path}' defines '${tool.name}' twice`);
    names.add(tool.name);
  }
  if (overrides.registry !== false) for (const tool of built) (overrides.registry ?? currentToolRegistry()).register(tool);
  return built;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
