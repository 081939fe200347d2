/**
 * Durability commands: `setup-checkpointer`, `list-pending`, `inspect`, `resume`. Each parses its flags, calls one
 * SDK operation and prints the outcome; the rules (claims, AlreadyResumed, run-end rows) live in the SDK.
 */
import { Command, Option, UsageError } from 'clipanion';
import path from 'node:path';
import * as t from 'typanion';
import { checkpointStore } from '../../src/config/paths.js';
import { parseStoreValue, type StoreRef } from '../../src/config/store-value.js';
import { openStore } from '../../src/store/store-handle.js';
import { ValidationError } from '../../src/errors.js';
import { PostgresCheckpointer } from '../../src/durability/postgres-checkpointer.js';
import { toResume } from '../../src/durability/resume.js';
import { executionTraceIds, restoreIfMissing } from '../../src/durability/run-end.js';
import { quarantinedRows, type Checkpointer } from '../../src/durability/checkpointer.js';
import { DECISION_STEP, decisionOf, describeDecision, type DecisionOptions } from '../../src/durability/decision.js';
import { drainReplication, withSavedConnection } from '../../src/platform/index.js';
import { SQLiteCheckpointer } from '../../src/durability/sqlite-checkpointer.js';
import { describeValue, loadTarget, TargetLoadError } from '../../src/targets.js';
import type { ChainResult, Checkpoint, Resume } from '../../src/types.js';
import { runnerOfExecution } from '../../src/agent/durable/owner.js';
import { runnerKind, runnerName } from '../../src/runner-kind.js';
import { AgentkitCommand } from '../base.js';
import { slowWork, type Progress } from '../progress.js';
import { executionState, outputText, preview, table } from '../durability/render.js';
import { readExistingStore, storeLabel, withSchema } from '../durability/store.js';
import { checkRunnerStore } from '../durability/runner-store.js';
import { namedStore } from '../store-path.js';
import { withTraceDestination } from '../../src/tracing/spans.js';
import { flushTraces } from '../../src/tracing/setup.js';
import { ID_FORMS, resolveExecutionId } from '../ids.js';
import { cutList, cutNotice } from '../list-cut.js';
import { outputWidth } from '../table.js';

const positiveInteger = t.cascade(t.isNumber(), [t.isInteger(), t.isAtLeast(1)]);

const STORE_DETAILS =
  'The store is the configured one by default (`AGENTKIT_LOCAL_DB`, a file or a URL, else the legacy `AGENTKIT_CHECKPOINT_DB_PATH`, else `./.agentkit/local.db`); `--db` (alias `--db-path`) names another store, a SQLite file or a `postgres://...?schema=<name>` URL; `--connection-string` (with `--schema`, default `agentkit`) names a Postgres schema too. A password in a URL is never printed (prefer `PGPASSWORD` or `~/.pgpass`). A store that does not exist yet reads as empty and is not created.';

/** `agentkit setup-checkpointer`: provision the durability tables (idempotent). */
export class SetupCheckpointerCommand extends AgentkitCommand {
  static override paths = [['setup-checkpointer']];

  static override usage = Command.Usage({
    description: 'Provision the durability schema (checkpoints, pending interrupts, idempotency records)',
    details: [
      'Creates or migrates the tables a checkpointer needs. Idempotent: running it again changes nothing. A store written by a newer agentkit is refused.',
      '`--backend sqlite` (default): `--connection-string` is the SQLite file path (default: the local store). `--backend postgres`: `--connection-string` is the Postgres URL (required) and `--schema` the schema to create (default `agentkit`, must match `[A-Za-z_][A-Za-z0-9_]*`). `--db` names the store by one value instead: a file, or `postgres://...?schema=<name>`. With no flag, the configured store (`AGENTKIT_LOCAL_DB`, a file or a URL). A password in a URL is never printed; prefer `PGPASSWORD` or `~/.pgpass`.',
    ].join('\n\n'),
    examples: [
      ['Provision the local SQLite store', '$0 setup-checkpointer'],
      ['Provision a Postgres schema', '$0 setup-checkpointer --backend postgres --connection-string postgres://app@db:5432/prod --schema agentkit'],
      ['The same, the store named by one value', '$0 setup-checkpointer --db "postgres://app@db:5432/prod?schema=agentkit"'],
    ],
  });

