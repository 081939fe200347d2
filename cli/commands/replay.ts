/**
 * Replay commands, reading the local store directly: `replay show` (the trace as numbered steps), `replay inspect`
 * (one step), `replay fork` (fork, modify, rerun safely, compare; optional result file).
 */
import type { Agent, ReplayForkReport } from '../../src/index.js';
import { validator } from '../../generated/schemas/resources.js';
import { Command, Option, UsageError } from 'clipanion';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Replay, TraceStore, REPLAY_MODES, type ReplayMode } from '../../src/index.js';
import { loadTarget, describeValue, TargetLoadError } from '../../src/targets.js';
import { AgentkitCommand } from '../base.js';
import { closeRunner } from '../runner-lifecycle.js';
import { namedStore } from '../store-path.js';
import { ID_FORMS, resolveTraceId } from '../ids.js';
import { readableAttributes } from '../readable-attributes.js';

const DB_DESCRIPTION = 'Store to read (default AGENTKIT_LOCAL_DB, else ./.agentkit/local.db)';

abstract class ReplayCommand extends AgentkitCommand {
  db = Option.String('--db', { description: DB_DESCRIPTION });

  protected store(): TraceStore {
    return new TraceStore({ env: this.context.env, cwd: this.context.cwd, dbPath: namedStore(this.context.cwd, this.db, { readOnly: true }) });
  }

  /** The trace `traceId` names (whole, or a unique prefix or suffix: cli/ids.ts), loaded for replay. */
  protected async load(traceId: string): Promise<Replay> {
    const store = this.store();
    return Replay.load(await resolveTraceId(store, traceId), { store });
  }
}

/** The trace id, or `--execution <id>` (one of them): the arguments of `Replay.load`. */
function traceOrExecution(traceId: string | undefined, execution: string | undefined): [string | null, { executionId?: string }] {
  if (traceId === undefined && execution === undefined) throw new UsageError('give a trace id or --execution <id>');
  if (traceId !== undefined && execution !== undefined) throw new UsageError('give a trace id or --execution <id>, not both');
  return [traceId ?? null, execution !== undefined ? { executionId: execution } : {}];
}

/** A step index as given on the command line: an integer (negative ones reach the range check). */
function stepNumber(text: string, flag: string): number {
  if (!/^-?\d+$/.test(text.trim())) throw new UsageError(`${flag} must be an integer step index, got '${text}'`);
  return Number(text);
}

/** `replay show <trace_id> [--json] [--db <path>]` */
export class ReplayShowCommand extends ReplayCommand {
  static override paths = [['replay', 'show']];

  static override usage = Command.Usage({
    category: 'Replay',
    description: 'Show a stored trace as numbered replay steps',
    details: [
      'Prints the trace id, name, status, span count and duration, then one line per step (`  [i] <span_name>`): the spans in start order, numbered from 0. Those numbers are what `replay inspect` and `replay fork --step` take.',
      'A run that paused for a person and was resumed left one trace per leg: given any of them, or `--execution <id>`, the command shows them as one numbered sequence (`Execution:` and `Traces:` lines), each step that paused, resumed or had a decision applied noted after its name.',
      '`--json` prints `{ trace_id, name, status, span_count, trace_ids, execution_id, start_time, end_time, steps }` with every step as a ReplayStep (`step`, `span_name`, `span_id`, `input`, `output`, `attributes`, `timestamp`). An unknown trace id (or execution) prints one line naming it and exits 1.',
      ID_FORMS,
    ].join('\n\n'),
    examples: [
      ['Show a trace', '$0 replay show 4bf92f3577b34da6a3ce929d0e0e4736'],
      ['Show it as JSON from another store', '$0 replay show 4bf92f3577b34da6a3ce929d0e0e4736 --json --db prod/local.db'],
    ],
  });

  traceId = Option.String({ name: 'trace_id', required: false });
  execution = Option.String('--execution', { description: "Show this execution's traces (instead of a trace id)" });
  json = Option.Boolean('--json', false, { description: 'Print JSON instead of text' });

  async run(): Promise<void> {
    const [traceId, which] = traceOrExecution(this.traceId, this.execution);
    const store = this.store();
    const replay = await Replay.load(traceId === null ? null : await resolveTraceId(store, traceId), { ...which, store });
    if (!this.json) {
      this.out(replay.summary());
      return;
    }
    const t = replay.trace;
    this.out(
      JSON.stringify(
        {
          trace_id: t.trace_id,
          name: t.name,
          status: t.status,
          span_count: replay.length,
          trace_ids: replay.traceIds,
          execution_id: replay.executionId,
          start_time: t.start_time,
          end_time: t.end_time,
          steps: replay.steps(),
        },
        null,
        2,
      ),
    );
  }
}

