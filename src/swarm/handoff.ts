/**
 * Handoff tools: each swarm member gets one `handoff_to_<peer>` tool per peer its allowlist names. A call records the
 * handoff in the run's HandoffBox and ends the member's run once the turn's calls are answered (`endsRun`); the swarm
 * then routes to the peer. The model may pass a `reason` and a `context` object merged into the shared context.
 */
import { isPlainObject, nonJsonReason, type JsonRecord } from '../durability/json.js';
import { FunctionTool } from '../tools/function-tool.js';
import type { Tool } from '../tools/tool.js';

/** A handoff the member asked for. */
export interface HandoffRequest {
  source: string;
  target: string;
  reason: string;
  context: JsonRecord;
}

/** Where one member run's handoff lands (one box per run, so concurrent runs of a swarm never share one). */
export class HandoffBox {
  request: HandoffRequest | null = null;
}

/** The tool name of a handoff to `peer`. */
export function handoffToolName(peer: string): string {
  return `handoff_to_${peer}`;
}

const PARAMETERS = {
  type: 'object',
  properties: {
    reason: { type: 'string', description: 'Why the conversation is handed to this agent.', default: '' },
    context: { type: 'object', description: 'Facts to add to the shared context the next agent sees.' },
  },
  additionalProperties: false,
} as const;

/**
 * The handoff tools of `source` for `peers`, writing into `box`. A second handoff in the same run is refused (the
 * model reads the error); the first one decides where the swarm goes.
 */
export function handoffTools(source: string, peers: readonly string[], box: HandoffBox): Tool[] {
  return peers.map(
    (peer) =>
      new FunctionTool({
        name: handoffToolName(peer),
        description: `Hand the conversation off to agent '${peer}'. Call it when '${peer}' should continue; your turn ends after it.`,
        parameters: PARAMETERS as never,
        replayClass: 'idempotent',
        registry: false,
        endsRun: true,
        execute: (args: { reason?: string; context?: unknown }) => {
          if (box.request) {
            throw new Error(`already handed off to '${box.request.target}' in this turn; only the first handoff takes effect`);
          }
          const context = args.context ?? {};
          if (!isPlainObject(context)) throw new Error('context must be a JSON object');
          const problem = nonJsonReason(context, '$.context');
          if (problem) throw new Error(`context is not JSON (${problem})`);
          box.request = { source, target: peer, reason: args.reason ?? '', context };
          return `Handed off to ${peer}.`;
        },
      }),
  );
}

/** The input the target agent receives. */
export function handoffInput(request: HandoffRequest, originalInput: string, shared: JsonRecord): string {
  return `${request.source} handed off to you with reason: '${request.reason}'. Earlier request: '${originalInput}'. Current shared state: ${JSON.stringify(shared)}. Please continue.`;
}
