/**
 * Which span attributes are a step's input and which its output: the split replay steps and trace exports show.
 * JSON-encoded payloads are decoded.
 */

export const INPUT_KEYS: ReadonlySet<string> = new Set([
  'gen_ai.request.messages',
  'gen_ai.request.prompt',
  'agent.input',
  'chain.input',
  'chain.node.input',
  'swarm.input',
  'supervisor.input',
  'tool.input',
  'tool.args',
  'retrieval.query',
  'input',
]);

export const OUTPUT_KEYS: ReadonlySet<string> = new Set([
  'gen_ai.response.content',
  'gen_ai.response.tool_calls',
  'agent.output',
  'chain.output',
  'chain.node.output',
  'swarm.output',
  'supervisor.output',
  'tool.output',
  'tool.result',
  'retrieval.doc_ids',
  'retrieval.result_count',
  'output',
]);

/** A JSON-looking string decoded, anything else as it is. */
export function decodeValue(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const trimmed = value.trimStart();
  if (!trimmed.startsWith('{') && !trimmed.startsWith('[')) return value;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

/** Split attributes into input payloads, output payloads and the rest. */
export function splitAttributes(attributes: Record<string, unknown>): {
  input: Record<string, unknown>;
  output: Record<string, unknown>;
  rest: Record<string, unknown>;
} {
  const input: Record<string, unknown> = {};
  const output: Record<string, unknown> = {};
  const rest: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(attributes)) {
    if (INPUT_KEYS.has(key)) input[key] = decodeValue(value);
    else if (OUTPUT_KEYS.has(key)) output[key] = decodeValue(value);
    else rest[key] = value;
  }
  return { input, output, rest };
}