  backend = Option.String('--backend', { description: 'sqlite (default) or postgres' });
  connectionString = Option.String('--connection-string', { description: 'SQLite file path, or Postgres URL (required for postgres)' });
  schema = Option.String('--schema', { description: 'Postgres schema (default agentkit)' });
  db = Option.String('--db', { description: 'The store: a SQLite file or a postgres://...?schema=<name> URL (instead of --backend/--connection-string)' });

  async run(): Promise<void> {
    if (this.db !== undefined) {
      if (this.backend !== undefined || this.connectionString !== undefined || this.schema !== undefined) {
        throw new UsageError('--db names the whole store; give it without --backend, --connection-string or --schema');
      }
      return this.provision(parseStoreValue(this.db, this.context.cwd));
    }
    const backend = this.backend ?? 'sqlite';
    if (backend === 'sqlite') {
      if (this.schema !== undefined) throw new UsageError('--schema applies to --backend postgres only');
      const ref: StoreRef =
        this.connectionString !== undefined
          ? { engine: 'sqlite', path: path.resolve(this.context.cwd, this.connectionString) }
          : checkpointStore({ env: this.context.env, cwd: this.context.cwd });
      return this.provision(ref);
    }
    if (backend === 'postgres') {
      if (this.connectionString === undefined || this.connectionString === '') {
        throw new UsageError('--backend postgres needs --connection-string <postgres://user@host:port/database>');
      }
      const ref = parseStoreValue(this.connectionString, this.context.cwd);
      if (ref.engine !== 'postgres') throw new UsageError('--backend postgres needs a postgres:// URL in --connection-string');
      return this.provision(this.schema === undefined ? ref : parseStoreValue(withSchema(this.connectionString, this.schema), this.context.cwd));
    }
    throw new UsageError(`unknown backend '${backend}': use sqlite or postgres`);
  }

  private async provision(ref: StoreRef): Promise<void> {
    if (ref.engine === 'sqlite') {
      const checkpointer = new SQLiteCheckpointer(ref.path);
      try {
        await checkpointer.setup();
        this.out(`SQLite checkpointer ready: ${ref.path} (local store schema v${await checkpointer.schemaVersion()})`);
      } finally {
        await checkpointer.close();
      }
      return;
    }
    const checkpointer = new PostgresCheckpointer(openStore(ref), { minPoolSize: 0, maxPoolSize: 1 });
    try {
      await checkpointer.setup();
      this.out(`Postgres checkpointer ready: schema "${checkpointer.schema}" (migration v${await checkpointer.schemaVersion()})`);
    } finally {
      await checkpointer.close();
    }
  }
}

/** `agentkit list-pending`: the runs waiting for a human decision. */
export class ListPendingCommand extends AgentkitCommand {
  static override paths = [['list-pending']];

  static override usage = Command.Usage({
    description: 'List pending interrupts (runs paused for a human decision), newest first',
    details: [
      'Prints a table of paused executions: execution id, chain, node, reason, agent path, time of the pause and a preview of the context. `--json` prints the full rows. At most `--limit` rows (default 100, the newest); when there were more, `showing <n>, more available` follows on stderr (with `--json` too: its output stays the array of rows).',
      STORE_DETAILS,
    ].join('\n\n'),
    examples: [
      ['List pending interrupts of the local store', '$0 list-pending'],
      ['The 10 newest, as JSON', '$0 list-pending --limit 10 --json'],
      ['From Postgres', '$0 list-pending --connection-string postgres://app@db:5432/prod --schema agentkit'],
    ],
  });

  dbPath = Option.String('--db,--db-path', { description: 'Store: a SQLite file or a postgres://...?schema=<name> URL (default: the local store)' });
  connectionString = Option.String('--connection-string', { description: 'Postgres URL instead of SQLite' });
  schema = Option.String('--schema', { description: 'Postgres schema (default agentkit)' });
  limit = Option.String('--limit', { description: 'At most this many rows (default 100)', validator: positiveInteger });
  json = Option.Boolean('--json', false, { description: 'Print JSON' });

