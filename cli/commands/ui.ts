/**
 * `agentkit ui [start]`: the local UI over the local store (traces, executions, approvals), and
 * `agentkit ui reset-password`: write new credentials to the auth file.
 */
import { Command, Option, UsageError } from 'clipanion';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as t from 'typanion';
import { agentkitDir, localStore } from '../../src/config/paths.js';
import { parseStoreValue, storeValue } from '../../src/config/store-value.js';
import type { Checkpointer } from '../../src/durability/checkpointer.js';
import { checkpointerFor } from '../../src/durability/checkpointer-for.js';
import { PostgresCheckpointer } from '../../src/durability/postgres-checkpointer.js';
import { loadTarget } from '../../src/targets.js';
import { openLocalStore } from '../../src/store/open.js';
import { openStore } from '../../src/store/store-handle.js';
import { TraceStore } from '../../src/tracing/trace-store.js';
import { ConfigError } from '../../src/errors.js';
import { EvalStore } from '../../src/eval/store.js';
import { ProjectEvalRuns, ProjectTraceStore } from '../../src/platform/project-view/index.js';
import { holdsPlatform, openPlatformStore } from '../../src/platform/server/open-platform-store.js';
import type { PlatformStore } from '../../src/platform/server/store-types.js';
import { findUser, newAuthFile, readAuthFile, writeAuthFile, type AuthFile } from '../../src/ui/auth-file.js';
import { setPassword } from '../../src/ui/users.js';
import { newPassword } from './ui-users.js';
import { importLegacyOnStart } from '../../src/ui/legacy-import.js';
import { openBrowser } from '../../src/ui/open-browser.js';
import { RunnerRegistry } from '../../src/ui/runners.js';
import { bindRefusal, DEFAULT_UI_PORT, startUiServer } from '../../src/ui/server.js';
import { AgentkitCommand } from '../base.js';
import { closeRunner, waitForStopSignal } from '../runner-lifecycle.js';
import { askPassword, askLine } from '../prompt.js';

const port = t.cascade(t.isNumber(), [t.isInteger(), t.isInInclusiveRange(0, 65535)]);

/** The built web app next to this file's package: dist/ui-web/ (built by `npm run build`). */
export function defaultWebDir(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  // From source (cli/commands) and from dist/cli/commands alike, the package root is the nearest folder with package.json.
  let dir = here;
  while (!existsSync(path.join(dir, 'package.json')) && path.dirname(dir) !== dir) dir = path.dirname(dir);
  return path.join(dir, 'dist', 'ui-web');
}

export class UiStartCommand extends AgentkitCommand {
  static override paths = [['ui'], ['ui', 'start']];

