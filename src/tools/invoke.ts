/**
 * Running one tool call the way the agent loop needs it: never throwing for the model's mistakes or the tool's
 * failures. An unknown tool, arguments that are not a JSON object or fail the schema, a tool that throws or times
 * out: each becomes an `Error: ...` result the model reads and can react to. Only control-flow signals (see
 * control-flow.ts) and the run's own abort propagate.
 */
import type { ToolCall } from '../llm/messages.js';
import { AgentkitError } from '../errors.js';
import { isControlFlowSignal } from './control-flow.js';
import type { Tool, ToolContext } from './tool.js';

/** The outcome of one tool call. `content` is what the model reads. */
export type ToolOutcome =
  | { ok: true; output: unknown; content: string; arguments: ToolCall['arguments'] }
  | { ok: false; error: string; content: string; arguments: ToolCall['arguments']; code?: string };

function failed(message: string, args: ToolCall['arguments'], code?: string): ToolOutcome {
  return { ok: false, error: message, content: `Error: ${message}`, arguments: args, ...(code ? { code } : {}) };
}

/** The text a tool's return value becomes for the model: strings as they are, anything else as JSON. */
export function outputText(output: unknown): string {
  if (typeof output === 'string') return output;
  if (output === undefined) return '';
  try {
    return JSON.stringify(output) ?? String(output);
  } catch {
    return String(output);
  }
}

/**
 * Validate and run `call` with `tool` (undefined when the model named a tool the agent does not have). Rethrows
 * control-flow signals and the abort reason of `context.signal`; returns every other failure as an outcome.
 */
export async function invokeTool(tool: Tool | undefined, call: ToolCall, context: ToolContext): Promise<ToolOutcome> {
  if (!tool) return failed(`Unknown tool '${call.name}'`, call.arguments);
  if (call.raw_arguments !== undefined) {
    return failed(`the arguments for tool '${call.name}' are not a JSON object: ${call.raw_arguments.slice(0, 500)}`, call.arguments);
  }
  const prepared = tool.prepareArguments(call.arguments);
  if (!prepared.ok) return failed(`invalid arguments for tool '${call.name}': ${prepared.problems.join('; ')}`, call.arguments);
  try {
    const output = await withToolTimeout(tool, () => tool.execute(prepared.args, context));
    return { ok: true, output, content: outputText(output), arguments: prepared.args };
  } catch (error) {
    if (isControlFlowSignal(error)) throw error;
    if (context.signal.aborted) throw context.signal.reason;
    // An agentkit error's code (ssrf_blocked, tool_execution_error, ...) is kept for the tool span.
    return failed(error instanceof Error ? error.message : String(error), prepared.args, error instanceof AgentkitError ? error.code : undefined);
  }
}

async function withToolTimeout<T>(tool: Tool, work: () => Promise<T>): Promise<T> {
  if (tool.timeoutMs === undefined) return work();
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`tool '${tool.name}' timed out after ${tool.timeoutMs} ms`)), tool.timeoutMs);
  });
  try {
    return await Promise.race([work(), limit]);
  } finally {
    clearTimeout(timer);
  }
}