  async run(): Promise<void> {
    const { rows: read, conflicts } = await readExistingStore(
      this,
      this.context,
      async (store) => ({
        rows: await store.listPendingInterrupts({ limit: (this.limit ?? 100) + 1 }),
        conflicts: (await quarantinedRows(store)).filter((row) => row.step_type === DECISION_STEP),
      }),
      { rows: [], conflicts: [] },
    );
    const { items: rows, more } = cutList(read, this.limit ?? 100);
    // --json stays the array of rows it always was (scripts read it); the cut is said on stderr either way.
    if (more) this.err(cutNotice(rows.length));
    if (this.json) return this.out(JSON.stringify(rows, null, 2));
    const width = outputWidth(this.context.stdout);
    // Piped output is never cut, the context preview included.
    const previewWidth = Number.isFinite(width) ? 60 : Number.POSITIVE_INFINITY;
    if (rows.length === 0) this.out('No pending interrupts.');
    else
      this.out(
        table(
          ['EXECUTION ID', 'CHAIN', 'NODE', 'REASON', 'AGENT PATH', 'CREATED AT', 'CONTEXT'],
          rows.map((p) => [p.execution_id, p.chain_name, p.node_id, p.reason, p.agent_path ?? '-', p.created_at, preview(p.context, previewWidth)]),
          // The reason and the time are read whole (the reason wraps); an id cut to 12 characters is still a prefix
          // every command takes (cli/ids.ts).
          { ids: [0], whole: [5], wrap: [3], width },
        ),
      );
    // Offline decisions the Platform refused (docs/adr/0054): decided twice, so a person must reconcile them.
    if (conflicts.length === 0) return;
    this.out();
    this.out(`Conflicts: ${conflicts.length} offline decision(s) refused by the Platform (agentkit inspect <id> shows both):`);
    for (const c of conflicts) this.out(`  ${c.execution_id} at ${c.node_id}: ${c.reason}`);
  }
}

/** `agentkit inspect <execution_id>`: the checkpoint history of one execution. */
export class InspectCommand extends AgentkitCommand {
  static override paths = [['inspect']];

  static override usage = Command.Usage({
    description: 'Show the checkpoint history of an execution',
    details: [
      "Prints where the execution stands (completed, failed, paused, or incomplete: running or crashed), one line per checkpoint (node, status, step type, time, agent path) and one line per decision taken on its pauses (approved or declined, by whom through which surface, when, and why), and the trace of each run and resume of it (`Traces:`); `--json` has them as `decisions` and `trace_ids`. Exits 1 with `error: execution id '<id>' not found in <store>: it has no checkpoints` on stderr when the execution has no checkpoints.",
      ID_FORMS,
      STORE_DETAILS,
    ].join('\n\n'),
    examples: [
      ['Inspect an execution', '$0 inspect 3f2a9c1e-...'],
      ['As JSON, with state snapshots', '$0 inspect 3f2a9c1e-... --json'],
    ],
  });

  executionId = Option.String({ name: 'execution_id' });
  dbPath = Option.String('--db,--db-path', { description: 'Store: a SQLite file or a postgres://...?schema=<name> URL (default: the local store)' });
  connectionString = Option.String('--connection-string', { description: 'Postgres URL instead of SQLite' });
  schema = Option.String('--schema', { description: 'Postgres schema (default agentkit)' });
  json = Option.Boolean('--json', false, { description: 'Print JSON (every field of every checkpoint)' });

