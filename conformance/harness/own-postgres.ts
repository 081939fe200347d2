/**
 * A throwaway Postgres cluster of the test's own, for fault scenarios (killed connections, outages) that must never
 * touch the shared server. initdb into a temp directory, `postgres` on a free loopback port with its socket in that
 * directory, trust auth; stopped (immediate) and removed afterwards. initdb refuses to run as root: under root the
 * cluster runs as the `postgres` system user via runuser.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';

export interface OwnPostgres {
  /** `postgres://postgres@127.0.0.1:<port>/postgres` */
  url: string;
  port: number;
  /** Stop the server (immediate), keeping its data: every connection fails until `restore()`. */
  outage(): Promise<void>;
  /** Start it again on the same port and data. */
  restore(): Promise<void>;
  stop(): Promise<void>;
}

/** Where the PostgreSQL server binaries are, or null when none is installed. */
export function postgresBinDir(): string | null {
  for (const version of ['17', '16', '15', '14']) {
    const dir = `/usr/lib/postgresql/${version}/bin`;
    if (existsSync(path.join(dir, 'initdb'))) return dir;
  }
  return null;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as net.AddressInfo).port;
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

/** initdb + start; resolves when it accepts connections. */
export async function startOwnPostgres(): Promise<OwnPostgres> {
  const bin = postgresBinDir();
  if (!bin) throw new Error('no PostgreSQL server binaries under /usr/lib/postgresql/*/bin');
  const asRoot = process.getuid?.() === 0;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'agentkit-own-pg-'));
  const owner = asRoot ? spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).stdout.trim() || null : null;
  if (asRoot) {
    if (!owner) throw new Error('running as root and there is no postgres user to run the cluster as');
    const gid = Number(spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).stdout.trim());
    chownSync(dir, Number(owner), gid);
  }
  const run = (command: string, args: string[]) => (asRoot ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args]) as [string, string[]];
  const data = path.join(dir, 'data');
  const [initCmd, initArgs] = run(path.join(bin, 'initdb'), ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8', '--locale=C']);
  const init = spawnSync(initCmd, initArgs, { encoding: 'utf8' });
  if (init.status !== 0) throw new Error(`initdb failed: ${init.stderr || init.stdout}`);
  const port = await freePort();
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  let child: ChildProcess = await launch();
  /** Start the server on `port` over `data`; resolves when it accepts connections. */
  async function launch(): Promise<ChildProcess> {
    const [cmd, args] = run(path.join(bin!, 'postgres'), [
      '-D',
      data,
      '-p',
      String(port),
      '-k',
      dir,
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'fsync=off',
      '-c',
      'synchronous_commit=off',
      '-c',
      'full_page_writes=off',
      '-c',
      'max_connections=60',
      '-c',
      'shared_buffers=16MB',
    ]);
    const server: ChildProcess = spawn(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    server.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
    const deadline = Date.now() + 20_000;
    for (;;) {
      const client = new pg.Client({ connectionString: url });
      client.on('error', () => undefined);
      try {
        await client.connect();
        await client.end();
        return server;
      } catch {
        await client.end().catch(() => undefined);
        if (server.exitCode !== null || Date.now() > deadline) {
          server.kill('SIGKILL');
          rmSync(dir, { recursive: true, force: true });
          throw new Error(`own Postgres did not start on port ${port}: ${stderr}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  }
  /**
   * Shut the running server down: `immediate` when its data is thrown away; `fast` for an outage (sessions are cut,
   * committed work is kept: the cluster runs with synchronous_commit off, and an immediate stop would lose it).
   */
  async function halt(mode: 'immediate' | 'fast' = 'immediate'): Promise<void> {
    if (child.exitCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const [stopCmd, stopArgs] = run(path.join(bin!, 'pg_ctl'), ['-D', data, 'stop', '-m', mode, '-w', '-t', '10']);
    spawnSync(stopCmd, stopArgs, { stdio: 'ignore' });
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5000))]);
    if (child.exitCode === null) child.kill('SIGKILL');
  }
  return {
    url,
    port,
    outage: () => halt('fast'),
    restore: async () => {
      if (child.exitCode === null) return;
      child = await launch();
    },
    stop: async () => {
      // Immediate shutdown: the data directory is thrown away anyway.
      await halt();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
