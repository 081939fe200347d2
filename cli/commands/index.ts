/**
 * Every command of the `agentkit` CLI, as a manifest: its path(s), its category and one-line description (for the
 * top-level `--help`), and a `load` that imports its module. cli/main.ts imports only the module of the command being
 * run, so `agentkit version` and `agentkit --help` load no SDK code and each command pays only for what it uses.
 *
 * Adding a command: write its class in its own file under cli/commands/ (extending AgentkitCommand), then add one
 * entry here with the same `paths`, description and category as its `Command.Usage` (cli/manifest.test.ts checks they
 * agree and that every entry loads).
 */
import type { CommandClass } from 'clipanion';
import type { AgentkitContext } from '../context.js';

export interface CommandEntry {
  /** The command's paths, the first one shown in help (`['ui']`, `['ui', 'start']`). */
  readonly paths: ReadonlyArray<readonly string[]>;
  /** The help section it is listed under. */
  readonly category: string;
  /** The one-line description (the class's `usage.description`). */
  readonly description: string;
  /** Import the command's module and return its class. */
  readonly load: () => Promise<CommandClass<AgentkitContext>>;
}

type Loaded = Promise<CommandClass<AgentkitContext>>;

export const commands: readonly CommandEntry[] = [
  {
    paths: [['version']],
    category: 'General',
    description: 'Print the agentkit version and the installed optional extras',
    load: async (): Loaded => (await import('./version.js')).VersionCommand,
  },
  {
    paths: [['migrate']],
    category: 'Stores',
    description: 'Import legacy traces, checkpoints and prompts into the local store, once',
    load: async (): Loaded => (await import('./migrate.js')).MigrateCommand,
  },

  {
    paths: [['store', 'migrate']],
    category: 'Stores',
    description: 'Apply every pending migration of the store (for application roles without DDL rights)',
    load: async (): Loaded => (await import('./store.js')).StoreMigrateCommand,
  },
  {
    paths: [['store', 'copy']],
    category: 'Stores',
    description: 'Copy a local store file into a Postgres store, once and idempotently',
    load: async (): Loaded => (await import('./store-copy.js')).StoreCopyCommand,
  },
  {
    paths: [['setup-checkpointer']],
    category: 'Durability',
    description: 'Provision the durability schema (checkpoints, pending interrupts, idempotency records)',
    load: async (): Loaded => (await import('./durability.js')).SetupCheckpointerCommand,
  },
  {
    paths: [['list-pending']],
    category: 'Durability',
    description: 'List pending interrupts (runs paused for a human decision), newest first',
    load: async (): Loaded => (await import('./durability.js')).ListPendingCommand,
  },
  {
    paths: [['inspect']],
    category: 'Durability',
    description: 'Show the checkpoint history of an execution',
    load: async (): Loaded => (await import('./durability.js')).InspectCommand,
  },
  {
    paths: [['resume']],
    category: 'Durability',
    description: 'Resume a paused execution through its runner',
    load: async (): Loaded => (await import('./durability.js')).ResumeCommand,
  },
  {
    paths: [['executions', 'list']],
    category: 'Durability',
    description: 'List executions and where each stands (running, orphaned, parked, paused, failed, completed)',
    load: async (): Loaded => (await import('./recovery.js')).ExecutionsListCommand,
  },
  {
    paths: [['executions', 'prune']],
    category: 'Durability',
    description: 'Delete ended executions whose last step is older than a given age',
    load: async (): Loaded => (await import('./executions-prune.js')).ExecutionsPruneCommand,
  },
  {
    paths: [['recover']],
    category: 'Durability',
    description: "Recover the runner's orphaned executions once (what a served replica does every interval)",
    load: async (): Loaded => (await import('./recovery.js')).RecoverCommand,
  },

  {
    paths: [['traces', 'list']],
    category: 'Traces',
    description: 'List the traces of the last hours from the local store',
    load: async (): Loaded => (await import('./traces.js')).TracesListCommand,
  },
  {
    paths: [['traces', 'export']],
    category: 'Traces',
    description: 'Print one trace as JSON',
    load: async (): Loaded => (await import('./traces.js')).TracesExportCommand,
  },
  {
    paths: [['traces', 'prune']],
    category: 'Traces',
    description: 'Delete the traces of runs that started before a given age',
    load: async (): Loaded => (await import('./traces.js')).TracesPruneCommand,
  },
  {
    paths: [['export-trace']],
    category: 'Traces',
    description: 'Write one trace to a self-contained JSON file',
    load: async (): Loaded => (await import('./traces.js')).ExportTraceCommand,
  },

  {
    paths: [['replay', 'show']],
    category: 'Replay',
    description: 'Show a stored trace as numbered replay steps',
    load: async (): Loaded => (await import('./replay.js')).ReplayShowCommand,
  },
  {
    paths: [['replay', 'inspect']],
    category: 'Replay',
    description: 'Print one step of a stored trace',
    load: async (): Loaded => (await import('./replay.js')).ReplayInspectCommand,
  },
  {
    paths: [['replay', 'fork']],
    category: 'Replay',
    description: 'Fork a stored trace, change it, rerun the agent safely and report where it diverged',
    load: async (): Loaded => (await import('./replay.js')).ReplayForkCommand,
  },

  {
    paths: [['agent', 'serve']],
    category: 'Serving',
    description: 'Serve an agent, chain, swarm or supervisor over HTTP',
    load: async (): Loaded => (await import('./agent.js')).AgentServeCommand,
  },
  {
    paths: [['mcp', 'serve']],
    category: 'Serving',
    description: 'Serve an agent or chain as an MCP server over stdio',
    load: async (): Loaded => (await import('./mcp.js')).McpServeCommand,
  },

  {
    paths: [['prompts', 'list']],
    category: 'Prompts',
    description: 'List registered prompts',
    load: async (): Loaded => (await import('./prompts.js')).PromptsListCommand,
  },
  {
    paths: [['prompts', 'diff']],
    category: 'Prompts',
    description: 'Diff two versions of a prompt',
    load: async (): Loaded => (await import('./prompts.js')).PromptsDiffCommand,
  },
  {
    paths: [['prompts', 'add']],
    category: 'Prompts',
    description: 'Register a prompt version from a file',
    load: async (): Loaded => (await import('./prompts.js')).PromptsAddCommand,
  },
  {
    paths: [['prompts', 'show']],
    category: 'Prompts',
    description: 'Print one version of a prompt',
    load: async (): Loaded => (await import('./prompts.js')).PromptsShowCommand,
  },
  {
    paths: [['prompts', 'label']],
    category: 'Prompts',
    description: 'Point a label at a version',
    load: async (): Loaded => (await import('./prompts.js')).PromptsLabelCommand,
  },
  {
    paths: [['prompts', 'fragment']],
    category: 'Prompts',
    description: 'Create or replace a fragment from a file',
    load: async (): Loaded => (await import('./prompts.js')).PromptsFragmentCommand,
  },

  {
    paths: [['kb', 'list']],
    category: 'Knowledge bases',
    description: 'List knowledge bases',
    load: async (): Loaded => (await import('./kb.js')).KbListCommand,
  },
  {
    paths: [['kb', 'status']],
    category: 'Knowledge bases',
    description: 'Show one knowledge base',
    load: async (): Loaded => (await import('./kb.js')).KbStatusCommand,
  },
  {
    paths: [['kb', 'add']],
    category: 'Knowledge bases',
    description: 'Ingest files and directories into a knowledge base',
    load: async (): Loaded => (await import('./kb.js')).KbAddCommand,
  },
  {
    paths: [['kb', 'delete']],
    category: 'Knowledge bases',
    description: 'Remove a source file and its chunks from a knowledge base',
    load: async (): Loaded => (await import('./kb.js')).KbDeleteCommand,
  },
  {
    paths: [['kb', 'clear']],
    category: 'Knowledge bases',
    description: 'Remove every document and chunk of a knowledge base',
    load: async (): Loaded => (await import('./kb.js')).KbClearCommand,
  },
  {
    paths: [['kb', 'search']],
    category: 'Knowledge bases',
    description: 'Search a knowledge base',
    load: async (): Loaded => (await import('./kb.js')).KbSearchCommand,
  },

  {
    paths: [['ui'], ['ui', 'start']],
    category: 'Local UI',
    description: 'Start the local UI: traces, replay, approvals, executions and evals in the browser',
    load: async (): Loaded => (await import('./ui.js')).UiStartCommand,
  },
  {
    paths: [['ui', 'reset-password']],
    category: 'Local UI',
    description: 'Set a new username and password for the local UI',
    load: async (): Loaded => (await import('./ui.js')).UiResetPasswordCommand,
  },
  {
    paths: [['ui', 'users', 'add']],
    category: 'Local UI',
    description: 'Add a user to the local UI',
    load: async (): Loaded => (await import('./ui-users.js')).UiUsersAddCommand,
  },
  {
    paths: [['ui', 'users', 'list']],
    category: 'Local UI',
    description: 'List the local UI users and their roles',
    load: async (): Loaded => (await import('./ui-users.js')).UiUsersListCommand,
  },
  {
    paths: [['ui', 'users', 'remove']],
    category: 'Local UI',
    description: 'Remove a user from the local UI',
    load: async (): Loaded => (await import('./ui-users.js')).UiUsersRemoveCommand,
  },
  {
    paths: [['ui', 'users', 'set-role']],
    category: 'Local UI',
    description: "Change a local UI user's role",
    load: async (): Loaded => (await import('./ui-users.js')).UiUsersSetRoleCommand,
  },
  {
    paths: [['ui', 'users', 'sign-out']],
    category: 'Local UI',
    description: 'Sign a local UI user out everywhere',
    load: async (): Loaded => (await import('./ui-users.js')).UiUsersSignOutCommand,
  },

  {
    paths: [['eval', 'run']],
    category: 'Evals',
    description: 'Run a dataset against an agent, score it and gate on the result (for CI)',
    load: async (): Loaded => (await import('./eval.js')).EvalRunCommand,
  },
  {
    paths: [['eval', 'compare']],
    category: 'Evals',
    description: 'Compare two stored eval runs, baseline first, and flag a regression',
    load: async (): Loaded => (await import('./eval.js')).EvalCompareCommand,
  },
  {
    paths: [['eval', 'curate']],
    category: 'Evals',
    description: 'Build an eval dataset (JSONL) from traces in the local store',
    load: async (): Loaded => (await import('./eval.js')).EvalCurateCommand,
  },
  {
    paths: [['eval', 'export']],
    category: 'Evals',
    description: 'Inspect eval export to the Platform (never sends anything)',
    load: async (): Loaded => (await import('./eval.js')).EvalExportCommand,
  },

  {
    paths: [['connect']],
    category: 'Platform',
    description: 'Verify a Platform API key and save it to ~/.agentkit/credentials.toml',
    load: async (): Loaded => (await import('./connect.js')).ConnectCommand,
  },
  {
    paths: [['disconnect']],
    category: 'Platform',
    description: 'Remove the saved Platform credentials (~/.agentkit/credentials.toml)',
    load: async (): Loaded => (await import('./connect.js')).DisconnectCommand,
  },
  {
    paths: [['auth', 'status']],
    category: 'Platform',
    description: 'Show the Platform connection in effect: source, target, project and the masked key',
    load: async (): Loaded => (await import('./auth.js')).AuthStatusCommand,
  },
  {
    paths: [['platform', 'push']],
    category: 'Platform',
    description: 'Send rows recorded while not connected (local-only) to the Platform, on request',
    load: async (): Loaded => (await import('./platform.js')).PlatformPushCommand,
  },
  {
    paths: [['platform', 'serve']],
    category: 'Platform',
    description: "Serve the Platform (connected mode's control plane) on a SQLite file or a Postgres store",
    load: async (): Loaded => (await import('./platform-serve.js')).PlatformServeCommand,
  },
  {
    paths: [['platform', 'keys', 'create']],
    category: 'Platform',
    description: 'Make an API key of a project with the given scopes (printed once)',
    load: async (): Loaded => (await import('./platform-keys.js')).PlatformKeysCreateCommand,
  },
  {
    paths: [['platform', 'keys', 'list']],
    category: 'Platform',
    description: 'List the API keys (prefix, project, scopes, created, revoked; never the key)',
    load: async (): Loaded => (await import('./platform-keys.js')).PlatformKeysListCommand,
  },
  {
    paths: [['platform', 'keys', 'revoke']],
    category: 'Platform',
    description: 'Revoke an API key by its id or prefix (effective on its next request)',
    load: async (): Loaded => (await import('./platform-keys.js')).PlatformKeysRevokeCommand,
  },
  {
    paths: [['auth', 'env']],
    category: 'Platform',
    description: 'Print shell exports of AGENTKIT_API_KEY, AGENTKIT_TARGET and AGENTKIT_PROJECT',
    load: async (): Loaded => (await import('./auth.js')).AuthEnvCommand,
  },
];
