/**
 * The local UI's replay forks: made from a stored trace at a step, changed by PATCH, rerun, compared, saved as a
 * regression test. They live in this UI process's memory, keyed by a random fork id (a restart forgets them; the
 * reruns themselves are ordinary traces in the store). Bounded: past `MAX_FORKS` the oldest fork is forgotten.
 */
import { randomUUID } from 'node:crypto';
import type { components } from '../../generated/types/ui.js';
import { NotFoundError, NotImplementedError, ValidationError } from '../errors.js';
import type { ForkedReplay } from '../replay/forked.js';
import type { ReplayRunResult } from '../replay/result.js';
import type { ComparisonResult } from '../types.js';

type Schemas = components['schemas'];

/** Forks kept per UI process; the oldest is dropped past this. */
export const MAX_FORKS = 200;

/** One fork and what the UI knows about it. */
export interface UiFork {
  id: string;
  fork: ForkedReplay;
  modifications: Schemas['ForkModifications'];
  /** The latest rerun and its comparison; null before the first rerun. */
  rerun: { result: ReplayRunResult; comparison: ComparisonResult } | null;
}

export class ForkRegistry {
  private readonly forks = new Map<string, UiFork>();

  /** Keep a new fork; returns it with its id. */
  add(fork: ForkedReplay): UiFork {
    const entry: UiFork = {
      id: randomUUID(),
      fork,
      modifications: { prompt: null, input: null, tool_responses: [], llm_params: null, mode: 'recorded', allow_side_effects: false },
      rerun: null,
    };
    this.forks.set(entry.id, entry);
    if (this.forks.size > MAX_FORKS) this.forks.delete(this.forks.keys().next().value!);
    return entry;
  }

  /** The fork with this id; NotFoundError `fork_not_found` (404) when this process has none. */
  get(forkId: string): UiFork {
    const entry = this.forks.get(forkId);
    if (!entry) throw new NotFoundError('fork_not_found', `Fork '${forkId}' not found: forks live in the UI process that made them; fork the trace again.`);
    return entry;
  }
}

/**
 * Apply a PATCH body to a fork: each given field replaces the stored one (a tool response replaces that tool's, LLM
 * params merge over earlier ones). `state` is refused (422 not_implemented): replay reruns from the top.
 */
export function applyModification(entry: UiFork, body: Schemas['ForkModification']): void {
  if (body.state !== undefined) {
    throw new NotImplementedError(
      'modifying state is not supported by replay (a rerun starts from the top); branch state with a checkpoint fork (agentkit fork <execution-id> --state ...) instead',
    );
  }
  const { fork, modifications } = entry;
  if (body.prompt !== undefined) {
    fork.modifyPrompt(body.prompt);
    modifications.prompt = body.prompt;
  }
  if (body.input !== undefined) {
    fork.modifyInput(body.input);
    modifications.input = body.input;
  }
  if (body.tool_response !== undefined) {
    const { tool_name: toolName, response } = body.tool_response;
    if (toolName === '')
      throw new ValidationError('tool_response.tool_name must not be empty', [{ path: '/tool_response/tool_name', message: 'must not be empty' }]);
    fork.withToolOverride(toolName, response);
    modifications.tool_responses = [...modifications.tool_responses.filter((t) => t.tool_name !== toolName), { tool_name: toolName, response }];
  }
  if (body.llm_params !== undefined) {
    fork.modifyConfig({ ...body.llm_params });
    modifications.llm_params = { ...(modifications.llm_params ?? {}), ...body.llm_params };
  }
  if (body.mode !== undefined || body.allow_side_effects !== undefined) {
    modifications.mode = body.mode ?? modifications.mode;
    modifications.allow_side_effects = body.allow_side_effects ?? modifications.allow_side_effects;
    fork.withDeterminism(modifications.mode, { allowSideEffects: modifications.allow_side_effects });
  }
}

/** The ForkState document of a fork. */
export function forkState(entry: UiFork): Schemas['ForkState'] {
  return {
    fork_id: entry.id,
    trace_id: entry.fork.replay.traceId,
    step: entry.fork.step,
    modifications: entry.modifications,
    rerun: entry.rerun ? (entry.rerun.result.toJSON() as Schemas['ReplayResult']) : null,
  };
}
