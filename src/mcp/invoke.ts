/** Running one of an agent's tools directly for an MCP client: validated like a model's call, failures thrown. */
import { randomUUID } from 'node:crypto';
import { invokeTool } from '../tools/invoke.js';
import type { Tool } from '../tools/tool.js';

/** Validate `args` against the tool's schema and run it; an invalid call or a failing tool throws with why. */
export async function invokeToolDirectly(tool: unknown, args: Record<string, unknown>): Promise<unknown> {
  const target = tool as Tool;
  const call = { id: `mcp_${randomUUID()}`, name: target.name, arguments: args as Parameters<typeof invokeTool>[1]['arguments'] };
  const outcome = await invokeTool(target, call, {
    toolCallId: call.id,
    toolName: target.name,
    agentName: '',
    executionId: '',
    context: undefined,
    signal: new AbortController().signal,
  });
  if (!outcome.ok) throw new Error(outcome.error);
  return outcome.output;
}
