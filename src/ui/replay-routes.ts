/**
 * The replay routes of the local UI: a stored trace as steps, a fork at a step, modifications, a rerun whose spans
 * stream over SSE as they end, the comparison, and save-as-test. Nothing here runs code named by a request: a rerun
 * uses the Agent registered with the UI (`--agent`, or `createUiApp({ runners })`) whose name is the fork's agent,
 * and a regression record always goes to `<projectDir>/.agentkit/regression_tests.jsonl`.
 */
import path from 'node:path';
import type { Request, Response } from 'express';
import type { RouteRegistrar } from '../http/validated-app.js';
import type { components } from '../../generated/types/ui.js';
import type { Agent } from '../agent/agent.js';
import { AgentkitError, ValidationError } from '../errors.js';
import { ReplayError } from '../replay/errors.js';
import type { ReplayRunResult } from '../replay/result.js';
import { Replay } from '../replay/replay.js';
import { appendRegressionRecord } from '../replay/save-test.js';
import { stepsOf } from '../replay/steps.js';
import { stepNote } from '../replay/step-note.js';
import type { TraceStore } from '../tracing/trace-store.js';
import { applyModification, type ForkRegistry, forkState, type UiFork } from './forks.js';
import { RerunStream } from './rerun-stream.js';
import type { RunnerRegistry } from './runners.js';

type Schemas = components['schemas'];

/** Where save-as-test appends, relative to the UI's project directory. */
export const REGRESSION_TESTS_FILE = path.join('.agentkit', 'regression_tests.jsonl');

/** How often a running rerun's trace is read for newly ended spans, in ms. */
const POLL_MS = 100;

export interface ReplayRouteOptions {
  store: TraceStore;
  registry: RunnerRegistry;
  forks: ForkRegistry;
  /** The directory `.agentkit/regression_tests.jsonl` is under. */
  projectDir: string;
}

export function replayRoutes(router: RouteRegistrar, options: ReplayRouteOptions): void {
  const { store, registry, forks } = options;

  router.get('/api/replay/:trace_id', async (req: Request, res: Response) => {
    const replay = await Replay.load(String(req.params.trace_id), { store });
    res.json({
      trace_id: replay.trace.trace_id,
      name: replay.trace.name,
      status: replay.trace.status as Schemas['SpanStatus'],
      span_count: replay.trace.spans.length,
      steps: replay.steps() as unknown as Schemas['ReplayStep'][],
      trace_ids: replay.traceIds,
      execution_id: replay.executionId,
      step_notes: replay.trace.spans.map((span) => stepNote(span).replace(/^ \((.*)\)$/, '$1')),
    } satisfies Schemas['ReplayView']);
  });

  router.post('/api/replay/:trace_id/fork', async (req: Request, res: Response) => {
    const { step } = req.body as Schemas['ForkRequest'];
    const replay = await Replay.load(String(req.params.trace_id), { store });
    const entry = await forks.add(replay.forkAt(step));
    res.status(201).json(forkState(entry));
  });

  router.get('/api/replay/forks/:fork_id', async (req: Request, res: Response) => {
    res.json(forkState(await forks.get(String(req.params.fork_id))));
  });

  router.patch('/api/replay/forks/:fork_id', async (req: Request, res: Response) => {
    const entry = await forks.get(String(req.params.fork_id));
    applyModification(entry, req.body as Schemas['ForkModification']);
    await forks.saveModifications(entry);
    res.json(forkState(entry));
  });

  router.post('/api/replay/forks/:fork_id/rerun', async (req: Request, res: Response) => {
    const entry = await forks.get(String(req.params.fork_id));
    await rerun(entry, runnerFor(registry, entry), store, forks, res);
  });

  router.get('/api/replay/forks/:fork_id/compare', async (req: Request, res: Response) => {
    const entry = await forks.get(String(req.params.fork_id));
    if (!entry.rerun) throw notRerun(entry);
    res.json(entry.rerun.comparison as Schemas['ComparisonResult']);
  });

  router.post('/api/replay/forks/:fork_id/save-as-test', async (req: Request, res: Response) => {
    const entry = await forks.get(String(req.params.fork_id));
    const body = req.body as Schemas['SaveAsTestRequest'];
    const output = entry.rerun?.result.new_output;
    const expected = body.expected_output ?? (entry.rerun ? (typeof output === 'string' ? output : JSON.stringify(output ?? null)) : undefined);
    if (expected === undefined) throw notRerun(entry);
    const input = body.input ?? entry.rerun?.input ?? entry.modifications.input ?? entry.fork.originalInput;
    if (input === null)
      throw new ValidationError(`the fork's agent span records no input; pass "input" in the body`, [
        { path: '/input', message: 'required: the trace has no recorded input' },
      ]);
    // Never a path from the request: the file is fixed under the project directory.
    const file = path.resolve(options.projectDir, REGRESSION_TESTS_FILE);
    const record = appendRegressionRecord(file, { input, expectedOutput: expected, traceId: entry.fork.replay.traceId });
    res.json({ path: file, record } satisfies Schemas['SavedTest']);
  });
}

