/**
 * REST tools from configuration: one object of the spec's fields (`RestToolConfig`, snake_case), or a JSON/YAML file
 * holding one, a list of them, or `{ tools: [...] }`. Configurations are checked against the contract's schema
 * first, so an unknown or mistyped field is an error naming the field and the tool, not a silently ignored key.
 */
import { readFile } from 'node:fs/promises';
import { parse as parseYaml } from 'yaml';
import { ConfigError } from '../../errors.js';
import { currentToolRegistry } from '../registry.js';
import { restToolOptions, type RestConfigOverrides } from './options.js';
import { RESTTool } from './rest-tool.js';

export type { RestConfigOverrides };

/** Check `config` against RestToolConfig and build the tool. Throws ConfigError naming each offending field. */
export function restToolFromConfig(config: unknown, overrides: RestConfigOverrides = {}, where = 'REST tool configuration'): RESTTool {
  return new RESTTool(restToolOptions(config, overrides, where));
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