  static override usage = Command.Usage({
    category: 'Local UI',
    description: 'Start the local UI: traces, replay, approvals, executions and evals in the browser',
    details: [
      'Serves the web app and its JSON API (`/api/*`) on http://127.0.0.1:7842 until SIGTERM or SIGINT. Traces, executions and pending interrupts are read from the store `--db` names: a file path or a `postgres://user@host:port/db?schema=<name>` URL (default `AGENTKIT_LOCAL_DB`, else `./.agentkit/local.db`). With a file, `--connection-string` (and `--schema`, default `agentkit`) reads executions from Postgres instead. A password in the URL is never printed; prefer `PGPASSWORD` or `~/.pgpass`.',
      'On a Postgres store, eval runs are read from it (a run `agentkit eval run --db <url>` wrote from CI is listed and compared; ADR 0064); favorites are not stored there yet: none are listed and marking a favorite answers 422. The auth file stays on this host.',
      'Login is required unless `--no-auth`. The credentials live in `--auth-file` (default `./.agentkit/auth.json`, mode 0600: users with roles and scrypt hashes of their passwords, a session secret; manage them with `agentkit ui users`). The file is re-read when it changes, so a removed or demoted user is refused on their next request. When the file is missing, a start on a terminal asks for a username and password (that user is an admin); otherwise create it first with `agentkit ui reset-password --password-stdin` or `agentkit ui users add <name> --role admin --password-stdin`.',
      'A non-loopback `--host` is refused (exit 2) unless `--insecure-bind`: the session cookie travels over plain HTTP. The browser is opened unless `--no-open` or there is no display.',
      'On start, the legacy stores (`./.agentkit/traces.db`, `./.agentkit/checkpoints.db`, `./.prompts/`) are imported into the local store once, exactly as `agentkit migrate` does; what was imported is reported on stderr.',
      "`--project <p>` shows one project of a Platform store (the `--db` that `agentkit platform serve` runs on): the traces and eval runs the Platform received under that project's keys, read-only, and nothing of any other project. An exported eval run carries verdicts, never inputs or outputs. It cannot be combined with `--agent` or `--connection-string`; a store without the Platform's tables is refused (exit 2).",
      '`--agent <file>:<attr>` (repeatable) registers a runner for the Resume and Rerun buttons; a paused execution is resumed by the runner that wrote it (the root of its agent path: a Swarm or Supervisor, else its chain or agent); a replay fork is rerun by the registered Agent named like the fork’s agent. A target that fails to load is reported and skipped; the UI still starts. No route runs an agent from a request.',
    ].join('\n\n'),
    examples: [
      ['Start the UI on the local store', '$0 ui'],
      ['Register runners so paused runs can be approved from the inbox', '$0 ui --agent examples/durability/refund-chain.ts:refundChain'],
      [
        "Read a fleet's traces and executions from Postgres, no login, no browser",
        '$0 ui --db postgres://app@db:5432/prod?schema=agentkit --no-auth --no-open',
      ],
      ["Show the Platform's traces and eval runs of project support", '$0 ui --db postgres://app@db:5432/prod?schema=platform --project support'],
    ],
  });

  host = Option.String('--host', '127.0.0.1', { description: 'Bind address (default 127.0.0.1); non-loopback needs --insecure-bind' });
  port = Option.String('--port', String(DEFAULT_UI_PORT), { validator: port, description: 'Port (default 7842; 0 picks a free one)' });
  noAuth = Option.Boolean('--no-auth', false, { description: 'Skip login (anyone who can reach the port can approve runs)' });
  noOpen = Option.Boolean('--no-open', false, { description: 'Do not open a browser' });
  insecureBind = Option.Boolean('--insecure-bind', false, { description: 'Acknowledge a non-loopback bind' });
  db = Option.String('--db', { description: 'Store: a file path or a postgres://...?schema= URL (default AGENTKIT_LOCAL_DB, else ./.agentkit/local.db)' });
  authFile = Option.String('--auth-file', { description: 'Credentials file (default ./.agentkit/auth.json)' });
  agents = Option.Array('--agent', [], { description: 'Register a runner <file>:<attr> or <module>:<attr> (resume and replay rerun); repeatable' });
  connectionString = Option.String('--connection-string', { description: 'Read executions from this Postgres URL while traces stay in the --db file' });
  schema = Option.String('--schema', { description: 'Postgres schema (default agentkit)' });
  project = Option.String('--project', {
    description: "Show this project of a Platform store (--db): its received traces and eval runs, read-only, no other project's",
  });

