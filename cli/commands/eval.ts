/**
 * `agentkit eval run | compare | curate | export`: the CI gate over a dataset, the comparison of two stored runs,
 * datasets curated from traces, and the export preview. Each parses flags, calls one SDK function and maps the
 * result to output and an exit code (run: 0 passed, 1 failed, 3 invalid; compare: 1 regression, 3 run not found or no shared scorer;
 * 2 for usage mistakes everywhere).
 */
import { Command, Option, UsageError } from 'clipanion';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import * as t from 'typanion';
import {
  compareRuns,
  createModel,
  curate,
  EvalError,
  EvalStore,
  evaluate,
  exportPosture,
  exportPreview,
  gateExitCode,
  isOpenAIProvider,
  loadTarget,
  parseRule,
  runReport,
  writeJsonl,
  CURATE_FILTERS,
  type ChatModel,
  type CurateFilter,
  type ScorerOptions,
  type ScorerSpec,
} from '../../src/index.js';
import { validator } from '../../generated/schemas/resources.js';
import { withSavedConnection } from '../../src/platform/index.js';
import { AgentkitCommand } from '../base.js';
import { namedStore } from '../store-path.js';
import { redactStoreValue } from '../../src/config/store-value.js';
import { progressBar } from '../eval/progress.js';
import { comparisonText, scorecardText } from '../eval/render.js';

const dbDescription = 'Store: a file path or a postgres://...?schema= URL (default AGENTKIT_LOCAL_DB, else ./.agentkit/local.db)';

/** `eval run --agent <spec> --dataset <file> --scorers <list> [--fail-under <rule>]... ...` */
export class EvalRunCommand extends AgentkitCommand {
  static override paths = [['eval', 'run']];

  static override usage = Command.Usage({
    category: 'Evals',
    description: 'Run a dataset against an agent, score it and gate on the result (for CI)',
    details: [
      "Loads the target (`file.ts:attr` or `module:attr`: an Agent, Chain, Swarm, Supervisor, any object with `run(input)`, or any function), runs every case of the dataset (JSONL, CSV or a JSON array; replay's regression-test JSONL as is) `--concurrency` at a time, scores each output with every scorer, prints a scorecard and decides the gate.",
      "Scorers: `exact_match`, `contains`, `regex_match` (`--pattern`, else the case's `pattern`, else its expected output), `json_valid`, `llm_judge` and `faithfulness` (both need `--judge-model`; faithfulness reads each case's `context`/`contexts`), and custom scorers named as targets (`./scorers.ts:polite`, a function `(input, output, expected, case) => { score, passed, reason }` or a `{ name, score }` object).",
      'Rules (`--fail-under`, repeatable): `<scorer|overall>.<pass_rate|avg_score>=<value>`; a bare `<scorer>=<value>` means its pass_rate. A case whose agent throws or pauses, or whose scorer breaks, is errored: unscored, and counted in the error rate.',
      'Exit codes: 0 the gate passed; 1 it failed (a rule missed); 3 the run is invalid (error rate above `--max-error-rate`, nothing scored, or an eval error such as an unknown scorer or an unreadable dataset); 2 usage errors (missing flag, malformed rule, a rule naming a scorer the run does not use). Precedence: invalid > failed > passed.',
      "The run is saved (unless `--no-persist`) with git commit and branch in the store `--db` names: a file, or a fleet's Postgres store (`postgres://user@host/db?schema=<name>`), where `agentkit ui --db` and `eval compare --db` of any host list and compare it; the cases' traces go to the same store. `--json <path>` writes the report (`schema_version: 1`, `run_id`, `run_name`, `scorecard`, `gate`, `cases`); `--json -` prints it on stdout instead of the scorecard. A progress bar is drawn on stderr only when it is a terminal.",
    ].join('\n\n'),
    examples: [
      [
        'Gate on exact match',
        '$0 eval run --agent ./agent.ts:support --dataset tests/regression_tests.jsonl --scorers exact_match --fail-under exact_match.pass_rate=0.9 --max-error-rate 0.05',
      ],
      [
        'Two scorers, an LLM judge, a named run and a report',
        '$0 eval run --agent ./agent.ts:support --dataset cases.csv --scorers contains,llm_judge --judge-model openai:gpt-4o-mini --fail-under contains=0.8 --fail-under overall.pass_rate=0.75 --run-name nightly --json report.json',
      ],
    ],
  });

