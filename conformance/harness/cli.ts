/**
 * The CLI surface: commands run in-process through `runCli` with captured streams, and a few through the real
 * built binary (`node dist/cli/main.js`) in a child process.
 */
import { PassThrough } from 'node:stream';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCli } from '../../cli/main.js';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  cwd: string;
  env?: Record<string, string | undefined>;
  stdin?: string;
}

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The built binary the real-process runs use. */
export const BIN = path.join(root, 'dist/cli/main.js');

/** Run `agentkit <argv>` in this process. */
export async function runInProcess(argv: string[], options: CliOptions): Promise<CliRun> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const stdin = new PassThrough();
  stdin.end(options.stdin ?? '');
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  stdout.on('data', (chunk: Buffer) => out.push(chunk));
  stderr.on('data', (chunk: Buffer) => err.push(chunk));
  const code = await runCli(argv, {
    stdin,
    stdout,
    stderr,
    env: { ...process.env, NO_COLOR: '1', ...options.env },
    cwd: options.cwd,
  });
  return { code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') };
}

/** Run the real `agentkit` binary (built dist/) as a child process. */
export function runBinary(argv: string[], options: CliOptions): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...argv], {
      cwd: options.cwd,
      env: { ...process.env, NO_COLOR: '1', ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.stdin.end(options.stdin ?? '');
    child.once('error', reject);
    child.once('close', (code, signal) => {
      resolve({
        code: code ?? (signal ? 128 : 1),
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
      });
    });
  });
}
