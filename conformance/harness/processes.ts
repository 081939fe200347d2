/**
 * Child Node processes for scenarios that need a real process boundary (a crash, a second resumer). Spawned as
 * `node --conditions=agentkit-source --import tsx <file>` (never the tsx binary, which forks and would outlive a SIGKILL).
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface NodeChild {
  readonly process: ChildProcessWithoutNullStreams;
  /** Lines printed on stdout so far. */
  readonly lines: string[];
  /** Everything printed on stderr so far. */
  stderr(): string;
  /** Resolves with the first stdout line (seen or future) matching `test`; rejects if the process exits first. */
  waitForLine(test: (line: string) => boolean, timeoutMs?: number): Promise<string>;
  /** Resolves when the process has exited. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Like `exited`, but rejects (naming the file) when the process is still running after `timeoutMs`. */
  exit(timeoutMs?: number): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Start `file` (relative to the repository root) with `args`; kill it with `child.process.kill('SIGKILL')`. */
export function spawnNode(file: string, args: string[], options: { env?: Record<string, string> } = {}): NodeChild {
  const child = spawn(process.execPath, ['--conditions=agentkit-source', '--import', 'tsx', path.join(root, file), ...args], {
    cwd: root,
    env: { ...process.env, ...options.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const waiters: Array<{ test: (line: string) => boolean; resolve: (line: string) => void }> = [];
  let errText = '';
  let partial = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    partial += chunk;
    const parts = partial.split('\n');
    partial = parts.pop() ?? '';
    for (const line of parts) {
      lines.push(line);
      for (const waiter of waiters.filter((w) => w.test(line))) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(line);
      }
    }
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    errText += chunk;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('close', (code, signal) => resolve({ code, signal })),
  );
  return {
    process: child,
    lines,
    stderr: () => errText,
    exited,
    exit(timeoutMs = 20_000) {
      let timer: NodeJS.Timeout | undefined;
      const limit = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${file} still running after ${timeoutMs} ms; stderr: ${errText}`)), timeoutMs);
      });
      return Promise.race([exited, limit]).finally(() => clearTimeout(timer));
    },
    waitForLine(test, timeoutMs = 20_000) {
      const seen = lines.find(test);
      if (seen !== undefined) return Promise.resolve(seen);
      return new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no matching line from ${file} within ${timeoutMs} ms; stderr: ${errText}`)), timeoutMs);
        waiters.push({
          test,
          resolve: (line) => {
            clearTimeout(timer);
            resolve(line);
          },
        });
        void exited.then(({ code, signal }) => {
          clearTimeout(timer);
          reject(new Error(`${file} exited (${code ?? signal}) before printing the line; stderr: ${errText}`));
        });
      });
    },
  };
}

/**
 * Run a TypeScript file to completion the way a user runs an example (`node --conditions=agentkit-source --import tsx
 * <file> [args]`) in `cwd` with exactly `env`, and collect its exit code and output. `argv` is the file (absolute, or
 * relative to `cwd`) followed by its arguments.
 */
export function runTsFile(
  argv: readonly string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--conditions=agentkit-source', '--import', import.meta.resolve('tsx'), ...argv], {
      cwd: options.cwd,
      env: options.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c));
    child.stderr.on('data', (c: Buffer) => (stderr += c));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
