/**
 * The rows of ../shared/spec/agentkit-spec.md the conformance suite proves: every endpoint, every state transition
 * (and resume shape), every row of the Errors table, every CLI command. A scenario names the rows it proves; the
 * coverage report lists, per row, the backends and surfaces with a passing scenario, and every row still uncovered.
 *
 * `storage: false` marks rows whose store does not vary with the checkpointer backend (a passing scenario covers them
 * on every backend): rows that touch no store, and the trace rows, because traces always live in the local store
 * (local.db, SQLite) whatever checkpointer a run uses; there is no Postgres trace store to run them against. The eval
 * rows likewise (eval runs live in local.db), the prompt registry (its scenarios run on both engines, ADR 0062, but the
 * rows do not depend on the checkpointer) and `migrate`, whose target is always local.db.
 */
export type SpecRowKind = 'route' | 'transition' | 'error' | 'cli';

export interface SpecRow {
  readonly id: string;
  readonly kind: SpecRowKind;
  /** The spec's wording, shortened. */
  readonly text: string;
  readonly storage: boolean;
}

const rows = [
  // Endpoints: served agent
  { id: 'route:GET /health', kind: 'route', text: 'served agent liveness; always open', storage: false },
  { id: 'route:POST /run', kind: 'route', text: 'served agent run: JSON {input} -> run response', storage: true },
  { id: 'route:POST /run/stream', kind: 'route', text: 'served agent stream (Agent targets only): SSE events', storage: true },
  { id: 'route:GET /runs/{execution_id}', kind: 'route', text: 'served agent: where an execution of the served runner stands (ADR 0053)', storage: true },
  // Endpoints: local UI
  { id: 'route:GET /api/executions/{execution_id}', kind: 'route', text: 'full checkpoint history; 404 on unknown id', storage: true },
  { id: 'route:GET /api/pending-interrupts', kind: 'route', text: 'list of PendingInterrupt rows; query limit', storage: true },
  { id: 'route:POST /api/executions/{execution_id}/resume', kind: 'route', text: 'atomic resume; 409 AlreadyResumed; 503 no runner', storage: true },
  { id: 'route:GET /api/overview', kind: 'route', text: 'home counts incl. pending_approvals_count, failed_executions_count', storage: true },
  { id: 'route:POST /api/replay/{trace_id}/fork', kind: 'route', text: 'create a fork', storage: true },
  { id: 'route:PATCH /api/replay/forks/{fork_id}', kind: 'route', text: 'store the modification (prompt, input, tool response, LLM params)', storage: true },
  { id: 'route:POST /api/replay/forks/{fork_id}/rerun', kind: 'route', text: 'run the fork; spans arrive as produced', storage: true },
  {
    id: 'route:POST /api/replay/forks/{fork_id}/save-as-test',
    kind: 'route',
    text: 'append a regression record to ./.agentkit/regression_tests.jsonl',
    storage: true,
  },

  // States and transitions
  {
    id: 'transition:running->paused',
    kind: 'transition',
    text: 'interrupt() with no resume value: interrupted checkpoint + pending row together; status paused; context frozen',
    storage: true,
  },
  { id: 'transition:running->completed', kind: 'transition', text: 'run finishes: terminal row run_status completed', storage: true },
  { id: 'transition:running->failed', kind: 'transition', text: 'run raises: terminal row run_status failed', storage: true },
  {
    id: 'transition:paused->running',
    kind: 'transition',
    text: 'resume with resume_value, pending row claimed atomically: node re-executes, interrupt() returns the Resume',
    storage: true,
  },
  {
    id: 'transition:paused-claimed',
    kind: 'transition',
    text: 'resume when the pending row was already claimed: AlreadyResumed, state unchanged',
    storage: true,
  },
  { id: 'transition:completed-resume', kind: 'transition', text: 'resume a completed run: AlreadyResumed, no re-execution', storage: true },
  {
    id: 'transition:failed->running',
    kind: 'transition',
    text: 'resume a failed run: from the last real checkpoint; modified_state patches state',
    storage: true,
  },
  {
    id: 'transition:fork',
    kind: 'transition',
    text: 'fork a completed, failed or paused run: fresh execution_id, original intact, own terminal row, parent_checkpoint_id',
    storage: true,
  },
  { id: 'transition:fork-completed-resume', kind: 'transition', text: 'resume a completed forked branch: AlreadyResumed', storage: true },
  { id: 'transition:fork-failed-resume', kind: 'transition', text: 'resume a failed forked branch: from its last real checkpoint', storage: true },
  {
    id: 'transition:agent-resume-interrupted',
    kind: 'transition',
    text: 'agent resume shape 1: claim and re-invoke the suspended tool with the resume value',
    storage: true,
  },
  {
    id: 'transition:agent-resume-tool-crash',
    kind: 'transition',
    text: 'agent resume shape 2: re-invoke the saved tool with saved arguments; no new LLM call',
    storage: true,
  },
  {
    id: 'transition:agent-resume-turn-crash',
    kind: 'transition',
    text: 'agent resume shape 3: re-enter at the saved turn and re-issue the LLM call',
    storage: true,
  },
  {
    id: 'transition:swarm-resume',
    kind: 'transition',
    text: 'swarm resume: active agent from agent_path, state from handoff:N, allowlists and max_handoffs enforced',
    storage: true,
  },
  {
    id: 'transition:supervisor-resume',
    kind: 'transition',
    text: 'supervisor resume: original input recovered, LLM re-issued, delegates resume existing workers',
    storage: true,
  },

  // Errors
  {
    id: 'error:already-resumed',
    kind: 'error',
    text: 'resume on a claimed row or completed run: AlreadyResumed; UI 409; agentkit resume exit 2',
    storage: true,
  },
  { id: 'error:no-runner', kind: 'error', text: 'UI resume with no runner registered for the chain name: 503', storage: true },
  { id: 'error:execution-not-found', kind: 'error', text: 'GET execution with unknown id: 404', storage: true },
  { id: 'error:inspect-empty', kind: 'error', text: 'agentkit inspect with no checkpoints: exit 1', storage: true },
  {
    id: 'error:replay-step-range',
    kind: 'error',
    text: 'replay step out of range (inspect, fork_at, negative): ReplayError "Step <n> out of range (0-<max>)"',
    storage: false,
  },
  { id: 'error:rerun-old-trace', kind: 'error', text: 'rerun of a trace captured before 0.1.7: reconstruction fails', storage: false },
  { id: 'error:modify-state', kind: 'error', text: 'modify_state() on a forked replay: NotImplementedError', storage: false },
  { id: 'error:idempotency', kind: 'error', text: 'idempotent function returns a non-JSON value: IdempotencyError at the first call', storage: true },
  { id: 'error:fork-terminal-row', kind: 'error', text: 'fork with explicit checkpoint_id naming the terminal row: ChainCheckpointError', storage: true },
  { id: 'error:fork-nothing', kind: 'error', text: 'fork of a run with nothing but its terminal row: no checkpoint to fork', storage: true },
  { id: 'error:interrupt-signal', kind: 'error', text: 'interrupt() signal: InterruptSignal, caught by executors', storage: true },
  { id: 'error:invalid-pg-schema', kind: 'error', text: 'invalid Postgres schema name: rejected', storage: false },
  { id: 'error:ui-bind', kind: 'error', text: 'non-loopback UI bind without --insecure-bind: refused', storage: false },
  { id: 'error:eval-exit-codes', kind: 'error', text: 'eval run exit codes: 0 passed, 1 gate failed, 3 invalid, 2 usage', storage: false },
  { id: 'error:ui-agent-unresolvable', kind: 'error', text: 'unresolvable --agent target for the UI: reported and skipped; UI starts', storage: false },

  // Command-line tool
  { id: 'cli:version', kind: 'cli', text: 'agentkit version', storage: false },
  { id: 'cli:connect', kind: 'cli', text: 'agentkit connect --api-key [--target] [--project]', storage: false },
  { id: 'cli:disconnect', kind: 'cli', text: 'agentkit disconnect', storage: false },
  { id: 'cli:auth status', kind: 'cli', text: 'agentkit auth status', storage: false },
  { id: 'cli:auth env', kind: 'cli', text: 'agentkit auth env', storage: false },
  { id: 'cli:traces list', kind: 'cli', text: 'agentkit traces list [--last-hours N]', storage: false },
  { id: 'cli:traces export', kind: 'cli', text: 'agentkit traces export <trace_id> [--format json]', storage: false },
  { id: 'cli:replay show', kind: 'cli', text: 'agentkit replay show <trace_id>', storage: false },
  { id: 'cli:replay inspect', kind: 'cli', text: 'agentkit replay inspect <trace_id> <step>', storage: false },
  { id: 'cli:replay fork', kind: 'cli', text: 'agentkit replay fork <trace_id> [--step] [--prompt] [--input] [--output]', storage: false },
  { id: 'cli:eval curate', kind: 'cli', text: 'agentkit eval curate --filter <name> [--agent] [--since] --out', storage: false },
  {
    id: 'cli:eval run',
    kind: 'cli',
    text: 'agentkit eval run --agent --dataset --scorers [--fail-under] [--max-error-rate] [--run-name] [--json]',
    storage: false,
  },
  { id: 'cli:eval compare', kind: 'cli', text: 'agentkit eval compare <baseline_run> <candidate_run> [--tolerance]', storage: false },
  { id: 'cli:eval export', kind: 'cli', text: 'agentkit eval export --status / --dry-run', storage: false },
  { id: 'cli:prompts list', kind: 'cli', text: 'agentkit prompts list', storage: false },
  { id: 'cli:prompts diff', kind: 'cli', text: 'agentkit prompts diff <name> --from --to', storage: false },
  { id: 'cli:kb list', kind: 'cli', text: 'agentkit kb list [--path]', storage: false },
  { id: 'cli:kb status', kind: 'cli', text: 'agentkit kb status --name', storage: false },
  { id: 'cli:kb add', kind: 'cli', text: 'agentkit kb add <file or dir> --name', storage: false },
  { id: 'cli:kb delete', kind: 'cli', text: 'agentkit kb delete <file> --name', storage: false },
  { id: 'cli:kb clear', kind: 'cli', text: 'agentkit kb clear --name', storage: false },
  { id: 'cli:ui', kind: 'cli', text: 'agentkit ui [start]', storage: true },
  { id: 'cli:ui reset-password', kind: 'cli', text: 'agentkit ui reset-password', storage: false },
  { id: 'cli:agent serve', kind: 'cli', text: 'agentkit agent serve <spec>', storage: true },
  { id: 'cli:mcp serve', kind: 'cli', text: 'agentkit mcp serve <spec> [--expose-tools] [--name]', storage: true },
  { id: 'cli:list-pending', kind: 'cli', text: 'agentkit list-pending [--db-path] [--limit]', storage: true },
  { id: 'cli:inspect', kind: 'cli', text: 'agentkit inspect <execution_id> [--db-path]', storage: true },
  { id: 'cli:resume', kind: 'cli', text: 'agentkit resume <execution_id> --runner <module:attr> [--value <JSON>]', storage: true },
  { id: 'cli:setup-checkpointer', kind: 'cli', text: 'agentkit setup-checkpointer [--backend] [--connection-string] [--schema]', storage: true },
  { id: 'cli:migrate', kind: 'cli', text: 'agentkit migrate [--force]', storage: false },
  {
    id: 'cli:export-trace',
    kind: 'cli',
    text: 'agentkit export-trace --trace-id [--output] [--include-attachments] [--include-checkpoint-state] [--db]',
    storage: false,
  },
] as const satisfies readonly SpecRow[];

/** Every spec row, in spec order. */
export const SPEC_ROWS: readonly SpecRow[] = rows;

/** A valid row id; a scenario naming anything else does not compile. */
export type SpecRowId = (typeof rows)[number]['id'];
