/**
 * `agentkit agent serve <spec>`: serve an Agent, Chain, Swarm or Supervisor over HTTP (`GET /health`, `POST /run`,
 * `POST /run/stream`) until SIGTERM or SIGINT, then finish in-flight runs and flush traces.
 */
import { Command, Option, UsageError } from 'clipanion';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as t from 'typanion';
import { localStore } from '../../src/config/paths.js';
import { storeValue } from '../../src/config/store-value.js';
import { registerSecret } from '../../src/config/secrets.js';
import { DEFAULT_MAX_BODY_BYTES } from '../../src/serve/app.js';
import { normalizeToken } from '../../src/serve/auth.js';
import { parseCorsOrigin } from '../../src/http/cors.js';
import { idempotencyTtlMs } from '../../src/serve/request-key.js';
import { toServeTarget } from '../../src/serve/adapters.js';
import { superviseWithReload } from '../../src/serve/reload.js';
import { startRecoveryLoop, type RecoveryLoop } from '../../src/serve/recovery-loop.js';
import { DEFAULT_GRACE_MS, startAgentServer } from '../../src/serve/server.js';
import { recoverSettings } from '../../src/recovery/recoverer.js';
import { loadTarget, parseTarget } from '../../src/targets.js';
import { shutdownTracing } from '../../src/tracing/index.js';
import { AgentkitCommand } from '../base.js';
import { slowWork } from '../progress.js';
import { closeRunner, waitForStopSignal } from '../runner-lifecycle.js';

const port = t.cascade(t.isNumber(), [t.isInteger(), t.isInInclusiveRange(0, 65535)]);
const positiveInteger = t.cascade(t.isNumber(), [t.isInteger(), t.isAtLeast(1)]);

export class AgentServeCommand extends AgentkitCommand {
  static override paths = [['agent', 'serve']];

  static override usage = Command.Usage({
    category: 'Serving',
    description: 'Serve an agent, chain, swarm or supervisor over HTTP',
    details: [
      '`<spec>` is `path/to/file.ts:attr`, `file.js:attr` or `module:attr`, resolved from the working directory; the attribute may be the runner or a zero-argument factory returning one.',
      'Routes: `GET /health` (always open), `POST /run` with `{"input": "..."}` (any target; a paused run answers `status: paused` with its `execution_id` and `pending_interrupt`), `POST /run/stream` (Agent targets only; Server-Sent Events `delta`, `tool_call`, `paused`, `error`, `done`). Requests and responses are validated against the OpenAPI contract; bodies over `--max-body-bytes` get 413.',
      'With `--auth-token` (or `AGENTKIT_SERVE_TOKEN`; the flag wins) every route except `GET /health` requires `Authorization: Bearer <token>` (surrounding whitespace of the token is trimmed; whitespace inside it is refused). Binding a non-loopback address without a token prints a warning: set a token and terminate TLS at a reverse proxy.',
      'A run request may carry `Idempotency-Key: <key>` (1-255 visible characters, bare or quoted): the first request with a key records it with its execution; a repeat from the same caller within `AGENTKIT_IDEMPOTENCY_TTL` (default 24h; seconds, or `90m`, `24h`, `7d`) starts nothing and answers that execution as it stands (409 while it runs, 422 for a different body). The runner needs a checkpointer.',
      '`--cors-origin <origin>` (repeatable; off by default) lets browser pages on that exact origin (`https://app.example`, `http://127.0.0.1:5173`) call the agent: their CORS preflights are answered before auth and validation (allowed headers: `authorization`, `content-type`, `idempotency-key`, `traceparent`, `tracestate`, `baggage`, `last-event-id`) and every answer to them carries `Access-Control-Allow-Origin`. `*` and `null` are refused. A token still applies to their requests.',
      '`POST /run/stream` names each event (`event: delta`, ... `event: done`, then its `data:` line) and sends no `id:`: a stream cannot be resumed, and a `Last-Event-ID` header is ignored; a client that lost a stream re-POSTs with the same `Idempotency-Key` and gets the run as it stands.',
      '`GET /runs/{execution_id}` answers where an execution of this runner stands (`running`, `paused`, `completed`, `failed`, `needs_attention`). It is behind the token; without a token it is off unless `--expose-status` is given, which lets anyone who can reach the port read run outputs and pending contexts.',
      "Recovery (on by default; `--no-recover` turns it off): the server sweeps its runner's store on start and every `AGENTKIT_RECOVER_INTERVAL_MS` (default 5000, jittered) for orphaned executions of this runner (their process died: lease expired, or a dead process of this host) and continues them here, at most `AGENTKIT_RECOVER_CONCURRENCY` (default 4) at once; one replica wins each claim fleet-wide. A run that crashed inside a side-effecting tool is parked `needs_attention`; past `AGENTKIT_RECOVER_MAX_ATTEMPTS` (default 3) a run is marked failed. See `agentkit executions list`.",
      'There is no resume route: resume a paused run from the application (`resume(executionId, { resumeValue })`) or with `agentkit resume <id> --runner <spec>` against the same checkpointer. Traces go to the local store (`AGENTKIT_LOCAL_DB`, default `./.agentkit/local.db`).',
      'SIGTERM or SIGINT stops the server the same way for every run (ADR 0051): it stops accepting requests and sweeping, lets each in-flight run (and recovery) reach its next step boundary (a chain node, an agent turn, a swarm handoff) within `--grace-ms` (default 25000), stops it there and releases its lease without a `failed` row, so another replica sharing the store continues it at once; the request answers 503 `run_stopped` with the `execution_id` (a stream: an `error` event and `done` with status `stopped`). A run still mid-step after the grace writes nothing more and is recovered once its lease expires. Then traces are flushed.',
    ].join('\n\n'),
    examples: [
      ['Serve the quickstart agent on port 8000', '$0 agent serve examples/quickstart-agent.ts:support'],
      ['Serve on loopback with a token, reloading on changes', '$0 agent serve agents.ts:support --host 127.0.0.1 --auth-token s3cret --reload'],
    ],
  });