  agent = Option.String('--agent', {
    required: true,
    description: 'Target: file.ts:attr or module:attr (agent, chain, swarm, supervisor, object with run(), or function)',
  });
  dataset = Option.String('--dataset', { required: true, description: 'Dataset file: .jsonl, .csv or .json (array)' });
  scorers = Option.String('--scorers', 'exact_match', { description: 'Comma-separated scorer names or custom scorer targets (default exact_match)' });
  failUnder = Option.Array('--fail-under', [], { description: 'Threshold rule <scorer|overall>.<pass_rate|avg_score>=<v>; repeatable' });
  maxErrorRate = Option.String('--max-error-rate', {
    description: 'Largest share of errored cases (0-1) before the run is invalid (exit 3)',
    validator: t.isNumber(),
  });
  runName = Option.String('--run-name', { description: 'Name of the run (eval compare finds the latest run by name)' });
  json = Option.String('--json', { description: 'Write the JSON report to this path (- for stdout)' });
  concurrency = Option.String('--concurrency', '4', {
    description: 'Cases in flight at once (default 4)',
    validator: t.cascade(t.isNumber(), [t.isInteger(), t.isAtLeast(1)]),
  });
  db = Option.String('--db', { description: dbDescription });
  persist = Option.Boolean('--persist', true, { description: 'Save the run in the store (--no-persist: do not)' });
  judgeModel = Option.String('--judge-model', {
    description: 'Model for llm_judge/faithfulness: <provider>:<model> (openai, anthropic, ollama, ...) or file.ts:attr',
  });
  judgeBaseUrl = Option.String('--judge-base-url', { description: 'Base URL of the judge provider (an OpenAI-compatible gateway, a local server)' });
  judgeCriteria = Option.String('--judge-criteria', { description: 'What llm_judge judges (default correctness)' });
  judgeRubric = Option.String('--judge-rubric', { description: 'How llm_judge grades, shown to the judge' });
  judgeScale = Option.String('--judge-scale', {
    description: 'llm_judge scale: binary (default) or the top of a 1..N scale',
    validator: t.cascade(t.isNumber(), [t.isInteger(), t.isAtLeast(2)]),
  });
  judgeThreshold = Option.String('--judge-threshold', { description: 'Normalised llm_judge score needed to pass (default 0.5)', validator: t.isNumber() });
  pattern = Option.String('--pattern', { description: 'Regular expression for regex_match' });

  async run(): Promise<number> {
    for (const rule of this.failUnder) parseRule(rule);
    if (this.maxErrorRate !== undefined && !(this.maxErrorRate >= 0 && this.maxErrorRate <= 1))
      throw new UsageError(`--max-error-rate must be between 0 and 1, got ${this.maxErrorRate}`);
    if (this.judgeThreshold !== undefined && !(this.judgeThreshold >= 0 && this.judgeThreshold <= 1))
      throw new UsageError(`--judge-threshold must be between 0 and 1, got ${this.judgeThreshold}`);
    const names = this.scorers
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    if (names.length === 0) throw new UsageError('--scorers lists no scorer');
    const { cwd, env } = this.context;
    const scorerSpecs = await Promise.all(names.map((name) => this.scorerSpec(name)));
    const target = (await loadTarget(this.agent, { cwd })).value;
    const scorerOptions: ScorerOptions = {
      judgeModel: this.judgeModel === undefined ? undefined : await this.loadJudge(this.judgeModel),
      llmJudge: { criteria: this.judgeCriteria, rubric: this.judgeRubric, scale: this.judgeScale ?? 'binary', threshold: this.judgeThreshold },
      pattern: this.pattern,
    };
    const bar = progressBar(this.context.stderr);
    // Connected with the saved credentials (environment first) for this run's own export only (ADR 0045).
    const results = await withSavedConnection(env, () =>
      evaluate(target as Parameters<typeof evaluate>[0], this.dataset, scorerSpecs, {
        cwd,
        env,
        dbPath: namedStore(cwd, this.db, { readOnly: false }),
        concurrency: Number(this.concurrency),
        runName: this.runName,
        persist: this.persist,
        onProgress: (p) => bar.update(p),
        scorerOptions,
        gate: { failUnder: this.failUnder, maxErrorRate: this.maxErrorRate ?? null },
        metadata: { agent: this.agent, dataset: this.dataset },
      }),
    ).finally(() => bar.finish());
    const gate = results.gate!;
    const report = runReport(results);
    if (!validator('EvalRunReport').Check(report)) throw new EvalError('internal: the report does not match the EvalRunReport contract');
    if (this.json === '-') this.out(JSON.stringify(report, null, 2));
    else for (const line of scorecardText(results, gate, results.persisted ? redactStoreValue(results.db_path) : null)) this.out(line);
    if (this.failUnder.length === 0) {
      // The spec's exit 0 stands; a CI step without a rule must still say that it gated nothing (issue 51).
      const example = results.scorecard.metrics[0]?.name ?? 'exact_match';
      this.err(`warning: no --fail-under rule: nothing was gated, so this run passes whatever its scores; add one, e.g. --fail-under ${example}.pass_rate=0.9`);
    }
    if (this.json !== undefined && this.json !== '-') {
      const file = path.resolve(cwd, this.json);
      await writeFile(file, `${JSON.stringify(report, null, 2)}\n`);
      this.out(`Report written to ${file}`);
    }
    return gateExitCode(gate.outcome);
  }

