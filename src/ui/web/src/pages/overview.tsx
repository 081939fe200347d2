/** Home: what needs attention (pending approvals, failed executions, failing traces) and the latest traces. */
import { api, asError } from '../api.js';
import { ErrorBox, Loading, Empty, useLoad } from '../components/states.js';
import { Status } from '../components/status.js';
import { Time } from '../components/time.js';
import { duration, shortId } from '../format.js';
import { Link } from '../router.js';

export function OverviewPage() {
  const [loaded, reload] = useLoad(async () => {
    const { data, error, response } = await api.GET('/api/overview');
    return data ? { data } : { error: asError(error, response.status) };
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
    </>
  );
}
