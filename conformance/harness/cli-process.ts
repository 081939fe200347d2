/**
 * Long-running `agentkit` commands (servers) as real processes of the built binary: start, wait for a line on
 * stderr (where servers announce themselves), signal, await the exit.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { BIN } from './cli.js';

export interface CliProcess {
  readonly child: ChildProcessWithoutNullStreams;
  /** All stderr so far. */
  stderr(): string;
  /** All stdout so far. */
  stdout(): string;
  /** The first stderr match of `pattern` (seen or future); rejects if the process exits first or after `timeoutMs`. */
  waitForStderr(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  /** Resolves with the exit code (or signal) once the process has exited. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGKILL if still running (cleanup). */
  kill(): void;
}

/** Start `agentkit <argv>` from the built dist/ (or from `bin`, another copy's cli/main.js) in `cwd`. */
export function startCli(argv: string[], options: { cwd: string; env?: Record<string, string | undefined>; bin?: string }): CliProcess {
  const child = spawn(process.execPath, [options.bin ?? BIN, ...argv], {
    cwd: options.cwd,
    env: { ...process.env, NO_COLOR: '1', ...options.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let err = '';
  let out = '';
  const listeners = new Set<() => void>();
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    err += chunk;
    for (const listener of listeners) listener();
  });
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('close', (code, signal) => resolve({ code, signal })),
  );
  return {
    child,
    stderr: () => err,
    stdout: () => out,
    exited,
    kill: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
    waitForStderr(pattern, timeoutMs = 20_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const match = pattern.exec(err);
          if (match) {
            done();
            resolve(match);
          }
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`no stderr line matching ${pattern} within ${timeoutMs} ms; stderr so far:\n${err}`));
        }, timeoutMs);
        const onExit = () => {
          done();
          reject(new Error(`agentkit ${argv.join(' ')} exited before printing ${pattern}; stderr:\n${err}`));
        };
        const done = () => {
          clearTimeout(timer);
          listeners.delete(check);
          child.off('close', onExit);
        };
        listeners.add(check);
        child.once('close', onExit);
        check();
      });
    },
  };
}
