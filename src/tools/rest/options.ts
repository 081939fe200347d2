/**
 * A REST tool's options and how a configuration (the spec's `RestToolConfig`, snake_case) becomes them. Below both
 * `rest-tool.ts` (the tool) and `config.ts` (files of configurations), so each builds from here and neither imports
 * the other's way round.
 */
import { validator } from '../../../generated/schemas/resources.js';
import type { RestToolConfig } from '../../../generated/types/resources.js';
import { ConfigError } from '../../errors.js';
import type { JsonObject } from '../../llm/messages.js';
import type { Resolver } from '../net/ssrf-guard.js';
import type { ToolRegistry } from '../registry.js';
import type { ReplayClass } from '../replay-class.js';
import type { BodyMapping } from './mapping.js';

export const REST_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'] as const;
export type RestMethod = (typeof REST_METHODS)[number];

export interface RESTToolOptions {
  name: string;
  description?: string;
  /** May contain `{placeholder}` path segments for `path_params`. */
  url: string;
  /** Default GET. */
  method?: RestMethod | Lowercase<RestMethod>;
  /** Values may reference environment variables as `${NAME}`, resolved at each request. */
  headers?: Record<string, string>;
  /** Default `query_params` for GET, HEAD and DELETE, `json_body` otherwise. */
  bodyMapping?: BodyMapping;
  /** JSON schema of the arguments. Default: each URL placeholder a required string (no arguments without any). */
  parameters?: JsonObject;
  replayClass?: ReplayClass;
  /** Host names, IP addresses or CIDR ranges the tool may reach although they are not public. */
  allowHosts?: readonly string[];
  /** Time limit of one attempt in ms (default 30 s). */
  timeoutMs?: number;
  /** Responses larger than this fail the call (default 25 MiB). */
  maxResponseBytes?: number;
  /** Attempts after the first on a network failure, 429 or 5xx, when retrying is safe (default 2). */
  maxRetries?: number;
  /**
   * Also send the run's W3C `baggage` (default false). Every call carries the `traceparent` and `tracestate` of its
   * tool span; baggage only to tools that opt in (docs/adr/0009), and never past a cross-origin redirect.
   */
  propagateBaggage?: boolean;
  /** Delay before the first retry in ms, doubled each time (default 200). */
  retryDelayMs?: number;
  /** Where `${NAME}` header references are read from (default `process.env`). */
  env?: Record<string, string | undefined>;
  /** Replaces the system resolver of the SSRF guard. */
  resolver?: Resolver;
  /** Registry to join (default: the current one); `false` to join none. */
  registry?: ToolRegistry | false;
}

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

/**
 * Check `config` against RestToolConfig and turn it into a tool's options, `overrides` merged in. Throws ConfigError
 * naming each offending field.
 */
export function restToolOptions(config: unknown, overrides: RestConfigOverrides = {}, where = 'REST tool configuration'): RESTToolOptions {
  const check = validator('RestToolConfig');
  if (!check.Check(config)) {
    const [, errors] = check.Errors(config);
    const name = typeof (config as { name?: unknown })?.name === 'string' ? ` '${(config as { name: string }).name}'` : '';
    const problems = [...new Set(errors.map((e) => `${e.instancePath || '(root)'}: ${e.message}`))];
    throw new ConfigError(`${where}${name} is invalid: ${problems.join('; ')}`);
  }
  const c = config as RestToolConfig;
  return {
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
    ...(c.propagate_baggage !== undefined ? { propagateBaggage: c.propagate_baggage } : {}),
    ...(overrides.env ? { env: overrides.env } : {}),
    ...(overrides.resolver ? { resolver: overrides.resolver } : {}),
    ...(overrides.registry !== undefined ? { registry: overrides.registry } : {}),
  };
}