  /** A built-in name as is; `file.ts:attr` / `module:attr` loads a custom scorer. */
  private async scorerSpec(name: string): Promise<ScorerSpec> {
    if (!name.includes(':')) return name;
    const loaded = await loadTarget(name, { cwd: this.context.cwd, callFactory: false });
    const value = loaded.value as ScorerSpec;
    if (typeof value === 'function') {
      const fn = value;
      const named = { [loaded.spec.attribute.split('.').pop()!]: (...args: Parameters<typeof fn>) => fn(...args) };
      return Object.values(named)[0]!;
    }
    if (value && typeof value === 'object' && typeof (value as { score?: unknown }).score === 'function') return value;
    throw new UsageError(`--scorers '${name}' is neither a scorer function nor a { name, score } object`);
  }

  /** `<provider>:<model>` builds a provider model; a target loads a ChatModel. */
  private async loadJudge(text: string): Promise<ChatModel> {
    const colon = text.indexOf(':');
    const provider = colon > 0 ? text.slice(0, colon) : '';
    if (provider === 'anthropic' || isOpenAIProvider(provider)) {
      const model = text.slice(colon + 1);
      if (!model) throw new UsageError(`--judge-model '${text}' names no model (e.g. openai:gpt-4o-mini)`);
      return createModel({ provider, model, ...(this.judgeBaseUrl ? { base_url: this.judgeBaseUrl } : {}) }, { env: this.context.env });
    }
    const loaded = await loadTarget(text, { cwd: this.context.cwd });
    const value = loaded.value as Partial<ChatModel> | null;
    if (!value || typeof value.complete !== 'function')
      throw new UsageError(`--judge-model '${text}' is neither <provider>:<model> nor a target resolving to a chat model`);
    return value as ChatModel;
  }
}

/** `eval compare <baseline_run> <candidate_run> [--tolerance <f>] [--json] [--db]` */
export class EvalCompareCommand extends AgentkitCommand {
  static override paths = [['eval', 'compare']];

  static override usage = Command.Usage({
    category: 'Evals',
    description: 'Compare two stored eval runs, baseline first, and flag a regression',
    details: [
      'Each run is named by its run id, or by a run name (the latest run of that name). Cases are paired by ordinal when both runs hold the same input there, then by input; pairs with an errored case on either side are left out. Prints per-scorer and overall pass-rate deltas, a 95% paired-bootstrap interval of the overall delta (so a team sees when a drop could be noise), and the cases that regressed and improved.',
      '`--db` names the store holding the runs: a file or a Postgres URL (runs written there by CI or any other process).',
      'Only the scorers both runs used are compared; scorers only one run used are named (`baseline_only_scorers`, `candidate_only_scorers` in JSON) and the overall pass rates are recomputed over the shared ones.',
      "Exit codes: 1 when the candidate's overall pass rate falls below the baseline's by more than `--tolerance` (default 0); 3 when a run is not found or the runs share no scorer; 2 usage errors; 0 otherwise. `--json` prints the comparison as JSON.",
    ].join('\n\n'),
    examples: [
      ['Latest nightly against the release baseline, allowing a 2-point drop', '$0 eval compare release-1.4 nightly --tolerance 0.02'],
      ['By run ids, as JSON', '$0 eval compare 3f2a... 9b1c... --json'],
    ],
  });

