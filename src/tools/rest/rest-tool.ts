/**
 * RESTTool: a tool that calls an HTTP endpoint from configuration alone (spec "REST tool configuration"). Arguments
 * are validated against `parameters`, mapped onto the request as `body_mapping` says, and sent through the SSRF-safe
 * client; the parsed JSON (or the text) of a 2xx response is the result, any other status fails the call. Header
 * values are used only on the wire: `toDict()` and `toConfig()` carry `***`, and the values are registered secrets.
 */
import { ConfigError } from '../../errors.js';
import type { JsonObject } from '../../llm/messages.js';
import { SafeHttpClient, DEFAULT_MAX_RESPONSE_BYTES, DEFAULT_TIMEOUT_MS, type SafeResponse } from '../net/safe-client.js';
import type { Resolver } from '../net/ssrf-guard.js';
import type { ToolRegistry } from '../registry.js';
import { Tool, type ToolContext, type ToolDict } from '../tool.js';
import { ToolError } from '../tool-error.js';
import { checkHeaders, redactHeaders, resolveHeaders, REDACTED } from './headers.js';
import { BODY_MAPPINGS, mapArguments, parseUrlTemplate, type BodyMapping, type UrlTemplate } from './mapping.js';
import type { RestToolConfig } from '../../../generated/types/resources.js';
import { REST_METHODS, restToolOptions, type RestConfigOverrides, type RestMethod, type RESTToolOptions } from './options.js';

export type { RestToolConfig };
export { REST_METHODS, type RestMethod, type RESTToolOptions };

/** Methods whose repetition has the same effect as one call (RFC 9110), so a failed attempt may be retried. */
const IDEMPOTENT_METHODS = new Set<string>(['GET', 'HEAD', 'PUT', 'DELETE']);
/** Methods that never carry a body: their default mapping is `query_params` and `json_body` is refused. */
const BODYLESS_METHODS = new Set<string>(['GET', 'HEAD']);
export const DEFAULT_MAX_RETRIES = 2;

export class RESTTool extends Tool {
  readonly toolType = 'rest_api';
  readonly origin = 'rest';
  readonly url: string;
  readonly method: RestMethod;
  readonly bodyMapping: BodyMapping;
  readonly allowHosts: readonly string[];
  readonly maxRetries: number;
  readonly propagateBaggage: boolean;
  private readonly requestTimeoutMs: number;
  private readonly maxResponseBytes: number;
  private readonly retryDelayMs: number;
  private readonly headers: Record<string, string>;
  private readonly template: UrlTemplate;
  private readonly env: Record<string, string | undefined>;
  private readonly client: SafeHttpClient;

  /** Throws ConfigError naming the tool and the problem (never a header value). */
  constructor(options: RESTToolOptions) {
    const method = String(options.method ?? 'GET').toUpperCase();
    if (!(REST_METHODS as readonly string[]).includes(method))
      throw new ConfigError(`tool '${options.name}': method must be one of ${REST_METHODS.join(', ')}, got ${JSON.stringify(options.method)}`);
    const template = parseUrlTemplate(options.name, options.url);
    const bodyMapping = options.bodyMapping ?? (BODYLESS_METHODS.has(method) || method === 'DELETE' ? 'query_params' : 'json_body');
    if (!BODY_MAPPINGS.includes(bodyMapping))
      throw new ConfigError(`tool '${options.name}': body_mapping must be one of ${BODY_MAPPINGS.join(', ')}, got ${JSON.stringify(bodyMapping)}`);
    if (bodyMapping === 'json_body' && BODYLESS_METHODS.has(method))
      throw new ConfigError(`tool '${options.name}': a ${method} request carries no body; use body_mapping query_params or path_params`);
    super({
      name: options.name,
      ...(options.description !== undefined ? { description: options.description } : {}),
      parameters: options.parameters ?? defaultParameters(template.placeholders),
      ...(options.replayClass !== undefined ? { replayClass: options.replayClass } : {}),
      ...(options.registry !== undefined ? { registry: options.registry } : {}),
    });
    this.url = options.url;
    this.method = method as RestMethod;
    this.bodyMapping = bodyMapping;
    this.template = template;
    this.headers = checkHeaders(options.name, options.headers ?? {});
    this.allowHosts = [...(options.allowHosts ?? [])];
    this.requestTimeoutMs = positive(options.name, 'timeoutMs', options.timeoutMs, DEFAULT_TIMEOUT_MS);
    this.maxResponseBytes = positive(options.name, 'maxResponseBytes', options.maxResponseBytes, DEFAULT_MAX_RESPONSE_BYTES);
    this.maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
    if (!Number.isInteger(this.maxRetries) || this.maxRetries < 0 || this.maxRetries > 10)
      throw new ConfigError(`tool '${options.name}': maxRetries must be an integer from 0 to 10`);
    this.retryDelayMs = options.retryDelayMs ?? 200;
    this.propagateBaggage = options.propagateBaggage === true;
    this.env = options.env ?? process.env;
    this.client = new SafeHttpClient({
      allowHosts: this.allowHosts,
      timeoutMs: this.requestTimeoutMs,
      maxResponseBytes: this.maxResponseBytes,
      ...(options.resolver ? { resolver: options.resolver } : {}),
    });
    for (const placeholder of template.placeholders) {
      const properties = this.parameters.properties as JsonObject | undefined;
      if (!properties || !(placeholder in properties))
        throw new ConfigError(`tool '${options.name}': the url placeholder {${placeholder}} is not among the parameters' properties`);
    }
  }