  async run(): Promise<number | undefined> {
    const { rows, conflicts } = await readExistingStore(
      this,
      this.context,
      async (store) => {
        this.executionId = await resolveExecutionId(store, this.executionId);
        return {
          rows: await store.list(this.executionId, { limit: 1_000_000 }),
          conflicts: await quarantinedRows(store, { executionId: this.executionId }),
        };
      },
      { rows: [], conflicts: [] },
    );
    if (rows.length === 0) {
      this.err(`error: execution id '${this.executionId}' not found in ${storeLabel(this, this.context)}: it has no checkpoints`);
      return 1;
    }
    const state = executionState(rows);
    const decisions = rows.flatMap((row) => {
      const decision = decisionOf(row);
      return decision ? [decision] : [];
    });
    if (this.json) {
      const recorded = decisions.map((d) => ({
        checkpoint_id: d.row.checkpoint_id,
        node_id: d.row.node_id,
        agent_path: d.row.agent_path,
        reason_for_pause: d.claimed.reason,
        resume: d.value,
        decided_by: d.decidedBy,
        decided_at: d.decidedAt,
        reason: d.reason,
        claimed_by: d.claimedBy,
        offline_host: d.offlineHost,
      }));
      this.out(
        JSON.stringify(
          {
            execution_id: this.executionId,
            chain_name: rows[0]!.chain_name,
            state,
            trace_ids: executionTraceIds(rows),
            decisions: recorded,
            conflicts,
            checkpoints: rows,
          },
          null,
          2,
        ),
      );
      return;
    }
    const last = rows[rows.length - 1]!;
    this.out(`Execution: ${this.executionId}`);
    // The runner that wrote the execution (an Agent's rows carry `agent:<name>` paths), not always a chain.
    const owner = runnerOfExecution(rows) ?? { kind: 'chain', name: rows[0]!.chain_name };
    this.out(`${`${owner.kind[0]!.toUpperCase()}${owner.kind.slice(1)}:`.padEnd(11)}${owner.name}`);
    this.out(`State:     ${state}${state === 'paused' ? ` at ${last.node_id} (${last.interrupt_reason ?? 'interrupt'})` : ''}`);
    const traces = executionTraceIds(rows);
    if (traces.length > 0) this.out(`Traces:    ${traces.join(', ')}`);
    this.out(`Checkpoints: ${rows.length}`);
    this.out();
    this.out(
      table(
        ['#', 'NODE', 'STATUS', 'STEP TYPE', 'CREATED AT', 'AGENT PATH'],
        rows.map((r, i) => [String(i), r.node_id, r.status, r.step_type ?? '-', r.created_at, r.agent_path ?? '-']),
        { whole: [4], width: outputWidth(this.context.stdout) },
      ),
    );
    if (decisions.length > 0) this.out();
    for (const d of decisions) this.out(`Decision:  ${d.claimed.reason || d.row.node_id}: ${describeDecision(d)}`);
    for (const c of conflicts) this.out(`Conflict:  ${c.node_id}: this host's offline decision was refused by the Platform (${c.reason})`);
  }
}

/** `agentkit resume <execution_id> --runner <target>`: resume a paused execution with a decision, or a crashed or failed one. */
export class ResumeCommand extends AgentkitCommand {
  static override paths = [['resume']];

  static override usage = Command.Usage({
    description: 'Resume a paused execution through its runner',
    details: [
      "Loads the runner (a Chain or Agent) from `--runner <file.ts:attr>` or `--runner <module:attr>` (an attribute that is a zero-argument function is called to build it) and calls its `resume(execution_id, { resumeValue })` against the runner's own checkpointer.",
      'A paused execution needs a decision: without `--value` it approves (`{"approved": true}`). `--value` is a JSON object of the Resume shape: `approved` (boolean) and `metadata` (object); other keys are dropped. A crashed or failed execution (not paused) resumes from its last checkpoint without a value.',
      "The resume holds the execution's lease while it runs: another process resuming the same execution at the same time gets ExecutionBusy. The lease time to live is `AGENTKIT_EXECUTION_LEASE_MS` (default 30000): a resumer that died blocks the execution for at most that long.",
      'The decision is recorded with the claim: who made it (`--approver`, default the OS user), through the CLI, when, and `--reason`. A pause has one decision: when a resumer claimed it and died before the run went on, resuming again continues with that recorded decision; a `--value` that differs from it is refused (exit 2, naming the recorded decision and who made it).',
      "`--db <path|url>` (alias `--db-path`) names the store the execution is in, a SQLite file or a `postgres://...?schema=<name>` URL: a runner whose checkpointer keeps its checkpoints elsewhere is refused (exit 2, both stores named, passwords redacted), and the resumed run's traces go to that store. Without it, the runner's checkpointer decides, and traces go to the configured store (`AGENTKIT_LOCAL_DB`).",
      'Connected mode (docs/connected.md): a pause that was replicated to the Platform is decided through it, once across hosts; when the Platform cannot be reached such a resume is refused (exit 1) naming `--offline-decision`. With that flag the host decides alone: the decision is recorded as offline and queued; should the Platform already hold another decision for the pause, it refuses this one, which is quarantined here and shown by `inspect` and `list-pending`. Executions never replicated resume offline as always.',
      `${ID_FORMS} When the id given is a fragment, the full id it names is printed on stderr (\`resuming execution <id>\`) before anything changes.`,
      'Prints `status:`, `output:` and `pending_interrupt:` lines (`--json` prints the whole result). Exit codes: 0 resumed (completed, or paused again); 2 when another resumer already claimed the pause or the run already finished (AlreadyResumed), when another process is running the execution (ExecutionBusy), or `--value` is malformed; 1 otherwise.',
    ].join('\n\n'),
    examples: [
      ['Approve a paused run', '$0 resume 3f2a9c1e-... --runner examples/durability/refund-chain.ts:refundChain'],
      [
        'Reject it, with a note',
        '$0 resume 3f2a9c1e-... --runner ./agents.ts:refundChain --value \'{"approved": false, "metadata": {"note": "over budget"}}\'',
      ],
    ],
  });

