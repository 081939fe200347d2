/**
 * REST tools from an OpenAPI 3.x document (beyond the spec): one tool per chosen operation, its parameters schema
 * built from the operation's path and query parameters and its JSON request body. Local `$ref`s are resolved with
 * @apidevtools/json-schema-ref-parser; external references are never fetched (a document must not make the process
 * reach out), and circular schemas are refused.
 */
import { dereference } from '@apidevtools/json-schema-ref-parser';
import { parse as parseYaml } from 'yaml';
import { ConfigError } from '../../errors.js';
import type { JsonObject } from '../../llm/messages.js';
import type { Resolver } from '../net/ssrf-guard.js';
import { currentToolRegistry, type ToolRegistry } from '../registry.js';
import type { ReplayClass } from '../replay-class.js';
import { RESTTool, type RestMethod } from './rest-tool.js';

export interface OpenAPIToolOptions {
  /** Operations to import, by operationId or as `METHOD /path`; default every operation the tool can express. */
  operations?: readonly string[];
  /** Base URL of the API; default the document's first server URL (its variables at their defaults). */
  baseUrl?: string;
  /** Headers of every tool (credentials: `${NAME}` references are resolved per request). */
  headers?: Record<string, string>;
  allowHosts?: readonly string[];
  /** Replay class per operation (operationId or `METHOD /path`); default read_only for GET/HEAD, idempotent for PUT/DELETE, else side_effecting. */
  replayClass?: Record<string, ReplayClass>;
  timeoutMs?: number;
  maxRetries?: number;
  resolver?: Resolver;
  registry?: ToolRegistry | false;
}

/** The tools, and the operations left out (only when `operations` was not given) with the reason. */
export type OpenAPITools = RESTTool[] & { skipped: Array<{ operation: string; reason: string }> };

