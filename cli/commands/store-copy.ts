/**
 * `agentkit store copy --from <path> --to <url> [--json]` (issue 38): move an existing local.db into a Postgres store
 * once, idempotently (src/store-copy).
 */
import { Command, Option } from 'clipanion';
import { copyStore } from '../../src/store-copy/index.js';
import { AgentkitCommand } from '../base.js';
import { slowWork } from '../progress.js';

export class StoreCopyCommand extends AgentkitCommand {
  static override paths = [['store', 'copy']];
  /** `--from` and `--to` name stores here, not prompt versions. */
  static readonly valueNames = { '--from': 'path', '--to': 'url' };

  static override usage = Command.Usage({
    category: 'Stores',
    description: 'Copy a local store file into a Postgres store, once and idempotently',
    details: [
      'Copies what a Postgres store holds from the local store `--from` (a SQLite local.db) into `--to` (a `postgres://user@host:port/db?schema=<name>` URL): every execution (checkpoints with their ids and times, decision rows, pending interrupts so paused runs stay resumable, idempotency records so side effects never run again), every span, with the key of the hashes stored beside masked values (taken over when the target holds no spans yet), every prompt with its versions, labels and fragments (what the target already holds under the same name, number or label is kept as the target has it), every eval run with its cases (a run id the target holds is kept as it is; a run keeps its project and export state), and every knowledge base kept as files beside the local store (`kb/<name>/kb.sqlite`), document by document with its chunks and vectors as stored (nothing is re-read or embedded again; a document the target holds with the same content hash is kept; a base the target holds with another embedder or other chunk settings is skipped and named). Copied rows are never sent to the Platform by the target.',
      'Run it again, or after a stop, and it adds only what is missing. Families a Postgres store does not hold yet (favorites and notes, guardrail events, attachments) stay in the file; the summary names those that have rows. Copy before the replicas start writing to the target. The source is opened as every command opens it (an older local.db is migrated first). A password in the URL is never printed; prefer PGPASSWORD or ~/.pgpass.',
      'Prints a summary; `--json` prints `{ from, to, checkpoints: { executions, checkpoints, pending, idempotency }, spans: { read, written, traces, redaction_key }, prompts: { prompts, versions, labels, fragments }, evals: { runs, cases }, annotations, forks, kb: { bases, documents, chunks, skipped }, left_in_file }`.',
    ].join('\n\n'),
    examples: [
      ['Move the local store to Postgres', "$0 store copy --from .agentkit/local.db --to 'postgres://app@db:5432/prod?schema=agentkit'"],
      ['As JSON', "$0 store copy --from old/local.db --to 'postgres://app@db/prod' --json"],
    ],
  });

  from = Option.String('--from', { required: true, description: 'The local store file to copy (a SQLite local.db)' });
  to = Option.String('--to', {
    required: true,
    description: 'The Postgres store to copy into: postgres://user@host:port/db?schema=<name> (schema default agentkit)',
  });
  json = Option.Boolean('--json', false, { description: 'Print the counts as JSON' });

  async run(): Promise<void> {
    const progress = slowWork(this.context.stderr, 'copying the store');
    let result: Awaited<ReturnType<typeof copyStore>>;
    try {
      result = await copyStore(this.from, this.to, { cwd: this.context.cwd });
    } finally {
      progress.done();
    }
    if (this.json) return this.out(JSON.stringify(result));
    const { checkpoints: c, spans: s } = result;
    this.out(`copied ${result.from} into ${result.to}`);
    this.out(`  executions: ${c.executions} read; ${c.checkpoints} checkpoint rows, ${c.pending} pending interrupts, ${c.idempotency} idempotency records new`);
    this.out(`  traces: ${s.traces} read; ${s.written} of ${s.read} span rows new; redaction key ${s.redaction_key}`);
    const p = result.prompts;
    this.out(`  prompts: ${p.prompts} prompts, ${p.versions} versions, ${p.labels} labels, ${p.fragments} fragments new`);
    this.out(`  eval runs: ${result.evals.runs} runs, ${result.evals.cases} cases new`);
    this.out(`  favorites and notes: ${result.annotations} new; UI replay forks: ${result.forks} new`);
    this.out(`  knowledge bases: ${result.kb.bases} read; ${result.kb.documents} documents, ${result.kb.chunks} chunks new`);
    for (const { base, reason } of result.kb.skipped) this.out(`  note: knowledge base '${base}' was not copied: ${reason}`);
    if (s.redaction_key === 'differs') {
      this.out('  note: the target already had spans under another redaction key; replays of copied traces do not match masked arguments');
    }
    const left = Object.entries(result.left_in_file);
    if (left.length > 0) this.out(`  left in the file (a Postgres store does not hold them yet): ${left.map(([family, n]) => `${family} (${n})`).join(', ')}`);
  }
}
