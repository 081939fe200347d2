/**
 * Recovery commands (docs/adr/0050): `executions list` (executions and where each stands, orphans included) and
 * `recover --runner <target>` (one recovery sweep from the CLI, on the runner's own store).
 */
import { Command, Option, UsageError } from 'clipanion';
import path from 'node:path';
import * as t from 'typanion';
import { parseStoreValue } from '../../src/config/store-value.js';
import { supportsReplication } from '../../src/durability/checkpointer.js';
import { EXECUTION_STATES, listExecutions, recoverOrphans, type ExecutionState, type RecoverableRunner } from '../../src/recovery/index.js';
import { describeValue, loadTarget, TargetLoadError } from '../../src/targets.js';
import { cutList, cutNotice } from '../list-cut.js';
import { AgentkitCommand } from '../base.js';
import { table } from '../durability/render.js';
import { outputWidth } from '../table.js';
import { readExistingStore } from '../durability/store.js';

const positiveInteger = t.cascade(t.isNumber(), [t.isInteger(), t.isAtLeast(1)]);

/** `agentkit executions list`: executions, newest first, with their state. */
export class ExecutionsListCommand extends AgentkitCommand {
  static override paths = [['executions', 'list']];

  static override usage = Command.Usage({
    description: 'List executions and where each stands (running, orphaned, parked, paused, failed, completed)',
    details: [
      'Prints the most recently written executions (`--limit`, default 100; `showing <n>, more available` on stderr when there were more) with their state: `running` (a live process holds its lease), `orphaned` (no live holder and no ending: a served replica recovers it, unless it was started by an agentkit older than the recovery store, then `RECOVERABLE` is `no` and it is resumed by hand), `needs_attention` (a recovery parked it: it crashed inside a side-effecting tool), `paused`, `failed`, `completed`. `--state` keeps one state. `--json` prints the rows.',
      'The store is the configured one by default; `--db` names another (a SQLite file or a `postgres://...?schema=<name>` URL).',
    ].join('\n\n'),
    examples: [
      ['Every orphan of the local store', '$0 executions list --state orphaned'],
      ['Parked executions on Postgres, as JSON', '$0 executions list --state needs_attention --db "postgres://app@db/prod?schema=agentkit" --json'],
    ],
  });

  state = Option.String('--state', { description: `Only this state: ${EXECUTION_STATES.join(', ')}`, validator: t.isEnum(EXECUTION_STATES) });
  dbPath = Option.String('--db,--db-path', { description: 'Store: a SQLite file or a postgres://...?schema=<name> URL (default: the local store)' });
  limit = Option.String('--limit', { description: 'Read at most this many executions (default 100)', validator: positiveInteger });
  json = Option.Boolean('--json', false, { description: 'Print JSON' });

  async run(): Promise<void> {
    const limit = this.limit ?? 100;
    const options: { state?: ExecutionState; limit: number } = { limit: limit + 1, ...(this.state ? { state: this.state } : {}) };
    const read = await readExistingStore(this, this.context, (store) => listExecutions(store, options), []);
    const { items, more } = cutList(read, limit);
    // --json stays the array of rows it always was; the cut is said on stderr either way.
    if (more) this.err(cutNotice(items.length));
    if (this.json) return this.out(JSON.stringify(items, null, 2));
    if (items.length === 0) return this.out(this.state ? `No ${this.state} executions.` : 'No executions.');
    this.out(
      table(
        ['EXECUTION ID', 'STATE', 'RECOVERABLE', 'RUNNER', 'LAST NODE', 'UPDATED AT', 'ATTEMPTS', 'REASON'],
        items.map((item) => [
          item.execution_id,
          item.state,
          item.state === 'orphaned' ? (item.recoverable ? 'yes' : 'no') : '-',
          item.runner_key ?? item.chain_name,
          item.last_node_id,
          item.updated_at,
          String(item.recover_attempts),
          item.reason ?? '-',
        ]),
        { ids: [0], whole: [5], wrap: [7], width: outputWidth(this.context.stdout) },
      ),
    );
  }
}

