/**
 * Eval runs from the eval store: `/evals` (runs newest first with gate outcome and pass rates; pick two to compare),
 * `/evals/<run_id>` (the scorecard, the gate's checks, every case with per-scorer verdicts and a link to its trace),
 * `/evals/compare?baseline=&candidate=` (metric deltas, regressed and improved cases, the regression verdict, as
 * `agentkit eval compare` prints them). Filters and the compared pair live in the query string.
 */
import { useState } from 'react';
import { api, asError, type Schemas } from '../api.js';
import { Empty, ErrorBox, Loading, useLoad } from '../components/states.js';
import { Status } from '../components/status.js';
import { Time } from '../components/time.js';
import { duration, shortId } from '../format.js';
import { Link, navigate } from '../router.js';

type Run = Schemas['UiEvalRun'];

const percent = (rate: number) => `${(rate * 100).toFixed(1)}%`;
const signed = (delta: number) => `${delta > 0 ? '+' : delta < 0 ? '−' : '±'}${(Math.abs(delta) * 100).toFixed(1)} pt`;

/** A case input on one line: text as is, content parts and objects as JSON; cut to `max` characters. */
function inputText(input: Schemas['UiEvalCase']['input'], max = 120): string {
  const text = typeof input === 'string' ? input : JSON.stringify(input);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function RunLabel({ run }: { run: Pick<Run, 'run_id' | 'run_name'> }) {
  return <Link to={`/evals/${run.run_id}`}>{run.run_name ?? <span className="mono">{shortId(run.run_id)}</span>}</Link>;
}

export function EvalsPage({ query }: { query: URLSearchParams }) {
  const runName = query.get('run_name') ?? '';
  const [loaded, reload] = useLoad(async () => {
    const { data, error, response } = await api.GET('/api/eval-runs', { params: { query: runName ? { run_name: runName } : {} } });
    return data ? { data } : { error: asError(error, response.status) };
  }, runName);
  const [pair, setPair] = useState<{ baseline: string; candidate: string } | null>(null);
  const [filter, setFilter] = useState(runName);

  if (loaded.state === 'loading') return <Loading what="the eval runs" />;
  if (loaded.state === 'error') return <ErrorBox error={loaded.error} retry={reload} />;
  const runs = loaded.data.items;
  const chosen = pair ?? { baseline: runs[1]?.run_id ?? '', candidate: runs[0]?.run_id ?? '' };
  return (
    <>
      <h1>Eval runs</h1>
      <form
        className="filters"
        onSubmit={(event) => {
          event.preventDefault();
          navigate(filter ? `/evals?run_name=${encodeURIComponent(filter)}` : '/evals');
        }}
      >
        <input
          type="search"
          data-search
          aria-label="Run name"
          placeholder="Run name (exact)"
          value={filter}
          onChange={(event) => setFilter(event.target.value)}
        />
        <button type="submit">Filter</button>
      </form>
      {runs.length === 0 ? (
        <Empty>
          No eval runs{runName ? ` named ${runName}` : ''} yet. Run <code>agentkit eval run --agent &lt;file&gt;:&lt;agent&gt; --dataset cases.jsonl</code> and
          the run appears here.
        </Empty>
      ) : (
        <>
          {runs.length >= 2 ? (
            <form
              className="filters compare-pick"
              aria-label="Compare two runs"
              onSubmit={(event) => {
                event.preventDefault();
                navigate(`/evals/compare?baseline=${encodeURIComponent(chosen.baseline)}&candidate=${encodeURIComponent(chosen.candidate)}`);
              }}
            >
              <label>
                Baseline{' '}
                <select value={chosen.baseline} onChange={(event) => setPair({ ...chosen, baseline: event.target.value })}>
                  {runs.map((run) => (
                    <option key={run.run_id} value={run.run_id}>
                      {run.run_name ?? shortId(run.run_id)} · {run.started_at.slice(0, 16).replace('T', ' ')}
                    </option>
                  ))}
                </select>
              </label>
              <label>
                Candidate{' '}
                <select value={chosen.candidate} onChange={(event) => setPair({ ...chosen, candidate: event.target.value })}>
                  {runs.map((run) => (
                    <option key={run.run_id} value={run.run_id}>
                      {run.run_name ?? shortId(run.run_id)} · {run.started_at.slice(0, 16).replace('T', ' ')}
                    </option>
                  ))}
                </select>
              </label>
              <button type="submit" className="primary">
                Compare
              </button>
            </form>
          ) : null}
          <div className="scroll-x">
            <table className="table evals">
              <thead>
                <tr>
                  <th>Started</th>
                  <th>Run</th>
                  <th>Dataset</th>
                  <th>Agent</th>
                  <th>Gate</th>
                  <th>Pass rate</th>
                  <th className="num">Duration</th>
                  <th>Git</th>
                </tr>
              </thead>
              <tbody>
                {runs.map((run) => (
                  <tr key={run.run_id} data-run={run.run_id}>
                    <td>
                      <Time iso={run.started_at} />
                    </td>
                    <td>
                      <RunLabel run={run} />
                    </td>
                    <td>{run.dataset_name}</td>
                    <td className="mono">{run.agent_name}</td>
                    <td>{run.gate ? <Status value={run.gate.outcome} /> : <span className="muted">none</span>}</td>
                    <td className="mono small">
                      {run.scorecard.metrics.map((m) => (
                        <div key={m.name}>
                          {m.name} {percent(m.pass_rate)}
                        </div>
                      ))}
                    </td>
                    <td className="num">{duration(Date.parse(run.finished_at) - Date.parse(run.started_at))}</td>
                    <td className="mono small">{run.git_sha ? `${run.git_sha.slice(0, 8)}${run.git_branch ? ` (${run.git_branch})` : ''}` : '-'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
    </>
  );
}

export function EvalRunPage({ runId }: { runId: string }) {
  const [loaded, reload] = useLoad(async () => {
    const { data, error, response } = await api.GET('/api/eval-runs/{run_id}', { params: { path: { run_id: runId } } });
    return data ? { data } : { error: asError(error, response.status) };
  }, runId);
  if (loaded.state === 'loading') return <Loading what="the eval run" />;
  if (loaded.state === 'error') return <ErrorBox error={loaded.error} retry={reload} />;
  const run = loaded.data;
  return (
    <>
      <h1>
        {run.run_name ?? 'Eval run'} {run.gate ? <Status value={run.gate.outcome} /> : null}
      </h1>
      <p className="meta">
        <span className="mono">{run.run_id}</span> · dataset {run.dataset_name} · agent <span className="mono">{run.agent_name}</span> ·{' '}
        <Time iso={run.started_at} /> · {duration(Date.parse(run.finished_at) - Date.parse(run.started_at))} · {run.cases.length} cases
        {run.git_sha ? (
          <>
            {' '}
            · git <span className="mono">{run.git_sha.slice(0, 8)}</span>
            {run.git_branch ? ` (${run.git_branch})` : ''}
          </>
        ) : null}
      </p>
      <dl className="counts">
        {run.scorecard.metrics.map((m) => (
          <div key={m.name}>
            <dt className="mono">{m.name}</dt>
            <dd>
              {percent(m.pass_rate)}{' '}
              <span className="muted small">
                avg {m.avg_score.toFixed(2)} · n={m.n}
              </span>
            </dd>
          </div>
        ))}
        {run.gate ? (
          <div>
            <dt>Errored</dt>
            <dd className={run.gate.errored > 0 ? 'bad' : ''}>{run.gate.errored}</dd>
          </div>
        ) : null}
      </dl>
      {run.gate && run.gate.checks.length > 0 ? (
        <ul className="checks">
          {run.gate.checks.map((check) => (
            <li key={check} className="mono small">
              {check}
            </li>
          ))}
        </ul>
      ) : null}
      <h2>Cases</h2>
      <div className="scroll-x">
        <table className="table cases">
          <thead>
            <tr>
              <th className="num">#</th>
              <th>Input</th>
              <th>Expected</th>
              <th>Output</th>
              <th>Verdicts</th>
              <th className="num">Latency</th>
              <th>Trace</th>
            </tr>
          </thead>
          <tbody>
            {run.cases.map((c) => (
              <tr key={c.case_id} data-case={c.ordinal}>
                <td className="num">{c.ordinal}</td>
                <td>{inputText(c.input)}</td>
                <td>{c.expected_output ?? <span className="muted">-</span>}</td>
                <td>
                  {c.error ? (
                    <span className="status status-failed" title={c.error}>
                      error: {c.error}
                    </span>
                  ) : (
                    c.actual_output
                  )}
                </td>
                <td>
                  {Object.entries(c.per_scorer).map(([name, verdict]) => (
                    <div key={name} title={verdict.reason ?? undefined}>
                      <Status value={verdict.passed ? 'passed' : 'failed'} /> <span className="mono small">{name}</span>{' '}
                      <span className="muted small">{verdict.score.toFixed(2)}</span>
                    </div>
                  ))}
                </td>
                <td className="num">{duration(c.latency_ms)}</td>
                <td>
                  {c.trace_id ? (
                    <Link to={`/traces/${c.trace_id}`} className="mono">
                      {shortId(c.trace_id)}
                    </Link>
                  ) : (
                    <span className="muted">-</span>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}

export function EvalComparePage({ query }: { query: URLSearchParams }) {
  const baseline = query.get('baseline') ?? '';
  const candidate = query.get('candidate') ?? '';
  const [loaded, reload] = useLoad(async () => {
    if (!baseline || !candidate) return { error: { detail: 'pick a baseline and a candidate run on the eval runs page', code: 'validation_failed' } };
    const { data, error, response } = await api.GET('/api/eval-compare', { params: { query: { baseline, candidate } } });
    return data ? { data } : { error: asError(error, response.status) };
  }, `${baseline}|${candidate}`);
  if (loaded.state === 'loading') return <Loading what="the comparison" />;
  if (loaded.state === 'error') return <ErrorBox error={loaded.error} retry={reload} />;
  const c = loaded.data;
  const flipped = (title: string, rows: Schemas['FlippedCase'][], kind: 'failed' | 'ok') => (
    <>
      <h2>
        {title} ({rows.length})
      </h2>
      {rows.length === 0 ? (
        <Empty>No case {kind === 'failed' ? 'went from pass to fail' : 'went from fail to pass'}.</Empty>
      ) : (
        <table className={`table flipped-${kind}`}>
          <thead>
            <tr>
              <th className="num">#</th>
              <th>Input</th>
              <th>Scorers</th>
              <th>Traces</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={`${row.baseline_ordinal}-${row.candidate_ordinal}`}>
                <td className="num">{row.baseline_ordinal}</td>
                <td>{row.input}</td>
                <td className="mono small">{row.scorers.join(', ')}</td>
                <td className="small">
                  {row.baseline_trace_id ? <Link to={`/traces/${row.baseline_trace_id}`}>baseline</Link> : null}{' '}
                  {row.candidate_trace_id ? <Link to={`/traces/${row.candidate_trace_id}`}>candidate</Link> : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
  return (
    <>
      <h1>Compare eval runs {c.regression ? <Status value="regressed" /> : <Status value="no regression" />}</h1>
      <p className="meta">
        Baseline{' '}
        <Link to={`/evals/${c.baseline_run_id}`} className="mono">
          {shortId(c.baseline_run_id)}
        </Link>{' '}
        · candidate{' '}
        <Link to={`/evals/${c.candidate_run_id}`} className="mono">
          {shortId(c.candidate_run_id)}
        </Link>{' '}
        · {c.compared} pairs compared, {c.excluded_errored} left out with an errored side · unmatched {c.unmatched.baseline} baseline, {c.unmatched.candidate}{' '}
        candidate · tolerance {c.tolerance}
      </p>
      <dl className="counts">
        <div>
          <dt>Overall pass rate</dt>
          <dd className={c.regression ? 'bad' : ''}>
            {percent(c.overall.baseline)} → {percent(c.overall.candidate)} <span className="small">{signed(c.overall.delta)}</span>
          </dd>
        </div>
        <div>
          <dt>95% interval of the delta</dt>
          <dd className="small">
            {c.delta_ci95 ? `${signed(c.delta_ci95[0]!)} … ${signed(c.delta_ci95[1]!)}` : 'too few pairs'}{' '}
            {c.significant ? '(significant)' : '(could be noise)'}
          </dd>
        </div>
      </dl>
      <table className="table metrics">
        <thead>
          <tr>
            <th>Metric</th>
            <th className="num">Baseline</th>
            <th className="num">Candidate</th>
            <th className="num">Delta</th>
          </tr>
        </thead>
        <tbody>
          {c.metrics.pass_rate.map((m) => (
            <tr key={`p-${m.name}`}>
              <td className="mono">{m.name}.pass_rate</td>
              <td className="num">{percent(m.baseline)}</td>
              <td className="num">{percent(m.candidate)}</td>
              <td className={`num ${m.delta < 0 ? 'worse' : m.delta > 0 ? 'better' : ''}`}>{signed(m.delta)}</td>
            </tr>
          ))}
          {c.metrics.avg_score.map((m) => (
            <tr key={`a-${m.name}`}>
              <td className="mono">{m.name}.avg_score</td>
              <td className="num">{m.baseline.toFixed(3)}</td>
              <td className="num">{m.candidate.toFixed(3)}</td>
              <td className={`num ${m.delta < 0 ? 'worse' : m.delta > 0 ? 'better' : ''}`}>{m.delta.toFixed(3)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {flipped('Regressed', c.regressed, 'failed')}
      {flipped('Improved', c.improved, 'ok')}
    </>
  );
}
