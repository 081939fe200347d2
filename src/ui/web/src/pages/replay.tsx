/**
 * `/traces/<id>/replay`: the trace as numbered steps; fork at a step; change the prompt, the input, a tool's response
 * and LLM parameters; rerun (the new spans stream in beside the original as they end); compare side by side with the
 * first diverging step highlighted and both outputs shown; save the fork as a regression test. `?step=<n>` selects a
 * step and `?fork=<id>` reopens a fork of this UI process, so each stage has a URL.
 */
import { useEffect, useMemo, useState } from 'react';
import { readRerunForkEvents } from '../../../../../generated/clients/ui.js';
import { api, asError, type ApiError, type Schemas } from '../api.js';
import { JsonView } from '../components/json-view.js';
import { Empty, ErrorBox, Loading, useLoad } from '../components/states.js';
import { Status } from '../components/status.js';
import { useCan } from '../components/role.js';
import { Link, navigate } from '../router.js';

type Step = Schemas['ReplayStep'];
type Fork = Schemas['ForkState'];
type Done = Schemas['RerunDoneEvent'];

/** The first output value of a step, on one line, at most `max` characters. */
function shortOutput(step: Step, max = 80): string {
  const value = Object.values(step.output)[0];
  if (value === undefined) return '';
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** The recorded input of the agent step at or above the fork: what the input field starts with. */
function recordedInput(steps: Step[]): string {
  const agent = steps.find((s) => s.span_name.startsWith('agent.'));
  const input = agent?.attributes['agent.input'];
  return typeof input === 'string' ? input : '';
}

/** Tool names the trace called: the choices of the tool-response editor. */
function toolNames(steps: Step[]): string[] {
  return [...new Set(steps.filter((s) => s.span_name.startsWith('tool.')).map((s) => s.span_name.slice('tool.'.length)))];
}

export function ReplayPage({ traceId, query }: { traceId: string; query: URLSearchParams }) {
  const [loaded, reload] = useLoad(async () => {
    const { data, error, response } = await api.GET('/api/replay/{trace_id}', { params: { path: { trace_id: traceId } } });
    return data ? { data } : { error: asError(error, response.status) };
  }, traceId);
  const forkId = query.get('fork');
  const selected = Number(query.get('step') ?? 0);
  const url = (params: Record<string, string | number | null>) => {
    const next = new URLSearchParams(query);
    for (const [key, value] of Object.entries(params)) {
      if (value === null) next.delete(key);
      else next.set(key, String(value));
    }
    return `/traces/${traceId}/replay?${next.toString()}`;
  };

  if (loaded.state === 'loading') return <Loading what="the replay steps" />;
  if (loaded.state === 'error') return <ErrorBox error={loaded.error} retry={reload} />;
  const view = loaded.data;
  return (
    <>
      <div className="page-head">
        <h1>
          Replay: {view.name} <Status value={view.status} />
        </h1>
        <div className="actions">
          <Link to={`/traces/${traceId}`} className="button">
            Back to the trace
          </Link>
        </div>
      </div>
      <p className="meta">
        <span className="mono">{traceId}</span> · {view.span_count} steps · a rerun starts from the top of the forked agent; recorded model answers are reused
        while the requests match
      </p>
      {view.trace_ids.length > 1 ? (
        <p className="meta execution-note">
          One execution, <span className="mono">{view.execution_id}</span>, paused for a decision and resumed: its {view.trace_ids.length} traces (
          {view.trace_ids.map((id, i) => (
            <span key={id}>
              {i > 0 ? ', ' : ''}
              <Link to={`/traces/${id}`} className="mono">
                {id.slice(0, 8)}
              </Link>
            </span>
          ))}
          ) read as one sequence.
        </p>
      ) : null}
      {view.steps.length === 0 ? (
        <Empty>This trace has no steps to replay.</Empty>
      ) : (
        <div className="replay">
          <StepList steps={view.steps} notes={view.step_notes} selected={selected} onSelect={(step) => navigate(url({ step }), { replace: true })} />
          {forkId ? (
            <ForkPanel key={forkId} forkId={forkId} steps={view.steps} onClose={() => navigate(url({ fork: null }))} />
          ) : (
            <StepPanel
              step={view.steps[Math.min(Math.max(selected, 0), view.steps.length - 1)]!}
              traceId={traceId}
              onForked={(fork) => navigate(url({ fork: fork.fork_id, step: fork.step }))}
            />
          )}
        </div>
      )}
    </>
  );
}

function StepList({
  steps,
  notes,
  selected,
  onSelect,
  highlight,
}: {
  steps: Step[];
  /** Per step: where the run paused, resumed or had a decision applied ("" for none). */
  notes?: string[];
  selected?: number;
  onSelect?: (step: number) => void;
  highlight?: number | null;
}) {
  return (
    <ol className="steps" aria-label="Steps">
      {steps.map((step) => (
        <li key={step.span_id}>
          <button
            type="button"
            className={`step${step.step === selected ? ' selected' : ''}${step.step === highlight ? ' diverged' : ''}`}
            aria-current={step.step === selected ? 'step' : undefined}
            onClick={() => onSelect?.(step.step)}
            disabled={!onSelect}
          >
            <span className="step-index">{step.step}</span>
            <span className="step-name mono">{step.span_name}</span>
            <span className="step-out">
              {notes?.[step.step] ? <span className="status status-paused step-note">{notes[step.step]}</span> : null} {shortOutput(step)}
            </span>
          </button>
        </li>
      ))}
    </ol>
  );
}

function StepPanel({ step, traceId, onForked }: { step: Step; traceId: string; onForked: (fork: Fork) => void }) {
  const canFork = useCan('admin');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const fork = async () => {
    setBusy(true);
    setError(null);
    const {
      data,
      error: failure,
      response,
    } = await api.POST('/api/replay/{trace_id}/fork', { params: { path: { trace_id: traceId } }, body: { step: step.step } });
    setBusy(false);
    if (data) onForked(data);
    else setError(asError(failure, response.status));
  };
  return (
    <aside className="detail" aria-label="Selected step">
      <h2>
        Step {step.step}: <span className="mono">{step.span_name}</span>
      </h2>
      {canFork ? (
        <div className="buttons">
          <button type="button" className="primary" onClick={() => void fork()} disabled={busy}>
            {busy ? 'Forking…' : `Fork at step ${step.step}`}
          </button>
        </div>
      ) : (
        <p className="muted small">Forking and rerunning need the admin role (a rerun may call live models and tools).</p>
      )}
      {error ? <ErrorBox error={error} /> : null}
      {Object.keys(step.input).length > 0 ? <h3>Input</h3> : null}
      {Object.entries(step.input).map(([key, value]) => (
        <JsonView key={key} label={key} value={value} />
      ))}
      {Object.keys(step.output).length > 0 ? <h3>Output</h3> : null}
      {Object.entries(step.output).map(([key, value]) => (
        <JsonView key={key} label={key} value={value} />
      ))}
    </aside>
  );
}

interface Draft {
  prompt: string;
  input: string;
  model: string;
  temperature: string;
  max_tokens: string;
  top_p: string;
  seed: string;
  tool: string;
  toolResponse: string;
  mode: 'recorded' | 'live';
  allowSideEffects: boolean;
}

/** The PATCH body of a draft: only what was filled in; a parse error names the field. */
function modificationOf(draft: Draft, original: string, current: Schemas['ForkModifications']): { body: Schemas['ForkModification'] } | { error: string } {
  const body: Schemas['ForkModification'] = {};
  if (draft.mode !== current.mode) body.mode = draft.mode;
  if (draft.allowSideEffects !== current.allow_side_effects) body.allow_side_effects = draft.allowSideEffects;
  if (draft.prompt.trim() !== '') body.prompt = draft.prompt;
  if (draft.input !== original) body.input = draft.input;
  const params: Schemas['LlmParams'] = {};
  if (draft.model.trim() !== '') params.model = draft.model.trim();
  for (const key of ['temperature', 'top_p'] as const) {
    if (draft[key].trim() === '') continue;
    const n = Number(draft[key]);
    if (!Number.isFinite(n)) return { error: `${key} must be a number` };
    params[key] = n;
  }
  for (const key of ['max_tokens', 'seed'] as const) {
    if (draft[key].trim() === '') continue;
    const n = Number(draft[key]);
    if (!Number.isInteger(n)) return { error: `${key} must be a whole number` };
    params[key] = n;
  }
  if (Object.keys(params).length > 0) body.llm_params = params;
  if (draft.tool !== '' && draft.toolResponse.trim() !== '') {
    let response: unknown = draft.toolResponse;
    try {
      response = JSON.parse(draft.toolResponse);
    } catch {
      // Not JSON: the tool answers with the text as it is.
    }
    body.tool_response = { tool_name: draft.tool, response };
  }
  return { body };
}

type Run =
  | { state: 'idle' }
  | { state: 'running'; spans: Step[] }
  | { state: 'done'; spans: Step[]; done: Done }
  | { state: 'failed'; spans: Step[]; error: ApiError };

function ForkPanel({ forkId, steps, onClose }: { forkId: string; steps: Step[]; onClose: () => void }) {
  const canEdit = useCan('admin');
  const original = useMemo(() => recordedInput(steps), [steps]);
  const tools = useMemo(() => toolNames(steps), [steps]);
  const [loaded] = useLoad(async () => {
    const { data, error, response } = await api.GET('/api/replay/forks/{fork_id}', { params: { path: { fork_id: forkId } } });
    return data ? { data } : { error: asError(error, response.status) };
  }, forkId);
  const [fork, setFork] = useState<Fork | null>(null);
  const [draft, setDraft] = useState<Draft>({
    prompt: '',
    input: original,
    model: '',
    temperature: '',
    max_tokens: '',
    top_p: '',
    seed: '',
    tool: tools[0] ?? '',
    toolResponse: '',
    mode: 'recorded',
    allowSideEffects: false,
  });
  const [problem, setProblem] = useState<ApiError | null>(null);
  const [run, setRun] = useState<Run>({ state: 'idle' });
  const [saved, setSaved] = useState<Schemas['SavedTest'] | null>(null);

  useEffect(() => {
    if (loaded.state === 'ok') setFork(loaded.data);
  }, [loaded]);

  if (loaded.state === 'loading') return <Loading what="the fork" />;
  if (loaded.state === 'error') {
    return (
      <div>
        <ErrorBox error={loaded.error} />
        <p>
          Forks live in the UI process that made them.{' '}
          <button type="button" onClick={onClose}>
            Back to the steps
          </button>
        </p>
      </div>
    );
  }
  const current = fork ?? loaded.data;
  const field = (key: Exclude<keyof Draft, 'mode' | 'allowSideEffects'>) => ({
    value: draft[key],
    onChange: (event: { target: { value: string } }) => setDraft({ ...draft, [key]: event.target.value }),
  });

  /** Send the draft's changes (if any); false when they were refused. */
  const apply = async (): Promise<boolean> => {
    setProblem(null);
    const made = modificationOf(draft, original, (fork ?? (loaded.state === 'ok' ? loaded.data : null))!.modifications);
    if ('error' in made) {
      setProblem({ detail: made.error, code: 'validation_failed' });
      return false;
    }
    if (Object.keys(made.body).length === 0) return true;
    const { data, error, response } = await api.PATCH('/api/replay/forks/{fork_id}', { params: { path: { fork_id: forkId } }, body: made.body });
    if (!data) {
      setProblem(asError(error, response.status));
      return false;
    }
    setFork(data);
    setDraft({ ...draft, prompt: '', toolResponse: '', model: '', temperature: '', max_tokens: '', top_p: '', seed: '' });
    return true;
  };

  const rerun = async () => {
    if (!(await apply())) return;
    setSaved(null);
    setRun({ state: 'running', spans: [] });
    const { data, error, response } = await api.POST('/api/replay/forks/{fork_id}/rerun', { params: { path: { fork_id: forkId } }, parseAs: 'stream' });
    if (!data) {
      setRun({ state: 'failed', spans: [], error: asError(error, response.status) });
      return;
    }
    const spans: Step[] = [];
    try {
      for await (const event of readRerunForkEvents(data)) {
        if (event.type === 'span') {
          spans.push(event.step);
          setRun({ state: 'running', spans: [...spans] });
        } else if (event.type === 'done') {
          setRun({ state: 'done', spans, done: event });
          const refreshed = await api.GET('/api/replay/forks/{fork_id}', { params: { path: { fork_id: forkId } } });
          if (refreshed.data) setFork(refreshed.data);
        } else {
          setRun({ state: 'failed', spans, error: { detail: event.detail, code: event.code } });
        }
      }
    } catch (failure) {
      setRun({ state: 'failed', spans, error: { detail: failure instanceof Error ? failure.message : String(failure), code: 'network_error' } });
    }
  };

  const save = async () => {
    setProblem(null);
    const { data, error, response } = await api.POST('/api/replay/forks/{fork_id}/save-as-test', { params: { path: { fork_id: forkId } }, body: {} });
    if (data) setSaved(data);
    else setProblem(asError(error, response.status));
  };

  const mods = current.modifications;
  return (
    <section className="fork" aria-label="Fork">
      <div className="fork-head">
        <h2>
          Fork at step {current.step} <span className="muted mono small">{forkId}</span>
        </h2>
        <button type="button" className="link-button" onClick={onClose}>
          close fork
        </button>
      </div>
      <form
        className="fork-form"
        onSubmit={(event) => {
          event.preventDefault();
          void rerun();
        }}
      >
        <label>
          <span>
            System prompt <span className="muted small">{mods.prompt === null ? '(the recorded one unless filled in)' : `(changed to: ${mods.prompt})`}</span>
          </span>
          <textarea rows={3} placeholder={mods.prompt ?? 'Leave empty to keep the recorded prompt'} {...field('prompt')} />
        </label>
        <label>
          Input
          <textarea rows={2} {...field('input')} />
        </label>
        <fieldset>
          <legend>LLM parameters {mods.llm_params ? <span className="muted small mono">{JSON.stringify(mods.llm_params)}</span> : null}</legend>
          <div className="params">
            <label>
              model
              <input {...field('model')} placeholder="recorded" />
            </label>
            <label>
              temperature
              <input inputMode="decimal" {...field('temperature')} />
            </label>
            <label>
              max_tokens
              <input inputMode="numeric" {...field('max_tokens')} />
            </label>
            <label>
              top_p
              <input inputMode="decimal" {...field('top_p')} />
            </label>
            <label>
              seed
              <input inputMode="numeric" {...field('seed')} />
            </label>
          </div>
        </fieldset>
        <fieldset>
          <legend>Tool response</legend>
          {tools.length === 0 ? (
            <p className="muted small">The trace called no tool.</p>
          ) : (
            <div className="params">
              <label>
                tool
                <select {...field('tool')}>
                  {tools.map((name) => (
                    <option key={name}>{name}</option>
                  ))}
                </select>
              </label>
              <label className="grow">
                response (JSON or text)
                <input {...field('toolResponse')} placeholder='e.g. {"degrees": -3}' />
              </label>
            </div>
          )}
          {mods.tool_responses.map((t) => (
            <p key={t.tool_name} className="small">
              <span className="mono">{t.tool_name}</span> answers <span className="mono">{JSON.stringify(t.response)}</span>
            </p>
          ))}
        </fieldset>
        <fieldset>
          <legend>Determinism</legend>
          <div className="params">
            <label>
              model answers
              <select value={draft.mode} onChange={(event) => setDraft({ ...draft, mode: event.target.value as Draft['mode'] })}>
                <option value="recorded">recorded</option>
                <option value="live">live</option>
              </select>
            </label>
            <label className="check">
              <input type="checkbox" checked={draft.allowSideEffects} onChange={(event) => setDraft({ ...draft, allowSideEffects: event.target.checked })} />
              allow side effects (run idempotent and side_effecting tools for real)
            </label>
          </div>
        </fieldset>
        {canEdit ? null : <p className="muted small">Changing, rerunning and saving a fork need the admin role.</p>}
        <div className="buttons" hidden={!canEdit}>
          <button type="button" onClick={() => void apply()}>
            Save changes
          </button>
          <button type="submit" className="primary" disabled={run.state === 'running'}>
            {run.state === 'running' ? 'Rerunning…' : 'Rerun'}
          </button>
          <button type="button" onClick={() => void save()} disabled={run.state !== 'done' && current.rerun === null}>
            Save as test
          </button>
        </div>
        <p className="muted small">
          {mods.prompt !== null || mods.input !== null || mods.llm_params !== null || draft.prompt.trim() !== '' || draft.input !== original
            ? 'With these changes the rerun calls the registered agent’s model live from the first request that differs from the trace. '
            : 'Unchanged, the rerun answers every model call from the trace. '}
          {draft.allowSideEffects
            ? 'All tools run for real; a tool that asks for a decision is answered with the recorded one in recorded mode, and pauses the rerun in live mode.'
            : 'Read-only tools run; side-effecting tools are answered from the trace or by a tool response set here, never run.'}
        </p>
        {problem ? <ErrorBox error={problem} /> : null}
        {saved ? (
          <div className="notice notice-ok saved" role="status">
            <div>
              Saved as a regression test to <code>{saved.path}</code>
            </div>
            <pre>{JSON.stringify(saved.record, null, 2)}</pre>
          </div>
        ) : null}
      </form>
      <RerunView run={run} original={steps} />
    </section>
  );
}

function RerunView({ run, original }: { run: Run; original: Step[] }) {
  if (run.state === 'idle') return null;
  if (run.state === 'running' || run.state === 'failed') {
    return (
      <div className="rerun" aria-live="polite">
        <h3>
          Rerun {run.state === 'running' ? <span className="status status-running">running</span> : <span className="status status-failed">failed</span>} ·{' '}
          {run.spans.length} spans so far
        </h3>
        {run.state === 'failed' ? <ErrorBox error={run.error} /> : null}
        <StepList steps={run.spans} />
      </div>
    );
  }
  const { comparison, result, pending_interrupt: pending } = run.done;
  const at = comparison.diverged_at;
  const before = at === null ? undefined : comparison.original_steps[at];
  const after = at === null ? undefined : comparison.new_steps?.[at];
  return (
    <div className="rerun" aria-live="polite">
      <h3>
        Rerun {run.done.status === 'paused' ? <span className="status status-paused">paused</span> : <span className="status status-ok">done</span>} ·{' '}
        {result.steps_executed} steps ·{' '}
        {at === null ? <span className="status status-ok">identical</span> : <span className="status status-paused">diverged at step {at}</span>}
        {result.trace_id ? (
          <>
            {' '}
            ·{' '}
            <Link to={`/traces/${result.trace_id}`} className="mono">
              new trace
            </Link>
          </>
        ) : null}
      </h3>
      {pending ? (
        <div className="notice notice-warn rerun-paused" role="status">
          <div>
            The rerun paused for a decision: <span className="mono">{pending.reason}</span> <span className="mono">{JSON.stringify(pending.context)}</span>. It
            waits in Approvals like any paused run.
          </div>
        </div>
      ) : null}
      <div className="compare">
        <div>
          <h4>Original ({comparison.original_steps.length === original.length ? 'whole trace' : 'the agent\u2019s steps'})</h4>
          <StepList steps={comparison.original_steps} highlight={at} />
        </div>
        <div>
          <h4>Rerun</h4>
          <StepList steps={comparison.new_steps ?? run.spans} highlight={at} />
        </div>
      </div>
      {before || after ? (
        <div className="compare">
          <div>
            <h4>Step {at} before</h4>
            <JsonView value={before?.output ?? null} />
          </div>
          <div>
            <h4>Step {at} after</h4>
            <JsonView value={after?.output ?? null} />
          </div>
        </div>
      ) : null}
      <div className="compare">
        <div>
          <h4>Original output</h4>
          <JsonView value={result.original_output} />
        </div>
        <div>
          <h4>New output</h4>
          <JsonView value={result.new_output} />
        </div>
      </div>
    </div>
  );
}
