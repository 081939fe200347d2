/**
 * The agent tool's `outputSchema`: the contract's `McpRunResult` (spec/mcp/models.tsp) with every `$ref` inlined, so
 * the schema stands alone (an MCP client validates `structuredContent` against it without the OpenAPI document), and
 * `type: object` at the root, which MCP requires of an output schema.
 */
import { doc } from '../../generated/schemas/resources.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const PREFIX = '#/components/schemas/';

/** The output schema of the tool that runs the target (deeply frozen). */
export const RUN_RESULT_OUTPUT_SCHEMA: { readonly type: 'object'; readonly [key: string]: unknown } = deepFreeze({
  type: 'object',
  ...(inline({ $ref: `${PREFIX}McpRunResult` }, []) as Record<string, Json>),
});

/** `node` with each component reference replaced by the component (sibling keywords kept); a cycle is an error. */
function inline(node: Json, seen: readonly string[]): Json {
  if (Array.isArray(node)) return node.map((item) => inline(item, seen));
  if (node === null || typeof node !== 'object') return node;
  const { $ref, ...rest } = node;
  const out: Record<string, Json> = {};
  if (typeof $ref === 'string') {
    if (!$ref.startsWith(PREFIX)) throw new Error(`output schema: cannot inline ${$ref}`);
    const name = $ref.slice(PREFIX.length);
    if (seen.includes(name)) throw new Error(`output schema: ${name} refers to itself; it cannot be inlined`);
    const components: Record<string, Json> = doc.components.schemas as unknown as Record<string, Json>;
    const target = components[name];
    if (target === undefined) throw new Error(`output schema: no component ${name}`);
    Object.assign(out, inline(target, [...seen, name]));
  }
  for (const [key, value] of Object.entries(rest)) {
    // `{}` and `true` mean the same; `true` says so to clients that check schemas for portability (the Inspector's --strict).
    out[key] = key === 'additionalProperties' && isEmptyObject(value) ? true : inline(value, seen);
  }
  return out;
}

function isEmptyObject(value: Json): boolean {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length === 0;
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    for (const item of Object.values(value)) deepFreeze(item);
    Object.freeze(value);
  }
  return value;
}