/** `agentkit recover --runner <target>`: one recovery sweep for that runner. */
export class RecoverCommand extends AgentkitCommand {
  static override paths = [['recover']];

  static override usage = Command.Usage({
    description: "Recover the runner's orphaned executions once (what a served replica does every interval)",
    details: [
      'Loads the runner (`<file>:<attr>` or `<module>:<attr>`) and sweeps its own store once: every orphaned execution of that runner (same name and definition fingerprint) is claimed (one process wins fleet-wide; the attempt is counted), then continued from its last checkpoint, parked `needs_attention` when it crashed inside a side-effecting tool, or marked failed past `AGENTKIT_RECOVER_MAX_ATTEMPTS` (default 3). Executions of other runners or versions are listed as `not_served` and left alone. Waits for the recoveries it starts (`AGENTKIT_RECOVER_CONCURRENCY` at once, default 4).',
      "`--db` may only name the runner's own store (a sweep continues runs through the runner's checkpointer); naming another is refused (exit 2). Prints one line per orphan (`--json`: the outcomes). Exit codes: 0 done (also when nothing was found); 1 when a continued run ended in an error; 2 usage errors.",
    ].join('\n\n'),
    examples: [["Recover the support agent's orphans", '$0 recover --runner examples/quickstart-agent.ts:support']],
  });

  runner = Option.String('--runner', { required: true, description: 'The runner: <file>:<attr> or <module>:<attr>' });
  dbPath = Option.String('--db', { description: "The runner's own store, to confirm it (another store is refused)" });
  json = Option.Boolean('--json', false, { description: 'Print the outcomes as JSON' });

  async run(): Promise<number> {
    const { value: target } = await loadTarget(this.runner, { cwd: this.context.cwd });
    if (!isRecoverable(target)) {
      throw new TargetLoadError(
        `target '${this.runner}' resolved to ${describeValue(target)}, which is not a runner with a checkpointer; name an Agent, Chain, Swarm or Supervisor`,
      );
    }
    try {
      this.checkStore(target);
      const outcomes = await recoverOrphans([target]);
      if (this.json) this.out(JSON.stringify(outcomes, null, 2));
      else if (outcomes.length === 0) this.out('No orphaned executions.');
      else
        for (const o of outcomes)
          this.out(`${o.execution_id}: ${o.outcome}${o.attempt === null ? '' : ` (attempt ${o.attempt})`}${o.detail ? `: ${o.detail}` : ''}`);
      return outcomes.some((o) => o.outcome === 'error') ? 1 : 0;
    } finally {
      await target.checkpointer?.close?.();
    }
  }

  /** Refuse a `--db` that is not the runner's own store. */
  private checkStore(target: RecoverableRunner): void {
    if (this.dbPath === undefined || !target.checkpointer || !supportsReplication(target.checkpointer)) return;
    const own = target.checkpointer.replicaSource?.() ?? null;
    const named = parseStoreValue(this.dbPath, this.context.cwd);
    const same =
      own !== null &&
      ((own.driver === 'sqlite' && named.engine === 'sqlite' && path.resolve(own.path) === path.resolve(named.path)) ||
        (own.driver === 'postgres' && named.engine === 'postgres' && own.schema === named.schema && sameServer(own.url, named.url)));
    if (!same)
      throw new UsageError(
        `--db names another store than the runner's own; recover sweeps the store the runner writes to (drop --db, or point the runner at that store)`,
      );
  }
}

function sameServer(a: string, b: string): boolean {
  const [x, y] = [new URL(a), new URL(b)];
  return x.hostname === y.hostname && x.port === y.port && x.pathname === y.pathname;
}

function isRecoverable(value: unknown): value is RecoverableRunner & { checkpointer: { close?: () => Promise<void> } | null } {
  const v = value as Partial<RecoverableRunner> | null;
  return typeof v === 'object' && v !== null && typeof v.resume === 'function' && typeof v.kind === 'string' && v.checkpointer != null;
}
