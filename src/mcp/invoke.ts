/** Running one of an agent's tools directly for an MCP client: validated like a model's call, failures thrown. */
import { randomUUID } from 'node:crypto';
import { isInterruptSignal } from '../durability/interrupt-signal.js';
import { invokeTool } from '../tools/invoke.js';
import { injectTraceContext } from '../tracing/propagation.js';
import type { Tool } from '../tools/tool.js';

/**
 * Validate `args` against the tool's schema and run it with `signal` as its abort signal. An invalid call, a failing
 * tool, or one that calls `interrupt()` (a pause needs the agent's run around it) throws with why; an aborted call
 * rejects with the signal's reason.
 */
export async function invokeToolDirectly(tool: unknown, args: Record<string, unknown>, signal: AbortSignal): Promise<unknown> {
  const target = tool as Tool;
  const call = { id: `mcp_${randomUUID()}`, name: target.name, arguments: args as Parameters<typeof invokeTool>[1]['arguments'] };
  let outcome: Awaited<ReturnType<typeof invokeTool>>;
  try {
    outcome = await invokeTool(target, call, {
      toolCallId: call.id,
      toolName: target.name,
      agentName: '',
      executionId: '',
      context: undefined,
      signal,
      // The caller's context from the call's `_meta`, when it sent one (docs/adr/0009).
      traceHeaders: (options = {}) => injectTraceContext({}, { baggage: options.baggage === true }),
    });
  } catch (error) {
    if (!isInterruptSignal(error)) throw error;
    throw new Error(
      `tool '${target.name}' paused for a human decision (interrupt('${error.reason}')), which only works inside its agent's run: call the agent's tool instead (declare the tool with pauses: true and --expose-tools leaves it out)`,
    );
  }
  if (!outcome.ok) throw new Error(outcome.error);
  return outcome.output;
}
