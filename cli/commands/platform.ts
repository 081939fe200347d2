/**
 * `agentkit platform push [--since <ISO time | duration>] [--evals] [--dry-run] [--db <path|url>] [--json]` (docs/adr/0054):
 * rows written while not connected stay on this machine; this sends those of the current project, on request.
 */
import { Command, Option, UsageError } from 'clipanion';
import { localStore } from '../../src/config/paths.js';
import { parseStoreValue, storeLabel, storeValue } from '../../src/config/store-value.js';
import { PostgresCheckpointer } from '../../src/durability/postgres-checkpointer.js';
import { SQLiteCheckpointer } from '../../src/durability/sqlite-checkpointer.js';
import { credentialsPath, loadCredentials } from '../../src/platform/credentials.js';
import { parseSince, pushLocalRows, type PushResult } from '../../src/platform/push.js';
import { pushLocalEvalRuns, type EvalPushResult } from '../../src/platform/push-evals.js';
import { EvalStore } from '../../src/eval/store.js';
import { openStore } from '../../src/store/store-handle.js';
import { AgentkitCommand } from '../base.js';

export class PlatformPushCommand extends AgentkitCommand {
  static override paths = [['platform', 'push']];

  static override usage = Command.Usage({
    category: 'Platform',
    description: 'Send rows recorded while not connected (local-only) to the Platform, on request',
    details: [
      "Rows written while not connected are local-only: connecting never sends them. This sends the local-only checkpoint rows of the current project (the saved connection's project; none means the key's default project) from the store `--db` names (default `AGENTKIT_LOCAL_DB`, else `./.agentkit/local.db`), oldest first, and marks them sent: a second push sends nothing new.",
      '`--since` keeps rows written at or after an ISO time (`2026-11-28T09:00:00Z`) or within a duration back from now (`90s`, `30m`, `12h`, `7d`, `2w`). `--dry-run` lists exactly the rows that would leave the machine (execution, checkpoint, node, status, time) and sends nothing. `--json` prints `{ project, dry_run, sent, rejected, rows }`.',
      "`--evals` also sends the local-only eval runs of that project (runs persisted while not connected), with the payload `agentkit eval export --dry-run` prints (verdicts and trace ids, never a case's input or output); read from the same store (a file or a Postgres `--db`; ADR 0064). `--json` then adds `eval_runs: { sent, rejected, runs }`.",
      'Exits 1 when not connected or when the Platform refuses or cannot be reached (rows already sent stay sent).',
    ].join('\n\n'),
    examples: [
      ['List what would be sent', '$0 platform push --dry-run'],
      ['Send the last day', '$0 platform push --since 1d'],
      ['Checkpoints and eval runs, as JSON', '$0 platform push --evals --json'],
    ],
  });

  since = Option.String('--since', { description: 'Only rows written at or after an ISO time, or within a duration (30m, 12h, 7d)' });
  evals = Option.Boolean('--evals', false, { description: 'Also send the local-only eval runs of the project' });
  dryRun = Option.Boolean('--dry-run', false, { description: 'List the rows that would be sent; send nothing' });
  db = Option.String('--db', { description: 'Store: a file path or a postgres://...?schema= URL (default AGENTKIT_LOCAL_DB, else ./.agentkit/local.db)' });
  json = Option.Boolean('--json', false, { description: 'Print { project, dry_run, sent, rejected, rows } as JSON' });

  async run(): Promise<number> {
    const { env, cwd } = this.context;
    let since: string | null = null;
    if (this.since !== undefined) {
      try {
        since = parseSince(this.since);
      } catch (error) {
        throw new UsageError((error as Error).message);
      }
    }
    const credentials = loadCredentials({ env });
    if (!credentials) {
      this.err(`error: not connected: no AGENTKIT_API_KEY and no ${credentialsPath({ env })}; run \`agentkit connect --target <url> --api-key-stdin\` first`);
      return 1;
    }
    const connection = { apiKey: credentials.apiKey, target: credentials.target, project: credentials.project ?? null };
    const ref = this.db !== undefined ? parseStoreValue(this.db, cwd) : localStore({ env, cwd });
    let result: PushResult;
    if (ref.engine === 'sqlite') {
      const checkpointer = new SQLiteCheckpointer(ref.path);
      try {
        result = await pushLocalRows(checkpointer, connection, { since, dryRun: this.dryRun });
      } finally {
        await checkpointer.close();
      }
    } else {
      const store = openStore(ref, { min: 0, max: 2 });
      const checkpointer = new PostgresCheckpointer(store, { minPoolSize: 0, maxPoolSize: 2 });
      try {
        result = await pushLocalRows(checkpointer, connection, { since, dryRun: this.dryRun });
      } finally {
        await checkpointer.close();
        await store.close();
      }
    }
    // Eval runs are in the same store (ADR 0064).
    let evals: EvalPushResult | null = null;
    if (this.evals) {
      const evalStore = new EvalStore({ dbPath: ref.engine === 'sqlite' ? ref.path : storeValue(ref) });
      try {
        evals = await pushLocalEvalRuns(evalStore, connection, { since, dryRun: this.dryRun });
      } finally {
        await evalStore.close();
      }
    }
    if (this.json) {
      this.out(
        JSON.stringify({
          project: result.project || null,
          dry_run: this.dryRun,
          sent: result.sent,
          rejected: result.rejected,
          rows: result.rows,
          ...(evals ? { eval_runs: { sent: evals.sent, rejected: evals.rejected, runs: evals.runs } } : {}),
        }),
      );
      return 0;
    }
    const project = result.project || '(default)';
    const store = storeLabel(ref);
    if (this.dryRun) {
      this.out(`would send ${result.rows.length} row(s) of project ${project} from ${store} to ${credentials.target} (dry run: nothing sent)`);
      for (const row of result.rows) this.out(`  ${row.execution_id}  ${row.checkpoint_id}  ${row.node_id}  ${row.status}  ${row.created_at}`);
      if (evals) {
        this.out(`would send ${evals.runs.length} eval run(s) of project ${project} from ${store}`);
        for (const run of evals.runs) this.out(`  ${run.run_id}  ${run.run_name ?? '-'}  ${run.dataset_name}  ${run.started_at}`);
      }
      return 0;
    }
    const rejected = Object.keys(result.rejected).length;
    this.out(
      `sent ${result.sent} row(s) of project ${project} from ${store} to ${credentials.target}${rejected > 0 ? `; ${rejected} refused and quarantined` : ''}`,
    );
    for (const [id, reason] of Object.entries(result.rejected)) this.out(`  refused ${id}: ${reason}`);
    if (evals) {
      const refused = Object.keys(evals.rejected).length;
      this.out(`sent ${evals.sent} eval run(s) of project ${project} from ${store}${refused > 0 ? `; ${refused} refused` : ''}`);
      for (const [id, reason] of Object.entries(evals.rejected)) this.out(`  refused ${id}: ${reason}`);
    }
    return 0;
  }
}
