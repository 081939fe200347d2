/**
 * `/executions`: executions with where each stands for recovery (ADR 0050): running, orphaned (no live process runs
 * it; a sweep continues it, or a person resumes an old one), needs_attention (parked: crashed inside a side-effecting
 * tool), paused, failed, completed; then the latest recovery actions: which process recovered what, when, and which
 * attempt. The state filter lives in the query string (`?state=orphaned`).
 */
import { api, asError, type Schemas } from '../api.js';
import { Empty, ErrorBox, Loading, useLoad } from '../components/states.js';
import { Status } from '../components/status.js';
import { Time } from '../components/time.js';
import { shortId } from '../format.js';
import { Link, navigate } from '../router.js';

const STATES: Array<Schemas['RecoveryState']> = ['running', 'orphaned', 'needs_attention', 'paused', 'failed', 'completed'];

export function ExecutionsPage({ query }: { query: URLSearchParams }) {
  const state = query.get('state') ?? '';
  const [loaded, reload] = useLoad(async () => {
    const { data, error, response } = await api.GET('/api/executions', {
      params: { query: state ? { state: state as Schemas['RecoveryState'] } : {} },
    });
    return data ? { data } : { error: asError(error, response.status) };
  }, state);
  return (
    <>
      <h1>Executions</h1>
      <form className="filters" onSubmit={(event) => event.preventDefault()}>
        <select
          aria-label="State"
          value={state}
          onChange={(event) => navigate(`/executions${event.target.value ? `?state=${event.target.value}` : ''}`, { replace: true })}
        >
          <option value="">any state</option>
          {STATES.map((s) => (
            <option key={s} value={s}>
              {s.replace('_', ' ')}
            </option>
          ))}
        </select>
        <button type="button" onClick={reload}>
          Refresh
        </button>
      </form>
      {loaded.state === 'loading' ? <Loading what="executions" /> : null}
      {loaded.state === 'error' ? <ErrorBox error={loaded.error} retry={reload} /> : null}
      {loaded.state === 'ok' ? <ExecutionTables list={loaded.data} state={state} /> : null}
    </>
  );
}

function ExecutionTables({ list, state }: { list: Schemas['ExecutionList']; state: string }) {
  return (
    <>
      {list.items.length === 0 ? (
        <Empty>No executions{state ? ` in state ${state.replace('_', ' ')}` : ''} among the latest written.</Empty>
      ) : (
        <table className="table executions">
          <thead>
            <tr>
              <th>Updated</th>
              <th>Execution</th>
              <th>Runner</th>
              <th>State</th>
              <th className="num">Attempts</th>
              <th>Last step</th>
              <th>Last holder</th>
              <th>Why</th>
            </tr>
          </thead>
          <tbody>
            {list.items.map((item) => (
              <tr key={item.execution_id}>
                <td>
                  <Time iso={item.updated_at} />
                </td>
                <td className="mono">
                  <Link to={`/executions/${encodeURIComponent(item.execution_id)}`} title={item.execution_id}>
                    {shortId(item.execution_id)}
                  </Link>
                </td>
                <td>{item.chain_name}</td>
                <td>
                  <Status value={item.state} />
                  {item.state === 'orphaned' && !item.recoverable ? <span className="muted small"> not recoverable</span> : null}
                </td>
                <td className="num">{item.recover_attempts}</td>
                <td className="mono small">{item.last_node_id}</td>
                <td className="mono small" title={item.lease_owner ?? undefined}>
                  {item.state === 'running' || item.state === 'orphaned' ? processOf(item.lease_owner) : ''}
                </td>
                <td className="small">{item.reason ?? ''}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <h2>Recoveries</h2>
      <RecoveryTable recoveries={list.recoveries} />
    </>
  );
}

/** The latest recovery actions: when, which execution, which attempt, what was done, by which process. */
export function RecoveryTable({ recoveries }: { recoveries: Schemas['RecoveryAction'][] }) {
  if (recoveries.length === 0) return <Empty>No recoveries yet: served replicas continue orphaned runs here when one dies or stops.</Empty>;
  return (
    <table className="table recoveries">
      <thead>
        <tr>
          <th>When</th>
          <th>Execution</th>
          <th className="num">Attempt</th>
          <th>Outcome</th>
          <th>Recovered by</th>
          <th>Reason</th>
        </tr>
      </thead>
      <tbody>
        {recoveries.map((r) => (
          <tr key={`${r.execution_id}:${r.attempt}:${r.at}`}>
            <td>
              <Time iso={r.at} />
            </td>
            <td className="mono">
              <Link to={`/executions/${encodeURIComponent(r.execution_id)}`} title={r.execution_id}>
                {shortId(r.execution_id)}
              </Link>
            </td>
            <td className="num">{r.attempt}</td>
            <td>
              <Status value={r.outcome} />
            </td>
            <td className="mono small" title={r.recovered_by}>
              {r.host !== null ? `${r.host} pid ${r.pid}` : r.recovered_by}
            </td>
            <td className="small">{r.reason ?? ''}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** `<host> pid <pid>` of a lease owner id, else the id as it is. */
function processOf(owner: string | null): string {
  if (!owner) return '';
  const parts = owner.split(':');
  return parts.length >= 4 ? `${parts.slice(0, -3).join(':')} pid ${parts.at(-3)}` : owner;
}
