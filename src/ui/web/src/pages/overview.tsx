/**
 * Home: what needs attention (pending approvals, failed, orphaned and parked executions, failing traces), the latest
 * traces, recoveries and eval runs.
 */
import { api, asError } from '../api.js';
import { ErrorBox, Loading, Empty, useLoad } from '../components/states.js';
import { Status } from '../components/status.js';
import { Time } from '../components/time.js';
import { duration, shortId } from '../format.js';
import { Link } from '../router.js';
import { RecoveryTable } from './executions.js';

export function OverviewPage() {
  const [loaded, reload] = useLoad(async () => {
    const [overview, evals] = await Promise.all([api.GET('/api/overview'), api.GET('/api/eval-runs', { params: { query: { limit: 5 } } })]);
    return overview.data ? { data: { ...overview.data, evals: evals.data?.items ?? [] } } : { error: asError(overview.error, overview.response.status) };
  }, 'overview');
  if (loaded.state === 'loading') return <Loading what="the overview" />;
  if (loaded.state === 'error') return <ErrorBox error={loaded.error} retry={reload} />;
  const o = loaded.data;
  return (
    <>
      <h1>Overview</h1>
      <dl className="counts">
        <div>
          <dt>
            <Link to="/approvals">Pending approvals</Link>
          </dt>
          <dd className={o.pending_approvals_count > 0 ? 'attention' : ''}>{o.pending_approvals_count}</dd>
        </div>
        <div>
          <dt title="Executions whose latest checkpoint is failed or interrupted">Failed or interrupted executions</dt>
          <dd>{o.failed_executions_count}</dd>
        </div>
        <div>
          <dt>
            <Link to="/executions?state=orphaned" title="No live process runs them: a served replica's sweep continues them">
              Orphaned executions
            </Link>
          </dt>
          <dd className={o.orphaned_executions_count > 0 ? 'bad' : ''}>{o.orphaned_executions_count}</dd>
        </div>
        <div>
          <dt>
            <Link to="/executions?state=needs_attention" title="Parked by a recovery sweep: crashed inside a side-effecting tool; resume or fail by hand">
              Needs attention
            </Link>
          </dt>
          <dd className={o.needs_attention_count > 0 ? 'attention' : ''}>{o.needs_attention_count}</dd>
        </div>
        <div>
          <dt>
            <Link to="/traces?last_hours=24">Traces, last 24 h</Link>
          </dt>
          <dd>{o.traces_last_24h}</dd>
        </div>
        <div>
          <dt>
            <Link to="/traces?last_hours=24&status=ERROR">Failing traces, last 24 h</Link>
          </dt>
          <dd className={o.failing_traces_last_24h > 0 ? 'bad' : ''}>{o.failing_traces_last_24h}</dd>
        </div>
        <div>
          <dt>
            <Link to="/evals">Eval runs, last 7 d</Link>
          </dt>
          <dd>{o.eval_runs_last_7d}</dd>
        </div>
      </dl>
      <h2>Recent traces</h2>
      {o.recent_traces.length === 0 ? (
        <Empty>
          No traces in the last 24 hours. Run an agent (traces go to <code>./.agentkit/local.db</code>) and they appear here.
        </Empty>
      ) : (
        <table className="table">
          <thead>
            <tr>
              <th>Time</th>
              <th>Name</th>
              <th>Status</th>
              <th className="num">Duration</th>
              <th className="num">Spans</th>
              <th>Trace</th>
            </tr>
          </thead>
          <tbody>
            {o.recent_traces.map((t) => (
              <tr key={t.trace_id}>
                <td>
                  <Time iso={t.start_time} />
                </td>
                <td>
                  <Link to={`/traces/${t.trace_id}`}>{t.name}</Link>
                </td>
                <td>
                  <Status value={t.status} />
                </td>
                <td className="num">{duration(t.duration_ms)}</td>
                <td className="num">{t.span_count}</td>
                <td className="mono">
                  <Link to={`/traces/${t.trace_id}`}>{shortId(t.trace_id)}</Link>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {o.recent_recoveries.length > 0 ? (
        <>
          <h2>
            <Link to="/executions">Recent recoveries</Link>
          </h2>
          <RecoveryTable recoveries={o.recent_recoveries} />
        </>
      ) : null}
      {o.evals.length > 0 ? (
        <>
          <h2>
            <Link to="/evals">Recent eval runs</Link>
          </h2>
          <table className="table recent-evals">
            <thead>
              <tr>
                <th>Started</th>
                <th>Run</th>
                <th>Gate</th>
                <th>Pass rate</th>
              </tr>
            </thead>
            <tbody>
              {o.evals.map((run) => (
                <tr key={run.run_id}>
                  <td>
                    <Time iso={run.started_at} />
                  </td>
                  <td>
                    <Link to={`/evals/${run.run_id}`}>{run.run_name ?? shortId(run.run_id)}</Link>
                  </td>
                  <td>{run.gate ? <Status value={run.gate.outcome} /> : <span className="muted">none</span>}</td>
                  <td className="mono small">{run.scorecard.metrics.map((m) => `${m.name} ${(m.pass_rate * 100).toFixed(1)}%`).join(' · ')}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      ) : null}
    </>
  );
}
