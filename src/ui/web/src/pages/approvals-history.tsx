/**
 * `/approvals/history`: decisions recorded on paused runs, newest first: who decided (and through which surface),
 * when, the reason typed with it, the value, and a link to the execution. The same records `agentkit inspect` prints.
 */
import { api, asError } from '../api.js';
import { Empty, ErrorBox, Loading, useLoad } from '../components/states.js';
import { Status } from '../components/status.js';
import { Time } from '../components/time.js';
import { Link } from '../router.js';

export function ApprovalsHistoryPage() {
  const [loaded, reload] = useLoad(async () => {
    const { data, error, response } = await api.GET('/api/decisions', { params: { query: { limit: 500 } } });
    return data ? { data } : { error: asError(error, response.status) };
  }, 'decisions');
  return (
    <>
      <div className="page-head">
        <h1>Approvals history</h1>
        <div className="actions">
          <Link className="button" to="/approvals">
            Pending
          </Link>
        </div>
      </div>
      {loaded.state === 'loading' ? <Loading what="decisions" /> : null}
      {loaded.state === 'error' ? <ErrorBox error={loaded.error} retry={reload} /> : null}
      {loaded.state === 'ok' && loaded.data.count === 0 ? <Empty>No decision recorded yet. Approvals and rejections appear here.</Empty> : null}
      {loaded.state === 'ok' && loaded.data.count > 0 ? (
        <table className="table history">
          <thead>
            <tr>
              <th>Decided</th>
              <th>Decision</th>
              <th>Who</th>
              <th>Reason</th>
              <th>Paused for</th>
              <th>Execution</th>
            </tr>
          </thead>
          <tbody>
            {loaded.data.items.map((d) => (
              <tr key={`${d.execution_id}:${d.decided_at}`} data-execution={d.execution_id}>
                <td>
                  <Time iso={d.decided_at} />
                </td>
                <td>
                  <Status value={d.resume.approved ? 'approved' : 'rejected'} />
                </td>
                <td className="who-decided">
                  {d.decided_by ? (
                    <>
                      <strong>{d.decided_by.principal}</strong> <span className="muted small">({d.decided_by.surface})</span>
                    </>
                  ) : (
                    <span className="muted">not recorded</span>
                  )}
                </td>
                <td>{d.reason ?? <span className="muted">none given</span>}</td>
                <td>
                  {d.pause_reason} <span className="muted small mono">{d.node_id}</span>
                </td>
                <td>
                  <Link to={`/executions/${d.execution_id}`} className="mono small">
                    {d.execution_id.slice(0, 8)}
                  </Link>{' '}
                  <span className="muted small">{d.chain_name}</span>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </>
  );
}
