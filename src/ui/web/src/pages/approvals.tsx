/** `/approvals`: the inbox of paused runs, newest first; approve or reject each with a confirmation. */
import { useState } from 'react';
import { api, asError, type Schemas } from '../api.js';
import { ContextTable, DecisionButtons, DecisionDialog, type DecisionOutcome } from '../components/decision.js';
import { Empty, ErrorBox, Loading, useLoad } from '../components/states.js';
import { Time } from '../components/time.js';
import { Link } from '../router.js';
import { Conflicts } from '../components/conflicts.js';

export function ApprovalsPage() {
  const [loaded, reload] = useLoad(async () => {
    const { data, error, response } = await api.GET('/api/pending-interrupts', { params: { query: { limit: 500 } } });
    return data ? { data } : { error: asError(error, response.status) };
  }, 'pending');
  const [deciding, setDeciding] = useState<{ pending: Schemas['PendingInterrupt']; approved: boolean } | null>(null);
  const [notice, setNotice] = useState<{ tone: 'ok' | 'warn' | 'error'; text: React.ReactNode } | null>(null);

  function outcome(pending: Schemas['PendingInterrupt'], result: DecisionOutcome) {
    setDeciding(null);
    if (result.kind === 'done') {
      setNotice({
        tone: 'ok',
        text: (
          <>
            Resumed{' '}
            <Link to={`/executions/${pending.execution_id}`} className="mono">
              {pending.execution_id}
            </Link>
            : the run is now <strong>{result.result.result.status}</strong>.
          </>
        ),
      });
    } else if (result.kind === 'conflict') {
      setNotice({ tone: 'warn', text: <>Already handled by someone else: {result.detail} The list was refreshed.</> });
    } else {
      setNotice({ tone: 'error', text: result.detail });
    }
    reload();
  }

  return (
    <>
      <div className="page-head">
        <h1>Approvals</h1>
        <div className="actions">
          <Link className="button" to="/approvals/history">
            History
          </Link>
        </div>
      </div>
      {notice ? (
        <div className={`notice notice-${notice.tone}`} role="status">
          {notice.text}
          <button type="button" className="link-button" onClick={() => setNotice(null)} aria-label="Dismiss">
            ✕
          </button>
        </div>
      ) : null}
      {loaded.state === 'ok' && loaded.data.conflicts.length > 0 ? <Conflicts conflicts={loaded.data.conflicts} /> : null}
      {loaded.state === 'loading' ? <Loading what="pending approvals" /> : null}
      {loaded.state === 'error' ? <ErrorBox error={loaded.error} retry={reload} /> : null}
      {loaded.state === 'ok' && loaded.data.count === 0 ? <Empty>Nothing waits for a decision. Runs that call interrupt() appear here.</Empty> : null}
      {loaded.state === 'ok' && loaded.data.count > 0 ? (
        <table className="table approvals">
          <thead>
            <tr>
              <th>Paused</th>
              <th>Runner</th>
              <th>Reason</th>
              <th>Context</th>
              <th>Where</th>
              <th>Decision</th>
            </tr>
          </thead>
          <tbody>
            {loaded.data.items.map((p) => (
              <tr key={p.execution_id} data-execution={p.execution_id}>
                <td>
                  <Time iso={p.created_at} />
                  <div>
                    <Link to={`/executions/${p.execution_id}`} className="mono small">
                      {p.execution_id.slice(0, 8)}
                    </Link>
                  </div>
                </td>
                <td>{p.chain_name}</td>
                <td>
                  <strong>{p.reason}</strong>
                </td>
                <td>
                  <ContextTable context={p.context} />
                </td>
                <td className="mono small">
                  {p.node_id}
                  {p.agent_path ? <div className="muted">{p.agent_path}</div> : null}
                </td>
                <td>
                  <DecisionButtons runner={p.runner} runnerRegistered={p.runner_registered} onDecide={(approved) => setDeciding({ pending: p, approved })} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {deciding ? (
        <DecisionDialog
          pending={deciding.pending}
          approved={deciding.approved}
          onClose={() => setDeciding(null)}
          onOutcome={(r) => outcome(deciding.pending, r)}
        />
      ) : null}
    </>
  );
}