  executionId = Option.String({ name: 'execution_id' });
  runner = Option.String('--runner', { required: true, description: 'The runner: <file>:<attr> or <module>:<attr>' });
  value = Option.String('--value', { description: 'Resume value as JSON (default {"approved": true})' });
  approver = Option.String('--approver', { description: 'Who decides, recorded with the decision (default: the OS user)' });
  reason = Option.String('--reason', { description: 'Why, recorded with the decision' });
  offlineDecision = Option.Boolean('--offline-decision', false, {
    description:
      'Connected mode: decide a replicated execution on this host when the Platform cannot be reached (recorded as offline; quarantined here if the Platform holds another decision)',
  });
  db = Option.String('--db,--db-path', {
    description: "The execution's store, a SQLite file or a postgres://...?schema= URL: the runner must be on it; the run's traces go there",
  });
  json = Option.Boolean('--json', false, { description: 'Print the whole result as JSON' });

  async run(): Promise<void> {
    const explicit = this.parseValue();
    if (this.approver !== undefined && this.approver.trim() === '') throw new UsageError('--approver must name someone (it is recorded with the decision)');
    const progress = slowWork(this.context.stderr, `agentkit: resuming ${this.executionId}`);
    try {
      return await this.resumeWith(explicit, progress);
    } finally {
      progress.done();
    }
  }

  private async resumeWith(explicit: Resume | undefined, progress: Progress): Promise<void> {
    const { value: target } = await loadTarget(this.runner, { cwd: this.context.cwd });
    if (!isResumable(target)) {
      throw new TargetLoadError(
        `target '${this.runner}' resolved to ${describeValue(target)}, which has no resume(executionId, options) method; name a Chain or an Agent (or a zero-argument function returning one)`,
      );
    }
    try {
      await withSavedConnection(this.context.env, () => this.resumeTarget(target, explicit, progress));
    } finally {
      // The CLI built this runner for one command; its connections must not keep the process alive.
      await target.checkpointer?.close?.();
    }
  }

  /** Restore from the Platform when connected and the store does not know the execution, resume, replicate. */
  private async resumeTarget(target: Resumable, explicit: Resume | undefined, progress: Progress): Promise<void> {
    const named = namedStore(this.context.cwd, this.db, { readOnly: true });
    if (named !== undefined) {
      checkRunnerStore(parseStoreValue(named, this.context.cwd), target.checkpointer, this.runner);
      await withTraceDestination(named, () => this.resumeOn(target, explicit, progress));
      return;
    }
    await this.resumeOn(target, explicit, progress);
  }