  baseline = Option.String({ name: 'baseline_run' });
  candidate = Option.String({ name: 'candidate_run' });
  tolerance = Option.String('--tolerance', '0', { description: 'Largest accepted drop of the overall pass rate (0-1, default 0)', validator: t.isNumber() });
  json = Option.Boolean('--json', false, { description: 'Print the comparison as JSON' });
  db = Option.String('--db', { description: dbDescription });

  async run(): Promise<number> {
    const tolerance = Number(this.tolerance);
    if (!(tolerance >= 0 && tolerance <= 1)) throw new UsageError(`--tolerance must be between 0 and 1, got ${tolerance}`);
    const store = evalStore(this);
    const [baseline, candidate] = await closing(store, async () => [await store.resolveRun(this.baseline), await store.resolveRun(this.candidate)]);
    const comparison = compareRuns(baseline, candidate, { tolerance });
    if (this.json) this.out(JSON.stringify(comparison, null, 2));
    else for (const line of comparisonText(comparison, baseline, candidate)) this.out(line);
    return comparison.regression ? 1 : 0;
  }
}

/** `eval curate --filter <f> [--agent <name>] [--since <hours>] [--limit <n>] --out <file.jsonl> [--append]` */
export class EvalCurateCommand extends AgentkitCommand {
  static override paths = [['eval', 'curate']];

  static override usage = Command.Usage({
    category: 'Evals',
    description: 'Build an eval dataset (JSONL) from traces in the local store',
    details: [
      'Every `agent.<name>` span (a root run, or an agent nested in a chain, swarm or supervisor) that matches becomes one case with its captured input, `trace_id`, `span_id`, `agent_name`, `source` (`curated:<filter>`) and `created_at`.',
      'Filters: `all` (default), `favorites` (traces marked favorite: `markFavorite()` or the UI), `noted` (traces with a note) take the captured output as `expected_output` and skip runs without one. `guardrail` (a guardrail blocked, warned or errored) and `failed` (any span ERROR) write `needs_review: true` with an empty `expected_output`, the `actual_output` and a `reason`, for a person to fill in.',
      '`--since` is in hours (decimals allowed: 0.5 = 30 minutes). `--limit` keeps the newest cases (default 200). The file is replaced (atomically, mode 0600 when new) unless `--append`.',
      "`--db` names the store: a file path or a `postgres://user@host/db?schema=<name>` URL (a fleet's traces). A Postgres store holds no favorites, notes or guardrail events yet: there only `all` and `failed` work, the other filters are refused (exit 2).",
    ].join('\n\n'),
    examples: [
      [
        'Failed runs of a fleet, from its Postgres store',
        "$0 eval curate --filter failed --db 'postgres://app@db:5432/prod?schema=agentkit' --out review.jsonl",
      ],
      ['Favorites of the last week', '$0 eval curate --filter favorites --since 168 --out tests/favorites.jsonl'],
      ['Guardrail hits of one agent, appended for review', '$0 eval curate --filter guardrail --agent support --out review.jsonl --append'],
    ],
  });

  filter = Option.String('--filter', 'all', { description: `Which runs: ${CURATE_FILTERS.join(', ')} (default all)` });
  agent = Option.String('--agent', { description: 'Only spans of this agent name' });
  since = Option.String('--since', { description: 'Only runs started in the last this many hours', validator: t.isNumber() });
  limit = Option.String('--limit', '200', {
    description: 'At most this many cases, the newest (default 200)',
    validator: t.cascade(t.isNumber(), [t.isInteger(), t.isAtLeast(1)]),
  });
  outFile = Option.String('--out,-o', { required: true, description: 'JSONL file to write' });
  append = Option.Boolean('--append', false, { description: 'Append to the file instead of replacing it' });
  db = Option.String('--db', { description: 'Store: a file path or a postgres://...?schema= URL (default AGENTKIT_LOCAL_DB, else ./.agentkit/local.db)' });
  json = Option.Boolean('--json', false, { description: 'Print { file, written, skipped } as JSON' });

