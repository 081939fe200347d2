/**
 * `agentkit platform serve --db <path|url> [--host] [--port] [--insecure-bind] [--rate <n>] [--burst <n>]` (issue 42):
 * the Platform a team deploys, on a SQLite file or a Postgres store. Prints the bound URL as the first line on stdout;
 * SIGTERM/SIGINT close it cleanly.
 */
import { Command, Option } from 'clipanion';
import * as t from 'typanion';
import { startPlatformServer } from '../../src/platform/server/serve.js';
import { AgentkitCommand } from '../base.js';
import { waitForStopSignal } from '../runner-lifecycle.js';

const port = t.cascade(t.isNumber(), [t.isInteger(), t.isInInclusiveRange(0, 65535)]);
const positiveInt = t.cascade(t.isNumber(), [t.isInteger(), t.isAtLeast(1)]);
const rate = t.cascade(t.isNumber(), [t.isAtLeast(0)]);

export class PlatformServeCommand extends AgentkitCommand {
  static override paths = [['platform', 'serve']];

  static override usage = Command.Usage({
    category: 'Platform',
    description: "Serve the Platform (connected mode's control plane) on a SQLite file or a Postgres store",
    details: [
      'Serves every route of the Platform API (`/public/v1/...`: key check, checkpoint replication and restore, claims and leases, eval runs, traces) on the store `--db` names: a file path (SQLite) or a `postgres://...?schema=<name>` URL (replicas on one Postgres store share every row, lease and rate bucket). The bound URL is the first line on stdout.',
      'Every request needs `X-API-Key: <key>` of a key made with `agentkit platform keys create`; the key names the project, and a request reads and writes that project only. Each route needs its scope (403 `forbidden` otherwise); an unknown or revoked key gets 401 `invalid_api_key`.',
      '`--rate` limits each key to that many requests a second (default 50; 0 turns the limit off), with bursts of `--burst` (default 100); over it, 429 `rate_limited` with `Retry-After`.',
      'Binds 127.0.0.1 by default. A non-loopback `--host` is refused (exit 2) unless `--insecure-bind`: keys travel in clear over plain HTTP, so put a TLS proxy in front (docs/platform.md).',
      "`--log-requests` records each authenticated request (route, key id, time; never the key) in the store's `platform_requests` table, for audits; it grows without bound.",
    ].join('\n\n'),
    examples: [
      ['Serve a SQLite store on a free port', '$0 platform serve --db platform.db --port 0'],
      ['Serve a Postgres store behind a TLS proxy', '$0 platform serve --db "postgres://app@db:5432/agentkit?schema=platform" --host 0.0.0.0 --insecure-bind'],
    ],
  });

  db = Option.String('--db', { required: true, description: 'Store: a file path or a postgres://...?schema= URL' });
  host = Option.String('--host', '127.0.0.1', { description: 'Bind address (default 127.0.0.1); non-loopback needs --insecure-bind' });
  port = Option.String('--port', '7843', { validator: port, description: 'Port (default 7843; 0 picks a free one)' });
  insecureBind = Option.Boolean('--insecure-bind', false, { description: 'Acknowledge a non-loopback bind (keys travel in clear without a TLS proxy)' });
  rate = Option.String('--rate', '50', { validator: rate, description: 'Requests a second per key (default 50; 0: no limit)' });
  burst = Option.String('--burst', '100', { validator: positiveInt, description: 'Requests a key may send at once before the rate applies (default 100)' });
  maxRowBytes = Option.String('--max-row-bytes', {
    validator: positiveInt,
    description: 'Largest accepted checkpoint row in bytes (default 1048576); larger rows are rejected',
  });
  leaseTtlMs = Option.String('--lease-ttl-ms', {
    validator: positiveInt,
    description: 'How long arriving rows keep an execution leased to their host, in ms (default 30000)',
  });
  logRequests = Option.Boolean('--log-requests', false, { description: 'Record each authenticated request (route, key id, time) in the store' });

  async run(): Promise<number> {
    const server = await startPlatformServer({
      db: this.db,
      host: this.host,
      port: this.port,
      insecureBind: this.insecureBind,
      rate: this.rate,
      burst: this.burst,
      logRequests: this.logRequests,
      cwd: this.context.cwd,
      ...(this.maxRowBytes !== undefined ? { maxRowBytes: this.maxRowBytes } : {}),
      ...(this.leaseTtlMs !== undefined ? { leaseTtlMs: this.leaseTtlMs } : {}),
      onServerError: (error) => this.err(`agentkit platform: ${error instanceof Error ? error.message : String(error)}`),
    });
    this.out(server.url);
    if (server.warning) this.err(server.warning);
    this.err(`agentkit platform: serving ${server.store.label} on ${server.url}`);
    await waitForStopSignal(this.context.env);
    await server.close();
    return 0;
  }
}
