/** What long-running commands (`agent serve`, `mcp serve`) share: waiting for a stop signal, releasing the runner. */

/** Resolves on the first SIGTERM or SIGINT. */
export function waitForStopSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      process.off('SIGTERM', stop);
      process.off('SIGINT', stop);
      resolve(signal);
    };
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
  });
}

/** Close what the runner holds open (its checkpointer's pool or file), so the process can exit. */
export async function closeRunner(runner: unknown): Promise<void> {
  const checkpointer = (runner as { checkpointer?: { close?: () => Promise<void> } | null } | null)?.checkpointer;
  await checkpointer?.close?.();
}