  async run(): Promise<void> {
    if (!(CURATE_FILTERS as readonly string[]).includes(this.filter))
      throw new UsageError(`unknown --filter '${this.filter}'; filters: ${CURATE_FILTERS.join(', ')}`);
    if (this.since !== undefined && !(this.since > 0)) throw new UsageError(`--since must be a positive number of hours, got ${this.since}`);
    const { cwd, env } = this.context;
    const result = await curate({
      filter: this.filter as CurateFilter,
      agent: this.agent,
      sinceHours: this.since,
      limit: Number(this.limit),
      env,
      cwd,
      dbPath: namedStore(cwd, this.db, { readOnly: true }),
    });
    const file = path.resolve(cwd, this.outFile);
    if (result.cases.length > 0) writeJsonl(file, result.cases, { append: this.append });
    if (this.json) {
      this.out(JSON.stringify({ file, written: result.cases.length, skipped: result.skipped }));
      return;
    }
    const skipped =
      result.skipped > 0
        ? ` (${result.skipped} matching span(s) skipped: no captured input${this.filter === 'all' || this.filter === 'favorites' || this.filter === 'noted' ? ' or output' : ''})`
        : '';
    this.out(
      result.cases.length === 0
        ? `No matching agent runs for filter '${this.filter}'; nothing written${skipped}`
        : `Wrote ${result.cases.length} case(s) to ${file}${this.append ? ' (appended)' : ''}${skipped}`,
    );
  }
}

/** `eval export --status | --dry-run [--run <id>] [--limit <n>] [--json] [--db]` */
export class EvalExportCommand extends AgentkitCommand {
  static override paths = [['eval', 'export']];

  static override usage = Command.Usage({
    category: 'Evals',
    description: 'Inspect eval export to the Platform (never sends anything)',
    details: [
      '`--status` prints the posture: connected or not (AGENTKIT_API_KEY, else the credentials file), whether export is enabled and what disables it (`AGENTKIT_EXPORT_EVALS=0`, `connect({ exportEvals: false })`, or not being connected), and the number of runs queued for export.',
      '`--dry-run` prints the literal JSON that would be sent for the oldest queued runs (`--limit`, default 10) or for one run (`--run`): run aggregates, gate outcome and checks, thresholds, git provenance and per-case verdicts (passed, score) with trace ids. Case inputs, expected and actual outputs, scorer reasons and error texts are never part of it.',
    ].join('\n\n'),
    examples: [
      ['Posture', '$0 eval export --status'],
      ['What would be sent for one run', '$0 eval export --dry-run --run nightly'],
    ],
  });

  status = Option.Boolean('--status', false, { description: 'Print the export posture and the queued runs' });
  dryRun = Option.Boolean('--dry-run', false, { description: 'Print the JSON that would be sent' });
  runRef = Option.String('--run', { description: 'Only this run (id or name) for --dry-run' });
  limit = Option.String('--limit', '10', {
    description: 'Queued runs shown by --dry-run (default 10)',
    validator: t.cascade(t.isNumber(), [t.isInteger(), t.isAtLeast(1)]),
  });
  json = Option.Boolean('--json', false, { description: 'Print the status as JSON' });
  db = Option.String('--db', { description: dbDescription });

  async run(): Promise<void> {
    if (this.status === this.dryRun) throw new UsageError('give exactly one of --status and --dry-run');
    const store = evalStore(this);
    if (this.dryRun) {
      const preview = await closing(store, () => exportPreview(store, { limit: Number(this.limit), runId: this.runRef }));
      this.out(JSON.stringify(preview, null, 2));
      return;
    }
    const posture = await closing(store, () => exportPosture(store, { env: this.context.env }));
    if (this.json) {
      this.out(JSON.stringify(posture, null, 2));
      return;
    }
    this.out(
      `Connected: ${posture.connected ? `yes (source: ${posture.source})` : `no (no AGENTKIT_API_KEY and no credentials file at ${posture.credentials_file})`}`,
    );
    this.out(`Eval export: ${posture.enabled ? 'enabled' : `disabled (${posture.disabled_by})`}`);
    this.out(`Queued runs: ${posture.queued_runs}`);
    this.out('Nothing was sent: this command only inspects.');
  }
}

/** `fn`'s result, the store closed after (a Postgres store's pool would keep the process alive). */
async function closing<T>(store: EvalStore, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } finally {
    await store.close();
  }
}

function evalStore(command: AgentkitCommand & { db?: string }, options: { readOnly: boolean } = { readOnly: true }): EvalStore {
  const { cwd, env } = command.context;
  return new EvalStore({ env, cwd, dbPath: namedStore(cwd, command.db, options) });
}
