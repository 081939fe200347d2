/**
 * `--reload`: a supervising process that runs the server in a child and restarts it when a source file under the
 * watched directory changes. The child gets SIGTERM (graceful shutdown) and is replaced once it has exited, so the
 * port is free again.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { watch } from 'node:fs';

/** Set on the server the supervisor spawns: its stdin is a pipe from the supervisor (see waitForStopSignal). */
export const RELOAD_CHILD_ENV = 'AGENTKIT_RELOAD_CHILD';

export interface ReloadOptions {
  /** The command that serves (argv[0] is the executable). */
  command: readonly string[];
  /** Directory to watch, recursively. */
  watchDir: string;
  cwd: string;
  env: Record<string, string | undefined>;
  log: (line: string) => void;
  /** Extensions that trigger a restart. */
  extensions?: readonly string[];
}

/** Supervise until SIGINT/SIGTERM; resolves with the exit code to use. */
export function superviseWithReload(options: ReloadOptions): Promise<number> {
  const extensions = options.extensions ?? ['.ts', '.js', '.mjs', '.cjs', '.mts', '.json'];
  let child: ChildProcess | undefined;
  let restartTimer: NodeJS.Timeout | undefined;
  let stopping = false;

  const start = () => {
    // stdin is a pipe the child watches (AGENTKIT_RELOAD_CHILD): if this process dies, even by SIGKILL, the pipe
    // closes and the child shuts down instead of holding the port.
    child = spawn(options.command[0]!, options.command.slice(1), {
      cwd: options.cwd,
      env: { ...options.env, [RELOAD_CHILD_ENV]: '1' },
      stdio: ['pipe', 'inherit', 'inherit'],
    });
  };
  const stopChild = () =>
    new Promise<void>((resolve) => {
      if (!child || child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });

  return new Promise<number>((resolve) => {
    const watcher = watch(options.watchDir, { recursive: true }, (_event, file) => {
      if (stopping || !file || file.includes('node_modules') || file.includes('.agentkit')) return;
      if (!extensions.some((ext) => file.endsWith(ext))) return;
      clearTimeout(restartTimer);
      restartTimer = setTimeout(async () => {
        options.log(`agentkit: ${file} changed; restarting`);
        await stopChild();
        if (!stopping) start();
      }, 150);
    });
    const shutdown = async () => {
      stopping = true;
      watcher.close();
      clearTimeout(restartTimer);
      await stopChild();
      resolve(0);
    };
    process.once('SIGINT', shutdown);
    process.once('SIGTERM', shutdown);
    start();
  });
}
