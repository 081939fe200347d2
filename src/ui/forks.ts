/**
 * The local UI's replay forks: made from a stored trace at a step, changed by PATCH, rerun, compared, saved as a
 * regression test. Each fork is a row of the store (src/forks/: its source trace, step, modifications and latest
 * rerun), so any UI process on the same store reads, changes, reruns and compares a fork another made, and a restart
 * keeps them. The rebuilt ForkedReplay is cached per process and made again from the trace and the stored
 * modifications when the row changed since (another process wrote it) or the cache forgot it (past `MAX_FORKS`).
 */
import { randomUUID } from 'node:crypto';
import type { components } from '../../generated/types/ui.js';
import { NotFoundError, NotImplementedError, ValidationError } from '../errors.js';
import type { ForkStore, StoredRerun } from '../forks/index.js';
import type { ForkedReplay } from '../replay/forked.js';

type Schemas = components['schemas'];

/** Rebuilt forks cached per UI process; the oldest is dropped past this (it stays in the store). */
export const MAX_FORKS = 200;

/** One fork and what the UI knows about it. */
export interface UiFork {
  id: string;
  fork: ForkedReplay;
  modifications: Schemas['ForkModifications'];
  /** The latest rerun (its result, input and comparison); null before the first rerun. */
  rerun: StoredRerun | null;
  /** The stored row's `updated_at` this entry reflects. */
  version: string;
}

/** Rebuilds the fork of a stored trace at a step (Replay.load on the UI's trace store, then forkAt). */
export type ForkLoader = (traceId: string, step: number) => Promise<ForkedReplay>;

const unchanged = (): Schemas['ForkModifications'] => ({
  prompt: null,
  input: null,
  tool_responses: [],
  llm_params: null,
  mode: 'recorded',
  allow_side_effects: false,
});

export class ForkRegistry {
  readonly #cache = new Map<string, UiFork>();

  constructor(
    private readonly store: ForkStore,
    private readonly load: ForkLoader,
  ) {}

  /** Store a new fork; returns it with its id. */
  async add(fork: ForkedReplay): Promise<UiFork> {
    const id = randomUUID();
    const row = await this.store.create({ fork_id: id, trace_id: fork.replay.traceId, step: fork.step, modifications: unchanged() });
    return this.#remember({ id, fork, modifications: row.modifications, rerun: null, version: row.updated_at });
  }

  /** The fork with this id, as stored now; NotFoundError `fork_not_found` (404) when the store has none. */
  async get(forkId: string): Promise<UiFork> {
    const row = await this.store.get(forkId);
    if (!row) throw new NotFoundError('fork_not_found', `Fork '${forkId}' not found in ${this.store.label}: fork the trace again.`);
    const cached = this.#cache.get(forkId);
    if (cached && cached.version === row.updated_at) return cached;
    const entry: UiFork = { id: forkId, fork: await this.load(row.trace_id, row.step), modifications: unchanged(), rerun: row.rerun, version: row.updated_at };
    reapply(entry, row.modifications);
    return this.#remember(entry);
  }

  /** Store the entry's modifications (after `applyModification`). */
  async saveModifications(entry: UiFork): Promise<void> {
    const row = await this.store.update(entry.id, { modifications: entry.modifications });
    if (row) entry.version = row.updated_at;
  }

  /** Store the entry's latest rerun. */
  async saveRerun(entry: UiFork, rerun: StoredRerun): Promise<void> {
    entry.rerun = rerun;
    const row = await this.store.update(entry.id, { rerun });
    if (row) entry.version = row.updated_at;
  }

  #remember(entry: UiFork): UiFork {
    this.#cache.delete(entry.id);
    this.#cache.set(entry.id, entry);
    if (this.#cache.size > MAX_FORKS) this.#cache.delete(this.#cache.keys().next().value!);
    return entry;
  }
}

/** Apply stored modifications to a freshly rebuilt fork, field by field, as the PATCHes that made them did. */
function reapply(entry: UiFork, stored: Schemas['ForkModifications']): void {
  if (stored.prompt !== null) applyModification(entry, { prompt: stored.prompt });
  if (stored.input !== null) applyModification(entry, { input: stored.input });
  for (const toolResponse of stored.tool_responses) applyModification(entry, { tool_response: toolResponse });
  if (stored.llm_params !== null) applyModification(entry, { llm_params: stored.llm_params });
  if (stored.mode !== 'recorded' || stored.allow_side_effects) applyModification(entry, { mode: stored.mode, allow_side_effects: stored.allow_side_effects });
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
    rerun: entry.rerun ? entry.rerun.result : null,
  };
}