/** `replay inspect <trace_id> <step> [--json] [--db <path>]` */
export class ReplayInspectCommand extends ReplayCommand {
  static override paths = [['replay', 'inspect']];

  static override usage = Command.Usage({
    category: 'Replay',
    description: 'Print one step of a stored trace',
    details: [
      "Prints `Step <i>: <span_name>`, `Timestamp: <start time>`, then `Attributes:` and the span's attributes as indented JSON, attributes holding a JSON array as text (model messages) decoded into it, one message per block (`--json` keeps them as recorded).",
      '`--json` prints the ReplayStep, with its input and output payloads split out and decoded. A step outside the trace fails with `Step <n> out of range (0-<max>)` and exit 2 (pass a negative index after `--`); an unknown trace id exits 1.',
      ID_FORMS,
    ].join('\n\n'),
    examples: [
      ['Inspect the first model call', '$0 replay inspect 4bf92f3577b34da6a3ce929d0e0e4736 1'],
      ['Inspect as JSON', '$0 replay inspect 4bf92f3577b34da6a3ce929d0e0e4736 2 --json'],
    ],
  });

  traceId = Option.String({ name: 'trace_id' });
  step = Option.String({ name: 'step' });
  json = Option.Boolean('--json', false, { description: 'Print the ReplayStep as JSON' });

  async run(): Promise<void> {
    const index = stepNumber(this.step, 'step');
    const replay = await this.load(this.traceId);
    const step = replay.inspect(index);
    if (this.json) {
      this.out(JSON.stringify(step, null, 2));
      return;
    }
    this.out(`Step ${step.step}: ${step.span_name}`);
    this.out(`Timestamp: ${step.timestamp}`);
    this.out('Attributes:');
    this.out(JSON.stringify(readableAttributes(step.attributes), null, 2));
  }
}

/** `replay fork <trace_id> [--step N] [--prompt <text>] [--input <text>] [--output <path>] [--agent <spec>]... [--mode live|recorded] [--allow-side-effects] [--json] [--db <path>]` */
export class ReplayForkCommand extends ReplayCommand {
  static override paths = [['replay', 'fork']];

  static override usage = Command.Usage({
    category: 'Replay',
    description: 'Fork a stored trace, change it, rerun the agent safely and report where it diverged',
    details: [
      'Rebuilds the agent of the trace (the `agent.<name>` span at `--step`, else the nearest one above it, else the first one, so agents nested in a chain, swarm or supervisor work too) from its recorded reconstruction attributes, applies `--prompt` (new system prompt) and `--input` (new input), and runs it from the top as a new trace in the same store. `--step` (default 0) is the anchor of the comparison, not a resume point.',
      '`--agent <spec>` (repeatable; `file.ts:attr` or `module:attr`) imports a module so its tools and guardrails register; what the trace cannot carry (a model or tool defined in code) is taken from the loaded agent of the same name.',
      'Safety: `--mode recorded` (the default) answers each model call with the recorded response while the request matches and calls the model for real from the first change on; `--mode live` calls the model every time. In both modes `read_only` tools run, while `idempotent` and `side_effecting` tools are answered from the recorded call with the same arguments and never executed unless `--allow-side-effects` is given; a call with no recorded match stops the rerun with an error naming the tool.',
      "`--save-test <file>` appends the rerun as a regression test case (`input`: the rerun's input, `expected_output`: its new output, `trace_id`: the source trace, `created_at`) to a JSONL dataset that `agentkit eval run --dataset <file>` reads; the file and its folder are created when missing.",
      'Prints the new trace id, the original and new outputs, `steps_executed` and `diverged_at` (the first step whose span or model answer differs; `null` when identical), then where it diverged. `--json` prints `{ trace_id, source_trace_id, original_output, new_output, steps_executed, diverged_at }`; `--output <path>` writes that JSON to a file (mode 0600). An unknown trace id prints one line naming it and exits 1; a trace that cannot be rerun exits 2 with what is missing.',
      ID_FORMS,
    ].join('\n\n'),
    examples: [
      [
        'Rerun the quickstart agent with a new prompt',
        '$0 replay fork 4bf92f3577b34da6a3ce929d0e0e4736 --prompt "Answer in one sentence." --agent examples/quickstart-agent.ts:support',
      ],
      [
        'Rerun with another input, live, and keep the result',
        '$0 replay fork 4bf92f3577b34da6a3ce929d0e0e4736 --input "Where is order 1001?" --mode live --output fork.json --agent agents.ts:support',
      ],
    ],
  });