  async run(): Promise<number> {
    const refusal = bindRefusal(this.host, this.insecureBind);
    if (refusal) throw new UsageError(refusal);
    if (this.schema !== undefined && this.connectionString === undefined)
      throw new UsageError('--schema selects a Postgres schema; it needs --connection-string');
    if (this.project !== undefined) {
      if (this.project === '') throw new UsageError('--project must name a project, got an empty string');
      if (this.agents.length > 0) throw new UsageError('--project shows a Platform project read-only: it cannot be combined with --agent (reruns and resumes)');
      if (this.connectionString !== undefined)
        throw new UsageError('--project reads the Platform store --db names: it cannot be combined with --connection-string');
    }
    const where = { env: this.context.env, cwd: this.context.cwd };
    const store = this.db !== undefined ? parseStoreValue(this.db, this.context.cwd) : localStore(where);
    if (store.engine === 'postgres' && this.connectionString !== undefined)
      throw new UsageError('--connection-string reads executions from Postgres beside a store file; --db already names a Postgres store');
    const authPath = this.authFile !== undefined ? path.resolve(this.context.cwd, this.authFile) : path.join(agentkitDir(where), 'auth.json');
    // With the path, the server re-reads the file when it changes: `ui users ...` takes effect on the next request.
    const auth = this.noAuth ? ({ mode: 'none' } as const) : ({ mode: 'password', file: await this.credentials(authPath), path: authPath } as const);

    const registry = new RunnerRegistry();
    const loaded: unknown[] = [];
    for (const spec of this.agents) {
      try {
        const { value } = await loadTarget(spec, { cwd: this.context.cwd });
        const { kind, name } = registry.add(value);
        loaded.push(value);
        this.err(`agentkit ui: registered ${kind} '${name}' from ${spec}`);
      } catch (error) {
        this.err(`agentkit ui: skipped --agent ${spec}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }

    // Older stores (.agentkit/traces.db, .agentkit/checkpoints.db, .prompts/) are imported once into a store file, as
    // `agentkit migrate` does; a Postgres store is moved with `agentkit store copy`, never on start.
    if (store.engine === 'sqlite') for (const line of await importLegacyOnStart({ ...where, dbPath: store.path })) this.err(`agentkit ui: ${line}`);

    const opened = openStore(store, { min: 0, max: 4 });
    const checkpointer: Checkpointer =
      this.connectionString !== undefined
        ? new PostgresCheckpointer(this.connectionString, { schema: this.schema ?? 'agentkit', minPoolSize: 0, maxPoolSize: 4 })
        : checkpointerFor(opened, { minPoolSize: 0, maxPoolSize: 4 });
    let platform: PlatformStore | undefined;
    if (this.project !== undefined) {
      if (!(await holdsPlatform(opened))) {
        await opened.close();
        throw new ConfigError(
          `--project reads a Platform store, and ${opened.label} holds no Platform tables (run \`agentkit platform serve --db <store>\` on it first)`,
        );
      }
      platform = openPlatformStore(storeValue(store), this.context.cwd);
      // Favorites and forks live in the store's own tables: a Platform file gets them now, as a store's first use would.
      if (store.engine === 'sqlite') openLocalStore(store.path).close();
    }
    const traceStore = platform ? new ProjectTraceStore(platform, this.project!, { store: opened }) : new TraceStore({ store: opened });
    const evalStore = platform ? new EvalStore({ runStore: new ProjectEvalRuns(platform, this.project!) }) : undefined;
    const server = await startUiServer({
      host: this.host,
      port: this.port,
      insecureBind: this.insecureBind,
      checkpointer,
      traceStore,
      ...(evalStore ? { evalStore, project: this.project! } : {}),
      auth,
      runners: registry,
      webDir: defaultWebDir(),
      onServerError: (error) => this.err(`agentkit ui: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`),
      onShutdown: async () => {
        await checkpointer.close();
        await traceStore.close();
        await platform?.close();
        await opened.close();
        for (const runner of loaded) await closeRunner(runner);
      },
    });
    this.err(
      `agentkit ui: serving on ${server.url} (store ${opened.label}${this.project !== undefined ? `, Platform project '${this.project}' read-only` : ''}${this.connectionString ? `, executions from Postgres schema ${this.schema ?? 'agentkit'}` : ''}${this.noAuth ? ', no login' : `, ${usersLine((auth as { file: AuthFile }).file)}`})`,
    );
    if (!this.noOpen) this.err(`agentkit ui: ${await openBrowser(server.url, this.context.env)}`);
    await waitForStopSignal(this.context.env);
    this.err('agentkit ui: stopping');
    await server.close();
    this.err('agentkit ui: stopped');
    return 0;
  }

  /** The auth file's credentials; on a first start at a terminal, ask for them and write the file. */
  private async credentials(file: string): Promise<AuthFile> {
    const existing = await readAuthFile(file);
    if (existing) return existing;
    const stdin = this.context.stdin as NodeJS.ReadStream;
    if (!stdin.isTTY) {
      throw new UsageError(
        `no credentials at ${file}: create them with \`agentkit ui reset-password --password-stdin\` (or start at a terminal, or pass --no-auth)`,
      );
    }
    this.err(`agentkit ui: no credentials at ${file}; choose a login for the UI`);
    const username = (await askLine(this.context, 'Username [admin]: ')) || 'admin';
    const password = await askPassword(this.context, 'Password: ');
    const again = await askPassword(this.context, 'Repeat password: ');
    if (password !== again) throw new UsageError('the two passwords differ; nothing was written');
    const content = await newAuthFile(username, password);
    await writeAuthFile(file, content);
    this.err(`agentkit ui: wrote ${file} (mode 0600)`);
    return content;
  }
}

/** `users alice (admin), bob (approver)` for the start line. */
function usersLine(file: AuthFile): string {
  return `users ${file.users.map((u) => `${u.username} (${u.role})`).join(', ')}`;
}

export class UiResetPasswordCommand extends AgentkitCommand {
  static override paths = [['ui', 'reset-password']];