  /** Whether a failed attempt may be sent again: an idempotent method, or a tool declared safe to repeat. */
  get retriesAllowed(): boolean {
    return IDEMPOTENT_METHODS.has(this.method) || this.replayClass !== 'side_effecting';
  }

  /**
   * Validate `args`, send the request and return the parsed JSON body (or its text; null when empty). Throws
   * ToolError: `validation_failed` naming the argument, `ssrf_blocked` for a refused destination,
   * `tool_execution_error` for a non-2xx status (with the start of the body), a timeout or an oversized response.
   */
  async execute(args: JsonObject, context?: Partial<ToolContext>): Promise<unknown> {
    const prepared = this.prepareArguments(args ?? {});
    if (!prepared.ok) throw new ToolError('validation_failed', `tool '${this.name}': invalid arguments: ${prepared.problems.join('; ')}`);
    const mapped = mapArguments(this.name, this.template, this.bodyMapping, prepared.args);
    const headers = resolveHeaders(this.name, this.headers, this.env);
    // The W3C context of the tool span (and baggage when the tool opted in); a header the tool sets itself wins.
    for (const [name, value] of Object.entries(context?.traceHeaders?.({ baggage: this.propagateBaggage }) ?? {}))
      if (!Object.keys(headers).some((h) => h.toLowerCase() === name)) headers[name] = value;
    if (mapped.contentType && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['content-type'] = mapped.contentType;
    const request = {
      method: this.method,
      url: this.template.url,
      path: mapped.path,
      headers,
      // Baggage is the caller's, meant for services it trusts: it goes where the tool's credentials go, no further.
      credentialHeaders: this.propagateBaggage ? [...Object.keys(this.headers), 'baggage'] : Object.keys(this.headers),
      ...(mapped.body !== undefined ? { body: mapped.body } : {}),
      ...(context?.signal ? { signal: context.signal } : {}),
    };
    const attempts = this.retriesAllowed ? this.maxRetries + 1 : 1;
    for (let attempt = 1; ; attempt++) {
      let response: SafeResponse;
      try {
        response = await this.client.request(request);
      } catch (error) {
        if (attempt < attempts && retryable(error) && !context?.signal?.aborted) {
          await sleep(this.retryDelayMs * 2 ** (attempt - 1));
          continue;
        }
        throw error instanceof ToolError
          ? new ToolError(error.code, `tool '${this.name}': ${error.message}`, { cause: error, retryable: error.retryable })
          : error;
      }
      if (attempt < attempts && (response.status === 429 || response.status >= 500)) {
        await sleep(this.retryDelayMs * 2 ** (attempt - 1));
        continue;
      }
      return this.result(response);
    }
  }

  /** The configuration as JSON (spec field names), header values redacted: what `loadRestTools` reads back. */
  toConfig(): RestToolConfig {
    return {
      name: this.name,
      description: this.description,
      parameters: this.parameters as RestToolConfig['parameters'] & object,
      replay_class: this.replayClass,
      ...(this.config() as Omit<RestToolConfig, 'name' | 'description' | 'parameters' | 'replay_class'>),
    };
  }

  /** Close idle connections to the endpoint. */
  override async close(): Promise<void> {
    this.client.close();
  }

  protected override config(): JsonObject {
    return {
      url: this.url,
      method: this.method,
      headers: redactHeaders(this.headers),
      body_mapping: this.bodyMapping,
      ...(this.allowHosts.length > 0 ? { allow_hosts: [...this.allowHosts] } : {}),
      timeout_ms: this.requestTimeoutMs,
      max_response_bytes: this.maxResponseBytes,
      max_retries: this.maxRetries,
      ...(this.propagateBaggage ? { propagate_baggage: true } : {}),
    };
  }

  private result(response: SafeResponse): unknown {
    const text = response.body.toString('utf8');
    if (response.status < 200 || response.status > 299) {
      const excerpt = text.length > 500 ? `${text.slice(0, 500)}...` : text;
      throw new ToolError(
        'tool_execution_error',
        `tool '${this.name}': ${this.method} ${response.url} returned ${response.status}${response.statusText ? ` ${response.statusText}` : ''}${excerpt ? `: ${excerpt}` : ''}`,
      );
    }
    if (text === '') return null;
    const type = String(response.headers['content-type'] ?? '');
    if (type.includes('json') || /^\s*[[{]/.test(text)) {
      try {
        return JSON.parse(text);
      } catch {
        return text;
      }
    }
    return text;
  }

  /**
   * Build a tool from the spec's configuration fields (snake_case, as in a JSON/YAML file), checked against the
   * contract's RestToolConfig schema; `overrides` add headers, allowed hosts, a resolver or a registry from code.
   * Throws ConfigError naming the tool and each offending field.
   */
  static fromConfig(config: unknown, overrides: RestConfigOverrides = {}): RESTTool {
    return new RESTTool(restToolOptions(config, overrides));
  }

  /**
   * Rebuild a REST tool from its serialized form (`toDict()`, as stored on a trace): the redacted header values are
   * replaced by `headers` given now; a redacted header without a value supplied is left out of requests.
   */
  static fromDict(dict: ToolDict, options: { headers?: Record<string, string>; registry?: ToolRegistry | false; resolver?: Resolver } = {}): RESTTool {
    if (dict.tool_type !== 'rest_api') throw new ConfigError(`tool '${dict.name}' is a ${dict.tool_type} tool, not a REST tool`);
    const config = dict.config;
    const stored = (config.headers ?? {}) as Record<string, string>;
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(stored)) {
      const supplied = options.headers?.[name] ?? Object.entries(options.headers ?? {}).find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1];
      if (supplied !== undefined) headers[name] = supplied;
      else if (value !== REDACTED) headers[name] = value;
    }
    for (const [name, value] of Object.entries(options.headers ?? {}))
      if (!Object.keys(headers).some((k) => k.toLowerCase() === name.toLowerCase())) headers[name] = value;
    return new RESTTool({
      name: dict.name,
      description: dict.description,
      url: String(config.url),
      method: String(config.method ?? 'GET') as RestMethod,
      headers,
      bodyMapping: config.body_mapping as BodyMapping,
      parameters: dict.parameters,
      replayClass: dict.replay_class,
      ...(Array.isArray(config.allow_hosts) ? { allowHosts: config.allow_hosts as string[] } : {}),
      ...(typeof config.timeout_ms === 'number' ? { timeoutMs: config.timeout_ms } : {}),
      ...(typeof config.max_response_bytes === 'number' ? { maxResponseBytes: config.max_response_bytes } : {}),
      ...(typeof config.max_retries === 'number' ? { maxRetries: config.max_retries } : {}),
      ...(config.propagate_baggage === true ? { propagateBaggage: true } : {}),
      ...(options.registry !== undefined ? { registry: options.registry } : {}),
      ...(options.resolver ? { resolver: options.resolver } : {}),
    });
  }
}

function defaultParameters(placeholders: string[]): JsonObject {
  return {
    type: 'object',
    properties: Object.fromEntries(placeholders.map((p) => [p, { type: 'string' }])),
    ...(placeholders.length > 0 ? { required: placeholders } : {}),
  };
}

function positive(tool: string, field: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value <= 0) throw new ConfigError(`tool '${tool}': ${field} must be a positive integer`);
  return value;
}

/** Network failures and timeouts are worth another attempt; refusals, bad arguments and size caps are not. */
function retryable(error: unknown): boolean {
  return error instanceof ToolError && error.retryable;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