/** The registered Agent named like the fork's agent; NoRunner (503) when there is none. */
function runnerFor(registry: RunnerRegistry, entry: UiFork): Agent {
  const name = entry.fork.agentName;
  // Registered by kind (duck-typed, so an Agent from another copy of the package counts too).
  const runner = registry.get('agent', name);
  if (!runner) {
    throw new AgentkitError(
      'no_runner',
      `No runner registered for agent '${name}': start the UI with --agent <file>:<attr> naming it (registered: ${registry.keys().join(', ') || 'none'}).`,
    );
  }
  return runner as unknown as Agent;
}

function notRerun(entry: UiFork): AgentkitError {
  return new AgentkitError('fork_not_rerun', `Fork '${entry.id}' has not been rerun yet: rerun it first (or give expected_output to save it as a test).`);
}

/**
 * Run the fork. Until the rerun's agent span starts, a failure is an ordinary JSON error (a trace that cannot be
 * rebuilt is 422 reconstruction_failed); from then on the response is an event stream: each span of the new trace
 * as it ends (read from the store), then `done` with the result and the comparison, or `error`. A client that goes
 * away cancels the rerun.
 */
async function rerun(entry: UiFork, agent: Agent, store: TraceStore, forks: ForkRegistry, res: Response): Promise<void> {
  const controller = new AbortController();
  let started: (traceId: string) => void = () => undefined;
  const traceStarted = new Promise<string>((resolve) => (started = resolve));
  const running = entry.fork.rerun({ agent, signal: controller.signal, onTraceStart: (id) => started(id) });
  let finished = false;
  const settled = running.then(
    () => (finished = true),
    () => (finished = true),
  );
  const first = await Promise.race([
    traceStarted.then((traceId): { traceId: string | null } => ({ traceId })),
    running.then((result) => ({ traceId: result.trace_id })),
  ]).catch((error: unknown) => ({ error }));
  // The agent could not be rebuilt: a JSON error. Anything else that stopped it before its first turn (an input
  // guardrail, say) is the stream's `error` event, like a failure later on.
  if ('error' in first && first.error instanceof ReplayError) throw new AgentkitError('reconstruction_failed', first.error.message);
  const traceId = 'error' in first ? null : first.traceId;

  const stream = new RerunStream(res);
  res.on('close', () => {
    if (!finished) controller.abort(new ReplayError('the client closed the rerun stream'));
  });
  const sent = new Set<string>();
  const pump = async (traceId: string | null) => {
    if (!traceId) return;
    const spans = await store.spans(traceId).catch(() => []);
    for (const step of stepsOf(spans)) {
      if (sent.has(step.span_id)) continue;
      sent.add(step.span_id);
      await stream.send({ type: 'span', step: step as unknown as Schemas['ReplayStep'] });
    }
  };
  while (!finished && !stream.isClosed) {
    await pump(traceId);
    await Promise.race([settled, new Promise((resolve) => setTimeout(resolve, POLL_MS))]);
  }
  let result: ReplayRunResult;
  try {
    result = await running;
  } catch (error) {
    await pump(traceId);
    const known = error instanceof AgentkitError;
    await stream.send({ type: 'error', detail: known ? error.message : 'the rerun failed unexpectedly', code: known ? error.code : 'internal_error' });
    stream.end();
    return;
  }
  await pump(result.trace_id);
  const comparison = await entry.fork.compare(result);
  await forks.saveRerun(entry, {
    result: result.toJSON() as Schemas['ReplayResult'],
    input: result.input,
    comparison: comparison as Schemas['ComparisonResult'],
  });
  const pending = result.pending_interrupt;
  await stream.send({
    type: 'done',
    result: result.toJSON() as Schemas['ReplayResult'],
    comparison: comparison as Schemas['ComparisonResult'],
    status: result.status,
    pending_interrupt: pending ? { reason: pending.reason, context: pending.context } : null,
  });
  stream.end();
}