  private async resumeOn(target: Resumable, explicit: Resume | undefined, progress: Progress): Promise<void> {
    const store = asCheckpointer(target.checkpointer);
    if (store) await this.resolveId(store);
    if (store) await restoreIfMissing(store, this.executionId);
    try {
      await this.checkOwner(target);
      // The runner decides, under the execution's lease, whether the run is paused (then the approval by default
      // applies), holds a decision a dead resumer claimed (that one applies), or crashed (no decision needed). Deciding
      // here from rows read before the lease would race other resumers.
      const decision = {
        surface: 'cli' as const,
        ...(this.approver !== undefined ? { approver: this.approver } : {}),
        ...(this.reason !== undefined ? { reason: this.reason } : {}),
        ...(this.offlineDecision ? { offlineDecision: true } : {}),
      };
      const result = await target.resume(this.executionId, {
        ...decision,
        ...(explicit ? { resumeValue: explicit } : { defaultResumeValue: { approved: true, metadata: {} } }),
      });
      progress.done();
      if (this.json) return this.out(JSON.stringify(result, null, 2));
      this.out(`execution_id: ${result.execution_id}`);
      this.out(`status: ${result.status}`);
      this.out(`output: ${outputText(result.output)}`);
      this.out(`pending_interrupt: ${JSON.stringify(result.pending_interrupt ?? null)}`);
    } finally {
      // The resume's trace: a Postgres store is written asynchronously, so write it before the command ends.
      await flushTraces();
      // Connected: send what this resume wrote before the command ends (rows that cannot go now stay queued).
      if (store) await drainReplication(store);
    }
  }

  /** Replace a prefix or suffix of the execution id by the full id (cli/ids.ts), saying which before anything changes. */
  private async resolveId(store: Checkpointer): Promise<void> {
    const full = await resolveExecutionId(store, this.executionId);
    if (full === this.executionId) return;
    this.err(`resuming execution ${full}`);
    this.executionId = full;
  }

  /**
   * Refuse a runner that did not write the execution: a chain-hosted agent's pause resumed through the agent, or a
   * paused Swarm's through one of its agents, would skip the owner's own bookkeeping. The owner is read from the rows
   * (the root of `agent_path`, not `chain_name`: an inner agent writes a swarm's latest rows).
   */
  private async checkOwner(target: Resumable): Promise<Checkpoint[] | null> {
    const kind = runnerKind(target);
    const list = target.checkpointer?.list;
    if (!kind || typeof list !== 'function') return null;
    const rows = await list.call(target.checkpointer, this.executionId, { limit: 1_000_000 });
    const owner = runnerOfExecution(rows);
    const name = runnerName(target, kind);
    if (owner && (owner.kind !== kind || owner.name !== name)) {
      throw new UsageError(
        `execution '${this.executionId}' belongs to ${owner.kind} '${owner.name}' (read from its checkpoints), but --runner '${this.runner}' is ${kind} '${name}'; resume it through the ${owner.kind} that ran it`,
      );
    }
    return rows;
  }

  /** The `--value` given, or undefined (the default depends on whether the execution is paused). */
  private parseValue(): Resume | undefined {
    if (this.value === undefined) return undefined;
    let parsed: unknown;
    try {
      parsed = JSON.parse(this.value);
    } catch (error) {
      throw new UsageError(`--value is not valid JSON (${error instanceof Error ? error.message : String(error)}); expected e.g. {"approved": true}`);
    }
    try {
      return toResume(parsed);
    } catch (error) {
      if (error instanceof ValidationError) throw new UsageError(`--value: ${error.message}`);
      throw error;
    }
  }
}

interface Resumable {
  resume(
    executionId: string,
    options: { resumeValue?: Resume; defaultResumeValue?: Resume } & DecisionOptions,
  ): Promise<Pick<ChainResult, 'execution_id' | 'status' | 'output' | 'pending_interrupt'>>;
  checkpointer?: { close?: () => Promise<void>; list?: (executionId: string, options: { limit: number }) => Promise<Checkpoint[]> } | null;
}

/** The runner's checkpointer when it is a full Checkpointer (restore and replication need one). */
function asCheckpointer(value: unknown): Checkpointer | null {
  const c = value as Partial<Checkpointer> | null | undefined;
  return c && typeof c.getLast === 'function' && typeof c.put === 'function' && typeof c.recordInterrupt === 'function' ? (c as Checkpointer) : null;
}

function isResumable(value: unknown): value is Resumable {
  return typeof value === 'object' && value !== null && typeof (value as { resume?: unknown }).resume === 'function';
}
