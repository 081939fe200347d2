/**
 * How a pause is described to callers that cannot hold the run open (MCP clients, eval, replay): what paused, the
 * execution id, and the two ways to resolve it.
 */
import type { PendingInterruptSummary } from '../generated/types/resources.js';

/**
 * `paused: <reason> (tool '<t>'); execution_id=<id>. Nothing after the pause ran. Resolve it with ...`. `runner` is
 * the target to resume with, as `agentkit resume --runner` takes it (`file.ts:attr`); without it the text shows the
 * placeholder `module:attr`.
 */
export function describePause(executionId: string, pending: PendingInterruptSummary | null, runner?: string): string {
  const reason = pending?.reason ?? 'interrupt';
  const tool = /(?:^|\/)tool:([^/]+)$/.exec(pending?.node_id ?? '')?.[1];
  return (
    `paused: ${reason}${tool ? ` (tool '${tool}')` : ''}; execution_id=${executionId}. Nothing after the pause ran. ` +
    `Resolve it with resume('${executionId}', { resumeValue: { approved, metadata } }) or ` +
    `\`agentkit resume ${executionId} --runner ${runner ? shellWord(runner) : 'module:attr'}\`.`
  );
}

/** `text` as one POSIX shell word: as it is when it is plain, else single-quoted. */
function shellWord(text: string): string {
  return /^[A-Za-z0-9_./:@%+=,-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}
