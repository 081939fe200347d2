/**
 * `agentkit executions prune --older-than <duration> [--dry-run] [--json] [--db <path|url>]` (issue 38): the
 * execution-level prune of ended executions (src/recovery/prune.ts), beside the checkpointer's row-level `prune`.
 */
import { Command, Option } from 'clipanion';
import { pruneEndedExecutions, type PruneExecutionsResult } from '../../src/recovery/index.js';
import { AgentkitCommand } from '../base.js';
import { readExistingStore, storeLabel } from '../durability/store.js';
import { pruneAge } from '../prune-age.js';
import { slowWork } from '../progress.js';

export class ExecutionsPruneCommand extends AgentkitCommand {
  static override paths = [['executions', 'prune']];

  static override usage = Command.Usage({
    category: 'Durability',
    description: 'Delete ended executions whose last step is older than a given age',
    details: [
      'Deletes whole executions that are over (their run wrote its final `run_end` row, completed or failed) and whose last row was written longer ago than `--older-than` (a duration: `30d`, `12h`, `90m`, `45s`): every checkpoint, decision row, idempotency record, lease and recovery record of each. An execution that is paused, running, orphaned or parked is never deleted, whatever its age.',
      'Executions are deleted one by one, each in its own short transaction, so no lock is held for long and an interrupted prune leaves only whole executions; a prune that takes over a second shows its progress on stderr when that is a terminal. Traces are not touched: `traces prune` has their retention.',
      '`--dry-run` lists the executions that would be deleted (at most 1000) and deletes nothing. Prints `pruned <n> execution(s) (<rows> rows)`; `--json` prints `{ store, executions, rows, execution_ids }`. The store is `--db` (a file or a `postgres://...?schema=<name>` URL), else the configured store; a store that does not exist yet has nothing to prune, a named file that does not exist is refused.',
    ].join('\n\n'),
    examples: [
      ['Delete executions that ended more than 30 days ago', '$0 executions prune --older-than 30d'],
      ['See what would go, on Postgres', '$0 executions prune --older-than 7d --dry-run --db "postgres://app@db/prod?schema=agentkit"'],
    ],
  });

  olderThan = Option.String('--older-than', { required: true, description: 'Age of the last row of the executions to delete: <n>d, <n>h, <n>m or <n>s' });
  dryRun = Option.Boolean('--dry-run', false, { description: 'List what would be deleted; delete nothing' });
  json = Option.Boolean('--json', false, { description: 'Print { store, executions, rows, execution_ids } as JSON' });
  dbPath = Option.String('--db,--db-path', { description: 'Store: a SQLite file or a postgres://...?schema=<name> URL (default: the configured store)' });

  async run(): Promise<void> {
    const ageMs = pruneAge(this.olderThan, undefined);
    const label = storeLabel(this, this.context);
    const empty: PruneExecutionsResult = { executions: 0, rows: 0, execution_ids: [] };
    const progress = slowWork(this.context.stderr, this.dryRun ? 'reading executions' : 'pruning executions');
    let result: PruneExecutionsResult;
    try {
      result = await readExistingStore(this, this.context, (checkpointer) => pruneEndedExecutions(checkpointer, ageMs, { dryRun: this.dryRun }), empty);
    } finally {
      progress.done();
    }
    if (this.json) return this.out(JSON.stringify({ store: label, ...result }));
    if (this.dryRun) {
      this.out(`would prune ${result.executions} execution${result.executions === 1 ? '' : 's'} of ${label}`);
      for (const id of result.execution_ids) this.out(`  ${id}`);
      return;
    }
    this.out(`pruned ${result.executions} execution${result.executions === 1 ? '' : 's'} (${result.rows} rows) of ${label}`);
  }
}