const METHODS: readonly RestMethod[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'];

interface Operation {
  key: string;
  id: string | undefined;
  method: RestMethod;
  path: string;
  op: JsonObject;
  shared: JsonObject[];
}

/**
 * Build the tools. `document` is the parsed document or its JSON/YAML text. Throws ConfigError when the document is
 * not OpenAPI 3, has no usable base URL, when a chosen operation does not exist or cannot be expressed (a non-object
 * JSON body, a name clash between a parameter and a body property, query parameters together with a JSON body).
 */
export async function restToolsFromOpenAPI(document: unknown, options: OpenAPIToolOptions = {}): Promise<OpenAPITools> {
  const parsed = typeof document === 'string' ? parseText(document) : structuredClone(document);
  if (!isObject(parsed) || typeof parsed.openapi !== 'string' || !parsed.openapi.startsWith('3.'))
    throw new ConfigError('not an OpenAPI 3 document (no "openapi: 3.x" field)');
  let doc: JsonObject;
  try {
    doc = (await dereference(parsed as never, { resolve: { external: false }, dereference: { circular: false } })) as unknown as JsonObject;
  } catch (error) {
    throw new ConfigError(`cannot resolve the document's $refs: ${error instanceof Error ? error.message : String(error)}`);
  }
  const external = leftoverRef(doc);
  if (external !== null) throw new ConfigError(`cannot resolve the document's $refs: external reference ${JSON.stringify(external)} is not fetched; inline it`);
  const base = baseUrlOf(doc, options.baseUrl);
  const all = operationsOf(doc);
  const chosen = options.operations ? options.operations.map((wanted) => find(all, wanted)) : all;
  const skipped: OpenAPITools['skipped'] = [];
  const built: RESTTool[] = [];
  for (const operation of chosen) {
    const shape = toolShape(operation);
    if ('reason' in shape) {
      if (options.operations) throw new ConfigError(`operation '${operation.key}' cannot be a REST tool: ${shape.reason}`);
      skipped.push({ operation: operation.key, reason: shape.reason });
      continue;
    }
    built.push(
      new RESTTool({
        name: toolName(operation),
        description: String(operation.op.summary ?? operation.op.description ?? ''),
        url: `${base}${operation.path}`,
        method: operation.method,
        bodyMapping: shape.bodyMapping,
        parameters: shape.parameters,
        replayClass: options.replayClass?.[operation.id ?? ''] ?? options.replayClass?.[operation.key] ?? defaultReplayClass(operation.method),
        ...(options.headers ? { headers: options.headers } : {}),
        ...(options.allowHosts ? { allowHosts: options.allowHosts } : {}),
        ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
        ...(options.maxRetries !== undefined ? { maxRetries: options.maxRetries } : {}),
        ...(options.resolver ? { resolver: options.resolver } : {}),
        registry: false,
      }),
    );
  }
  const names = new Set<string>();
  for (const tool of built) {
    if (names.has(tool.name)) throw new ConfigError(`two operations become the tool name '${tool.name}'; choose operations or give them distinct operationIds`);
    names.add(tool.name);
  }
  if (options.registry !== false) {
    for (const tool of built) (options.registry ?? currentToolRegistry()).register(tool);
  }
  return Object.assign(built, { skipped });
}

function parseText(text: string): unknown {
  try {
    return parseYaml(text);
  } catch (error) {
    throw new ConfigError(`the OpenAPI document is not valid JSON or YAML: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
  }
}

function baseUrlOf(doc: JsonObject, given: string | undefined): string {
  let url = given;
  if (url === undefined) {
    const server = Array.isArray(doc.servers) ? (doc.servers[0] as JsonObject | undefined) : undefined;
    if (!server || typeof server.url !== 'string') throw new ConfigError('the document lists no servers; pass baseUrl');
    const variables = isObject(server.variables) ? server.variables : {};
    url = server.url.replace(/\{([^}]+)\}/g, (_m, name: string) => {
      const variable = variables[name];
      if (!isObject(variable) || typeof variable.default !== 'string') throw new ConfigError(`server variable {${name}} has no default; pass baseUrl`);
      return variable.default;
    });
  }
  if (!/^https?:\/\//i.test(url)) throw new ConfigError(`the base URL ${JSON.stringify(url)} is not an absolute http(s) URL; pass baseUrl`);
  return url.replace(/\/+$/, '');
}

function operationsOf(doc: JsonObject): Operation[] {
  const out: Operation[] = [];
  for (const [path, item] of Object.entries(isObject(doc.paths) ? doc.paths : {})) {
    if (!isObject(item)) continue;
    const shared = Array.isArray(item.parameters) ? (item.parameters.filter(isObject) as JsonObject[]) : [];
    for (const method of METHODS) {
      const op = item[method.toLowerCase()];
      if (!isObject(op)) continue;
      out.push({ key: `${method} ${path}`, id: typeof op.operationId === 'string' ? op.operationId : undefined, method, path, op, shared });
    }
  }
  return out;
}

function find(all: Operation[], wanted: string): Operation {
  const found = all.find((o) => o.id === wanted || o.key.toLowerCase() === wanted.trim().replace(/\s+/, ' ').toLowerCase());
  if (!found) throw new ConfigError(`the document has no operation '${wanted}' (by operationId or as 'METHOD /path')`);
  return found;
}

function toolName(operation: Operation): string {
  const raw = operation.id ?? `${operation.method.toLowerCase()}_${operation.path}`;
  return (
    raw
      .replace(/[^A-Za-z0-9_-]+/g, '_')
      .replace(/^_+|_+$/g, '')
      .slice(0, 64) || operation.method.toLowerCase()
  );
}

function defaultReplayClass(method: RestMethod): ReplayClass {
  if (method === 'GET' || method === 'HEAD') return 'read_only';
  if (method === 'PUT' || method === 'DELETE') return 'idempotent';
  return 'side_effecting';
}

type Shape = { bodyMapping: 'query_params' | 'json_body' | 'path_params'; parameters: JsonObject } | { reason: string };

function toolShape(operation: Operation): Shape {
  const properties: JsonObject = {};
  const required: string[] = [];
  // Operation-level parameters override path-level ones with the same name and location.
  const byKey = new Map<string, JsonObject>();
  for (const p of [...operation.shared, ...(Array.isArray(operation.op.parameters) ? operation.op.parameters.filter(isObject) : [])] as JsonObject[])
    byKey.set(`${p.in}:${p.name}`, p);
  let query = 0;
  let path = 0;
  for (const p of byKey.values()) {
    if (p.in !== 'path' && p.in !== 'query') continue; // header and cookie values come from the tool's headers
    const name = String(p.name);
    const schema: JsonObject = isObject(p.schema) ? { ...p.schema } : { type: 'string' };
    if (typeof p.description === 'string' && schema.description === undefined) schema.description = p.description;
    properties[name] = schema;
    if (p.in === 'path' || p.required === true) required.push(name);
    if (p.in === 'query') query++;
    else path++;
  }
  const body = jsonBodySchema(operation.op);
  if (body && 'reason' in body) return body;
  if (body) {
    if (query > 0) return { reason: 'it has query parameters and a JSON body, which one body_mapping cannot express' };
    for (const [name, schema] of Object.entries(isObject(body.schema.properties) ? body.schema.properties : {})) {
      if (name in properties) return { reason: `the body property '${name}' clashes with a parameter of the same name` };
      properties[name] = schema;
    }
    if (body.required) for (const name of Array.isArray(body.schema.required) ? (body.schema.required as string[]) : []) required.push(name);
    return { bodyMapping: 'json_body', parameters: { type: 'object', properties, ...(required.length ? { required } : {}) } };
  }
  return { bodyMapping: path > 0 ? 'path_params' : 'query_params', parameters: { type: 'object', properties, ...(required.length ? { required } : {}) } };
}

function jsonBodySchema(op: JsonObject): { schema: JsonObject; required: boolean } | { reason: string } | null {
  if (!isObject(op.requestBody)) return null;
  const content = isObject(op.requestBody.content) ? op.requestBody.content : {};
  const type = Object.keys(content).find((t) => /^application\/([a-z.+-]*\+)?json/i.test(t));
  if (!type) return { reason: `its request body is not JSON (${Object.keys(content).join(', ') || 'no content'})` };
  const media = content[type];
  const schema = isObject(media) && isObject(media.schema) ? media.schema : { type: 'object' };
  if (schema.type !== undefined && schema.type !== 'object') return { reason: `its JSON body is of type ${JSON.stringify(schema.type)}, not an object` };
  return { schema, required: op.requestBody.required === true };
}

/** The first `$ref` left after dereferencing (only external ones are left), or null. */
function leftoverRef(value: unknown, seen = new Set<unknown>()): string | null {
  if (typeof value !== 'object' || value === null || seen.has(value)) return null;
  seen.add(value);
  if (!Array.isArray(value) && typeof (value as JsonObject).$ref === 'string') return (value as JsonObject).$ref as string;
  for (const child of Object.values(value)) {
    const found = leftoverRef(child, seen);
    if (found !== null) return found;
  }
  return null;
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
