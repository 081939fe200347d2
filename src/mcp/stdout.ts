/**
 * Keeping stdout for the protocol while `agentkit mcp serve` runs. The MCP stdio transport owns the process's stdout:
 * one stray write from agent code (a `console.log`, a `process.stdout.write`, a library's progress line) corrupts the
 * JSON-RPC stream and the client drops the session. So for the life of the command, `stdout.write` is replaced by a
 * function that writes to stderr, and the protocol gets a stream of its own bound to the original write.
 *
 * This is the one place agentkit replaces another object's method (docs/adr/0007-mcp-server.md): it is confined to
 * the `mcp serve` command's own process, installed by the command only, and undone when it returns.
 */
import { Writable } from 'node:stream';

export interface StdoutClaim {
  /** Writes to the real stdout: give it to the protocol transport, and to nothing else. */
  readonly protocol: Writable;
  /** Put `stdout.write` back as it was. Idempotent. */
  release(): void;
}

/** Claim `stdout` (the process's by default) for the protocol; every other write to it goes to `divert` (stderr). */
export function claimStdout(stdout: Writable = process.stdout, divert: Writable = process.stderr): StdoutClaim {
  const hadOwnWrite = Object.hasOwn(stdout, 'write');
  const realWrite = stdout.write;
  const writeThrough = realWrite as (chunk: Buffer, done: (error?: Error | null) => void) => boolean;
  const protocol = new Writable({
    write(chunk: Buffer, _encoding, done) {
      writeThrough.call(stdout, chunk, done);
    },
  });
  const diverted = (...args: unknown[]): boolean => (divert.write as (...a: unknown[]) => boolean).apply(divert, args);
  stdout.write = diverted as Writable['write'];
  let released = false;
  return {
    protocol,
    release() {
      if (released) return;
      released = true;
      if (stdout.write !== diverted) return;
      if (hadOwnWrite) stdout.write = realWrite;
      else delete (stdout as { write?: unknown }).write;
    },
  };
}
