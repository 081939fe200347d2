/** What long-running commands (`agent serve`, `mcp serve`) share: waiting for a stop signal, releasing the runner. */
import { RELOAD_CHILD_ENV } from '../src/serve/reload.js';

/**
 * Resolves on the first SIGTERM or SIGINT. A server spawned by `--reload` also stops when its stdin (a pipe from
 * the supervisor) closes: a supervisor killed outright (SIGKILL) cannot forward a signal, and the server must not
 * outlive it holding the port.
 */
export function waitForStopSignal(env: Record<string, string | undefined> = process.env): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const supervised = env[RELOAD_CHILD_ENV] === '1';
    const stop = (signal: NodeJS.Signals) => {
      process.off('SIGTERM', stop);
      process.off('SIGINT', stop);
      if (supervised) {
        process.stdin.off('close', parentGone);
        process.stdin.destroy();
      }
      resolve(signal);
    };
    const parentGone = () => stop('SIGTERM');
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
    if (supervised) {
      process.stdin.once('close', parentGone);
      process.stdin.resume();
    }
  });
}

/** Close what the runner holds open (its checkpointer's pool or file), so the process can exit. */
export async function closeRunner(runner: unknown): Promise<void> {
  const checkpointer = (runner as { checkpointer?: { close?: () => Promise<void> } | null } | null)?.checkpointer;
  await checkpointer?.close?.();
}
