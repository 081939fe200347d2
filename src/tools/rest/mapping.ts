/**
 * How a REST tool's arguments become a request (spec "REST tool body mapping"): `query_params` appends them to the
 * query string, `json_body` sends them as the JSON body, `path_params` puts them into the URL's `{placeholder}`
 * segments. Path values are percent-encoded as whole segments (`/`, `?`, `#` and dot-only values included), so an
 * argument can never change the host, add path segments or climb out of the configured path. Placeholders are filled
 * under every mapping (an API with an id in the path and a JSON body is `json_body` with a `{id}` placeholder); the
 * arguments that fill no placeholder go to the query string (`query_params`, `path_params`) or the body (`json_body`).
 */
import { ConfigError } from '../../errors.js';
import type { JsonObject, JsonValue } from '../../llm/messages.js';
import { ToolError } from '../tool-error.js';

export type BodyMapping = 'query_params' | 'json_body' | 'path_params';
export const BODY_MAPPINGS: readonly BodyMapping[] = ['query_params', 'json_body', 'path_params'];

/** A parsed URL template: the origin is fixed; placeholders live in the (still encoded) path. */
export interface UrlTemplate {
  url: URL;
  placeholders: string[];
}

const PLACEHOLDER = /%7B([A-Za-z_][A-Za-z0-9_.-]*)%7D/gi;

/** Parse `template`; throws ConfigError for a URL that does not parse, is not http(s), or has placeholders outside the path. */
export function parseUrlTemplate(toolName: string, template: string): UrlTemplate {
  let url: URL;
  try {
    url = new URL(template);
  } catch {
    throw new ConfigError(`tool '${toolName}': url ${JSON.stringify(template)} is not a valid URL (placeholders may only appear in the path)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError(`tool '${toolName}': url must be http or https, not '${url.protocol}'`);
  if (url.username || url.password) throw new ConfigError(`tool '${toolName}': url must not carry credentials; put them in a header`);
  if (/[{}]/.test(decodeURIComponent(url.search + url.hash))) throw new ConfigError(`tool '${toolName}': placeholders may only appear in the URL path`);
  const placeholders = [...url.pathname.matchAll(PLACEHOLDER)].map((m) => m[1]!);
  return { url, placeholders };
}

/** One path segment value: percent-encoded, and `.`/`..` encoded too so they stay data, not navigation. */
export function encodePathValue(value: string): string {
  const encoded = encodeURIComponent(value);
  return /^\.+$/.test(value) ? encoded.replace(/\./g, '%2E') : encoded;
}

function text(value: JsonValue): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function appendQuery(params: URLSearchParams, args: JsonObject): void {
  for (const [key, value] of Object.entries(args)) {
    if (value === null || value === undefined) continue;
    if (Array.isArray(value)) for (const item of value) params.append(key, text(item));
    else params.append(key, text(value));
  }
}

export interface MappedRequest {
  /** Path and query, percent-encoded, to send verbatim. */
  path: string;
  body?: string;
  contentType?: string;
}

/** Map validated arguments onto the template. Throws ToolError `validation_failed` for a missing placeholder value. */
export function mapArguments(toolName: string, template: UrlTemplate, mapping: BodyMapping, args: JsonObject): MappedRequest {
  const params = new URLSearchParams(template.url.search);
  const rest: JsonObject = { ...args };
  const pathname = template.url.pathname.replace(PLACEHOLDER, (_m, name: string) => {
    const value = args[name];
    if (value === undefined || value === null)
      throw new ToolError('validation_failed', `tool '${toolName}': argument '${name}' is required for the URL placeholder {${name}}`);
    delete rest[name];
    return encodePathValue(text(value));
  });
  if (mapping !== 'json_body') appendQuery(params, rest);
  const query = params.toString();
  const path = `${pathname}${query ? `?${query}` : ''}`;
  if (mapping === 'json_body') return { path, body: JSON.stringify(rest), contentType: 'application/json' };
  return { path };
}