  static override usage = Command.Usage({
    category: 'Local UI',
    description: 'Set a new username and password for the local UI',
    details: [
      "Sets the password of a user in the auth file (default `./.agentkit/auth.json`, mode 0600) as a scrypt hash, and signs that user's open sessions out; the password is never stored. Other users keep their sessions.",
      '`--username` names the user; it defaults to the only user of the file, else `admin`. A missing or damaged file is replaced by a new one whose only user is `--username` (default `admin`) as an admin, with a new session secret. A name that is not a user of an existing file is refused: add it with `agentkit ui users add`.',
      'At a terminal it asks for the password twice; `--password-stdin` reads it from standard input instead (the first line; for scripts). Passwords must be at least 8 characters.',
    ].join('\n\n'),
    examples: [
      ['Reset interactively', '$0 ui reset-password'],
      ['From a script', 'printf \'%s\' "$UI_PASSWORD" | $0 ui reset-password --username ops --password-stdin'],
    ],
  });

  authFile = Option.String('--auth-file', { description: 'Credentials file (default ./.agentkit/auth.json)' });
  username = Option.String('--username', { description: 'Login name (default: the current one, else admin)' });
  passwordStdin = Option.Boolean('--password-stdin', false, { description: 'Read the password from standard input' });

  async run(): Promise<void> {
    const where = { env: this.context.env, cwd: this.context.cwd };
    const file = this.authFile !== undefined ? path.resolve(this.context.cwd, this.authFile) : path.join(agentkitDir(where), 'auth.json');
    let current: AuthFile | null = null;
    try {
      current = await readAuthFile(file);
    } catch {
      // A damaged file is what a reset is for: replace it.
    }
    const username = this.username ?? (current?.users.length === 1 ? current.users[0]!.username : 'admin');
    if (current && !findUser(current, username)) {
      throw new UsageError(
        `no UI user '${username}' in ${file} (users: ${current.users.map((u) => u.username).join(', ')}); add it with \`agentkit ui users add\``,
      );
    }
    const password = await newPassword(this, this.passwordStdin);
    let content: AuthFile;
    try {
      content = current ? await setPassword(current, username, password) : await newAuthFile(username, password);
    } catch (error) {
      throw new UsageError(error instanceof Error ? error.message : String(error));
    }
    await writeAuthFile(file, content);
    this.out(`wrote ${file} for user '${username}' (mode 0600); their open sessions are signed out`);
  }
}