  spec = Option.String({ name: 'spec' });
  port = Option.String('--port', '8000', { validator: port, description: 'Listen port (default 8000; 0 picks a free one)' });
  host = Option.String('--host', '0.0.0.0', { description: 'Bind address (default 0.0.0.0)' });
  reload = Option.Boolean('--reload', false, { description: 'Restart when a source file changes' });
  authToken = Option.String('--auth-token', { description: 'Require this bearer token on every route but /health (default: AGENTKIT_SERVE_TOKEN)' });
  exposeStatus = Option.Boolean('--expose-status', false, {
    description:
      'Serve GET /runs/{execution_id} without a token (anyone who can reach the port reads run outputs and pending contexts); with a token the route is always on, behind it',
  });
  corsOrigins = Option.Array('--cors-origin', [], {
    arity: 1,
    description: 'Let browser pages on this exact origin call the agent (repeatable; `*` and `null` are refused)',
  });
  maxBodyBytes = Option.String('--max-body-bytes', String(DEFAULT_MAX_BODY_BYTES), {
    validator: positiveInteger,
    description: 'Request body cap in bytes (default 10 MiB)',
  });

  graceMs = Option.String('--grace-ms', String(DEFAULT_GRACE_MS), {
    validator: t.cascade(t.isNumber(), [t.isInteger(), t.isAtLeast(0)]),
    description: 'On SIGTERM, how long in-flight runs get to reach their next step boundary and stop there, in ms (default 25000)',
  });

  noRecover = Option.Boolean('--no-recover', false, {
    description: "Do not sweep the runner's store for orphaned executions (recovery is on by default)",
  });