  traceId = Option.String({ name: 'trace_id' });
  step = Option.String('--step', '0', { description: 'Step to fork at, the comparison anchor (default 0)' });
  prompt = Option.String('--prompt', { description: 'New system prompt' });
  input = Option.String('--input', { description: 'New input for the agent' });
  output = Option.String('--output,-o', { description: 'Write the result JSON to this file' });
  agents = Option.Array('--agent', [], { description: 'Import an agent module (file.ts:attr or module:attr); repeatable' });
  mode = Option.String('--mode', 'recorded', { description: 'Model answers: recorded (default; live from the first changed call) or live' });
  allowSideEffects = Option.Boolean('--allow-side-effects', false, { description: 'Execute idempotent and side_effecting tools for real' });
  saveTest = Option.String('--save-test', { description: 'Append the rerun as a regression test case to this JSONL file' });
  json = Option.Boolean('--json', false, { description: 'Print the result as JSON' });

  async run(): Promise<void> {
    if (!(REPLAY_MODES as readonly string[]).includes(this.mode)) throw new UsageError(`--mode must be one of ${REPLAY_MODES.join(', ')}, got '${this.mode}'`);
    const step = stepNumber(this.step, '--step');
    const replay = await this.load(this.traceId);
    const fork = replay.forkAt(step);
    const loaded: unknown[] = [];
    try {
      const agents = new Map<string, Agent>();
      for (const spec of this.agents) {
        const { value } = await loadTarget(spec, { cwd: this.context.cwd });
        loaded.push(value);
        // By kind, not class: an agent module may use its own copy of the package.
        if ((value as { kind?: unknown } | null)?.kind !== 'agent') throw new TargetLoadError(`--agent ${spec} is ${describeValue(value)}, not an Agent`);
        agents.set((value as Agent).name, value as Agent);
      }
      if (this.prompt !== undefined) fork.modifyPrompt(this.prompt);
      if (this.input !== undefined) fork.modifyInput(this.input);
      fork.withDeterminism(this.mode as ReplayMode, { allowSideEffects: this.allowSideEffects });
      // Progress for a person watching: a live rerun takes as long as the model does.
      if ((this.context.stderr as { isTTY?: boolean }).isTTY)
        this.err(`rerunning agent '${fork.agentName}' from trace ${replay.traceId} (${this.mode} mode)...`);
      const result = await fork.rerun({ agent: agents.get(fork.agentName) });
      const comparison = await fork.compare(result);
      const body: ReplayForkReport = {
        trace_id: result.trace_id,
        source_trace_id: replay.traceId,
        original_output: result.original_output,
        new_output: result.new_output,
        steps_executed: result.steps_executed,
        diverged_at: comparison.diverged_at,
        status: result.status,
        ...(result.pending_interrupt ? { pending_interrupt: { reason: result.pending_interrupt.reason, context: result.pending_interrupt.context } } : {}),
      };
      // The report is a contract shape (ReplayForkReport): check it before anything is written.
      if (!validator('ReplayForkReport').Check(body)) throw new Error('the fork report does not match ReplayForkReport');
      if (this.saveTest !== undefined) {
        await result.saveAsTest(path.resolve(this.context.cwd, this.saveTest), {
          input: result.input,
          expectedOutput: text(result.new_output),
          sourceTraceId: replay.traceId,
        });
      }
      if (this.output !== undefined) await writeFile(path.resolve(this.context.cwd, this.output), `${JSON.stringify(body, null, 2)}\n`, { mode: 0o600 });
      if (this.json) {
        this.out(JSON.stringify(body, null, 2));
        return;
      }
      this.out(`trace_id: ${body.trace_id ?? '(not traced)'}`);
      this.out(`source_trace_id: ${body.source_trace_id}`);
      this.out(`original_output: ${text(body.original_output)}`);
      this.out(`new_output: ${text(body.new_output)}`);
      this.out(`steps_executed: ${body.steps_executed}`);
      this.out(`diverged_at: ${body.diverged_at ?? 'null'}`);
      if (result.pending_interrupt) {
        this.out(
          `status: paused (${result.pending_interrupt.reason} ${JSON.stringify(result.pending_interrupt.context)}); execution_id: ${result.agentResult.execution_id}`,
        );
      }
      this.out(
        `model calls: ${result.counts.recordedModelCalls} recorded, ${result.counts.liveModelCalls} live; tool calls: ${result.counts.liveToolCalls} run, ${result.counts.recordedToolCalls} answered from the trace, ${result.counts.overriddenToolCalls} overridden`,
      );
      this.out('');
      this.out(await fork.diff(result));
    } finally {
      for (const value of loaded) await closeRunner(value);
    }
  }
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}
