/** `agentkit migrate [--force]`: import the legacy stores into local.db once, with a report per source. */
import { Command, Option } from 'clipanion';
import { importLegacyStores, type SourceReport } from '../../src/index.js';
import { AgentkitCommand } from '../base.js';

export class MigrateCommand extends AgentkitCommand {
  static override paths = [['migrate']];

  static override usage = Command.Usage({
    category: 'Stores',
    description: 'Import legacy traces, checkpoints and prompts into the local store, once',
    details: [
      'Copies `./.agentkit/traces.db` (spans), `./.agentkit/checkpoints.db` (checkpoints, pending interrupts, idempotency records) and `./.prompts/` (prompt versions, aliases as labels, fragments) into the local store (`AGENTKIT_LOCAL_DB`, else `./.agentkit/local.db`, or `--db`). Each source is imported in one transaction and recorded, so running again imports nothing; `--force` imports recorded sources again, still without duplicating a row already present.',
      'Imported history is marked as synced: it is never pushed to a Platform, and this command sends nothing anywhere. A missing source, or a source that is the target itself, is skipped.',
      'Prints one line per source: what was imported (or why not), and warnings (such as a prompt version including an unknown fragment, which is skipped). A source that cannot be read (not SQLite, missing tables, bad YAML) prints one line, imports nothing from it, and the command exits 1 after the others. `--json` prints the report.',
    ].join('\n\n'),
    examples: [
      ['Import once', '$0 migrate'],
      ['Import again from other paths', '$0 migrate --force --trace-db old/traces.db --prompt-dir old/.prompts'],
    ],
  });

  force = Option.Boolean('--force', false, { description: 'Import sources already imported again (rows already present are kept)' });
  db = Option.String('--db', { description: 'Target store (default AGENTKIT_LOCAL_DB, else ./.agentkit/local.db)' });
  traceDb = Option.String('--trace-db', { description: 'Legacy trace store (default ./.agentkit/traces.db)' });
  checkpointDb = Option.String('--checkpoint-db', { description: 'Legacy checkpoint store (default ./.agentkit/checkpoints.db)' });
  promptDir = Option.String('--prompt-dir', { description: 'Legacy prompt directory (default ./.prompts)' });
  json = Option.Boolean('--json', false, { description: 'Print the report as JSON' });

  async run(): Promise<number> {
    const { env, cwd } = this.context;
    const report = await importLegacyStores({
      env,
      cwd,
      dbPath: this.db,
      traceDb: this.traceDb,
      checkpointDb: this.checkpointDb,
      promptDir: this.promptDir,
      force: this.force,
    });
    if (this.json) this.out(JSON.stringify(report, null, 2));
    else {
      this.out(`target: ${report.target}`);
      for (const source of report.sources) this.out(line(source));
    }
    for (const source of report.sources) {
      for (const warning of source.warnings) this.err(`warning: ${warning}`);
      if (source.status === 'failed') this.err(`error: ${source.error}`);
    }
    return report.failed ? 1 : 0;
  }
}

function line(source: SourceReport): string {
  const head = `${source.kind.padEnd(11)} ${source.source}: `;
  switch (source.status) {
    case 'absent':
      return `${head}not found, nothing to import`;
    case 'same_as_target':
      return `${head}skipped (it is the target store)`;
    case 'already_imported':
      return `${head}already imported at ${source.imported_at} (use --force to import again)`;
    case 'failed':
      return `${head}failed, nothing imported`;
    case 'imported':
      return `${head}imported ${describe(source.counts)}`;
  }
}

/** `12 spans (3 already present)` and the like, from the counts map. */
function describe(counts: Record<string, number>): string {
  const parts: string[] = [];
  for (const [name, value] of Object.entries(counts)) {
    if (name.endsWith('_present') || name.endsWith('_invalid')) continue;
    const present = counts[`${name}_present`] ?? 0;
    const invalid = counts[`${name}_invalid`] ?? 0;
    const notes = [present > 0 ? `${present} already present` : '', invalid > 0 ? `${invalid} invalid, skipped` : ''].filter(Boolean);
    parts.push(`${value} ${name.replace(/_/g, ' ')}${notes.length > 0 ? ` (${notes.join(', ')})` : ''}`);
  }
  return parts.join(', ');
}