  async run(): Promise<number> {
    let token: string | undefined;
    try {
      token = normalizeToken(this.authToken ?? this.context.env.AGENTKIT_SERVE_TOKEN, this.authToken !== undefined ? '--auth-token' : 'AGENTKIT_SERVE_TOKEN');
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
    registerSecret(token);
    const corsOrigins = this.corsOriginList();
    this.idempotencyTtl();
    if (this.reload) return this.supervise();

    const progress = slowWork(this.context.stderr, `agentkit: loading ${this.spec} and starting the server`);
    let loaded: Awaited<ReturnType<typeof loadTarget>>;
    let server: Awaited<ReturnType<typeof startAgentServer>>;
    let recovery: RecoveryLoop | null = null;
    const settings = recoverSettings(this.context.env);
    try {
      loaded = await loadTarget(this.spec, { cwd: this.context.cwd });
      const target = toServeTarget(loaded.value, { traceDb: storeValue(localStore({ env: this.context.env, cwd: this.context.cwd })) });
      server = await this.start(target, token, corsOrigins, loaded.value, () => recovery);
      if (!this.noRecover) recovery = startRecoveryLoop(loaded.value, { ...settings, stop: server.stop, log: (line) => this.err(line) });
    } finally {
      progress.done();
    }
    await waitForStopSignal(this.context.env);
    this.err(`agentkit: stopping: in-flight runs stop at their next step boundary (grace ${this.graceMs} ms); another replica continues them`);
    // Runs (requests and recoveries) stop at their next boundary from now, and no sweep starts another.
    server.stop.drain();
    await recovery?.stop();
    await server.close();
    this.err('agentkit: stopped');
    void loaded;
    return 0;
  }

  private start(
    target: ReturnType<typeof toServeTarget>,
    token: string | undefined,
    corsOrigins: readonly string[],
    runner: unknown,
    recovery: () => RecoveryLoop | null,
  ): ReturnType<typeof startAgentServer> {
    return startAgentServer(target, {
      host: this.host,
      port: this.port,
      ...(token ? { token } : {}),
      exposeStatus: this.exposeStatus,
      corsOrigins,
      idempotencyTtlMs: this.idempotencyTtl(),
      maxBodyBytes: this.maxBodyBytes,
      log: (line) => this.err(line),
      graceMs: this.graceMs,
      // Recoveries started here stop at their next boundary too, within the same grace, before the store closes.
      draining: () => recovery()?.settled(),
      onShutdown: async () => {
        await shutdownTracing();
        await closeRunner(runner);
      },
    });
  }

  /** The `--cors-origin` values, each checked to be an exact http(s) origin; `*`, `null` or anything else is a usage error. */
  private corsOriginList(): string[] {
    try {
      return (this.corsOrigins ?? []).map(parseCorsOrigin);
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
  }

  /** `AGENTKIT_IDEMPOTENCY_TTL` in ms; a malformed value is a usage error. */
  private idempotencyTtl(): number {
    try {
      return idempotencyTtlMs(this.context.env);
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
  }

  /** Run this same command without --reload in a child, restarting it when a file under the target's folder changes. */
  private supervise(): Promise<number> {
    const spec = parseTarget(this.spec);
    const watchDir = spec.kind === 'file' ? path.dirname(path.resolve(this.context.cwd, spec.module)) : this.context.cwd;
    // This file's own extension says whether we run from source (tsx) or from dist/.
    const main = fileURLToPath(new URL(`../main${path.extname(fileURLToPath(import.meta.url))}`, import.meta.url));
    const args = ['agent', 'serve', this.spec, '--port', String(this.port), '--host', this.host, '--max-body-bytes', String(this.maxBodyBytes)];
    if (this.authToken) args.push('--auth-token', this.authToken);
    if (this.exposeStatus) args.push('--expose-status');
    for (const origin of this.corsOrigins ?? []) args.push('--cors-origin', origin);
    if (this.noRecover) args.push('--no-recover');
    args.push('--grace-ms', String(this.graceMs));
    this.err(`agentkit: watching ${watchDir} for changes`);
    return superviseWithReload({
      command: [process.execPath, ...process.execArgv, main, ...args],
      watchDir,
      cwd: this.context.cwd,
      env: this.context.env,
      log: (line) => this.err(line),
    });
  }
}
