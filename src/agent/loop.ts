/**
 * The tool loop: ask the model; if it answered, that is the output; if it called tools, run each in order, append
 * the results, and ask again; at most `maxIterations` model calls. Each step is its own function (turn.ts,
 * tool-step.ts) with a hook before it (run-state.ts), so a run can be checkpointed at every boundary and re-entered
 * at any saved turn.
 */
import { assistantMessage } from '../llm/messages.js';
import { MaxIterationsError } from './errors.js';
import type { AgentRun, LoopState } from './run-state.js';
import { runToolCall } from './tool-step.js';
import { callModel } from './turn.js';

/** Run from `state.turn` until the model answers without tools; returns the answer. Mutates `state` as it goes. */
export async function runToolLoop(run: AgentRun, state: LoopState): Promise<string> {
  let lastTools: string[] = [];
  for (; state.turn < run.config.maxIterations; state.turn++) {
    run.signal.throwIfAborted();
    // A hook with nothing to wait for returns nothing: no await, so no promise made for it (with the async context a
    // run needs, every promise costs an async hook call).
    const before = run.hooks.beforeTurn?.(run, state);
    if (before) await before;
    const response = await callModel(run, state);
    state.tokensUsed += response.usage.totalTokens;
    if (response.toolCalls.length === 0) {
      state.messages.push(assistantMessage(response.text));
      return response.text;
    }
    state.messages.push(assistantMessage(response.text === '' ? null : response.text, response.toolCalls));
    // A successful call of an `endsRun` tool (a Swarm handoff) ends the run once every call of the turn is answered.
    let ending: string | null = null;
    for (const call of response.toolCalls) {
      const outcome = await runToolCall(run, state, call);
      if (ending === null && outcome.ok && run.tools.get(call.name)?.endsRun === true) ending = outcome.content;
    }
    if (ending !== null) return ending;
    lastTools = response.toolCalls.map((c) => c.name);
  }
  throw new MaxIterationsError(run.agentName, run.config.maxIterations, lastTools);
}
