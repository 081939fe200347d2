/**
 * `/executions/<id>`: where the run stands, its checkpoint timeline (node or turn, status, step type, agent path,
 * time), and the state at the selected checkpoint with what changed since the one before. A paused run can be
 * approved or rejected here as in the inbox.
 */
import { useState } from 'react';
import { api, asError, type Schemas } from '../api.js';
import { ContextTable, DecisionButtons, DecisionDialog, type DecisionOutcome } from '../components/decision.js';
import { JsonView } from '../components/json-view.js';
import { ErrorBox, Loading, useLoad } from '../components/states.js';
import { Status } from '../components/status.js';
import { Time } from '../components/time.js';
import { Link } from '../router.js';
import { Conflicts } from '../components/conflicts.js';

type Checkpoint = Schemas['Checkpoint'];

/** Keys added, changed and removed between two state snapshots. */
function stateDiff(
  before: Record<string, unknown> | undefined,
  after: Record<string, unknown>,
): Array<{ key: string; change: 'added' | 'changed' | 'removed'; value: unknown }> {
  const out: Array<{ key: string; change: 'added' | 'changed' | 'removed'; value: unknown }> = [];
  const previous = before ?? {};
  for (const [key, value] of Object.entries(after)) {
    if (!(key in previous)) out.push({ key, change: 'added', value });
    else if (JSON.stringify(previous[key]) !== JSON.stringify(value)) out.push({ key, change: 'changed', value });
  }
  for (const key of Object.keys(previous)) if (!(key in after)) out.push({ key, change: 'removed', value: previous[key] });
  return out;
}

export function ExecutionPage({ executionId }: { executionId: string }) {
  const [loaded, reload] = useLoad(async () => {
    const { data, error, response } = await api.GET('/api/executions/{execution_id}', { params: { path: { execution_id: executionId } } });
    return data ? { data } : { error: asError(error, response.status) };
  }, executionId);
  const [selected, setSelected] = useState<number | null>(null);
  const [deciding, setDeciding] = useState<boolean | null>(null);
  const [notice, setNotice] = useState<string | null>(null);

  if (loaded.state === 'loading') return <Loading what="the execution" />;
  if (loaded.state === 'error') return <ErrorBox error={loaded.error} retry={reload} />;
  const e = loaded.data;
  const index = selected ?? e.checkpoints.length - 1;
  const current: Checkpoint | undefined = e.checkpoints[index];
  const diff = current ? stateDiff(e.checkpoints[index - 1]?.state_snapshot, current.state_snapshot) : [];

  function outcome(result: DecisionOutcome) {
    setDeciding(null);
    if (result.kind === 'done') setNotice(`Resumed: the run is now ${result.result.result.status}.`);
    else if (result.kind === 'conflict') setNotice(`Already handled by someone else: ${result.detail}`);
    else setNotice(result.detail);
    setSelected(null);
    reload();
  }

  return (
    <>
      <div className="page-head">
        <h1>
          Execution <span className="mono">{e.execution_id}</span> <Status value={e.state} />
        </h1>
        <div className="actions">
          <Link className="button" to={`/traces?q=${encodeURIComponent(e.execution_id)}&last_hours=720`}>
            Traces of this run
          </Link>
        </div>
      </div>
      <p className="meta">
        {e.chain_name} · {e.checkpoint_count} checkpoints
        {e.agent_path ? (
          <>
            {' '}
            · <span className="mono">{e.agent_path}</span>
          </>
        ) : null}
      </p>
      <ExecutionTraces checkpoints={e.checkpoints} />
      {e.conflicts.length > 0 ? <Conflicts conflicts={e.conflicts} /> : null}
      {notice ? (
        <div className="notice notice-warn" role="status">
          {notice}
        </div>
      ) : null}
      {e.pending_interrupt ? (
        <section className="pause" aria-label="Waiting for a decision">
          <h2>Waiting for a decision: {e.pending_interrupt.reason}</h2>
          <ContextTable context={e.pending_interrupt.context} />
          <DecisionButtons runner={e.runner} runnerRegistered={e.runner_registered} onDecide={(approved) => setDeciding(approved)} />
        </section>
      ) : null}
      <Decisions checkpoints={e.checkpoints} />
      <div className="split">
        <ol className="timeline" aria-label="Checkpoints">
          {e.checkpoints.map((c, i) => (
            <li key={c.checkpoint_id}>
              <button
                type="button"
                className={`tl-row${i === index ? ' selected' : ''}${bookkeeping(c.step_type) ? ' tl-bookkeeping' : ''}`}
                aria-current={i === index ? 'step' : undefined}
                onClick={() => setSelected(i)}
              >
                <span className="tl-index">{i}</span>
                <span className={bookkeeping(c.step_type) ? 'tl-node' : 'mono tl-node'}>{bookkeeping(c.step_type) ?? c.node_id}</span>
                <Status value={c.step_type === 'run_end' ? (c.run_status ?? 'completed') : c.status} />
                <span className="muted small">{c.step_type ?? '-'}</span>
                <span className="muted small mono">{c.agent_path ?? ''}</span>
                <Time iso={c.created_at} />
              </button>
            </li>
          ))}
        </ol>
        {current ? (
          <aside className="detail" aria-label="Selected checkpoint">
            <h2>
              #{index} <span className="mono">{current.node_id}</span>
            </h2>
            <p className="meta mono small">{current.checkpoint_id}</p>
            {current.interrupt_reason ? (
              <p>
                Paused: <strong>{current.interrupt_reason}</strong>
              </p>
            ) : null}
            <h3>{index === 0 ? 'State after the first checkpoint' : `Changed since #${index - 1}`}</h3>
            {diff.length === 0 ? (
              <p className="muted">No change to the state.</p>
            ) : (
              <table className="kv">
                <tbody>
                  {diff.map((d) => (
                    <tr key={d.key} className={`diff-${d.change}`}>
                      <th className="mono">
                        {d.change === 'added' ? '+ ' : d.change === 'removed' ? '− ' : '~ '}
                        {d.key}
                      </th>
                      <td className="mono">{JSON.stringify(d.value)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
            <JsonView label="state" value={current.state_snapshot} />
            {current.node_output !== null && current.node_output !== undefined ? <JsonView label="node output" value={current.node_output} /> : null}
          </aside>
        ) : null}
      </div>
      {deciding !== null && e.pending_interrupt ? (
        <DecisionDialog pending={e.pending_interrupt} approved={deciding} onClose={() => setDeciding(null)} onOutcome={outcome} />
      ) : null}
    </>
  );
}

/**
 * The trace of each run and resume of this execution (the first row each wrote under its trace carries its id,
 * docs/adr/0015), oldest first, each a link to its waterfall.
 */
function ExecutionTraces({ checkpoints }: { checkpoints: Checkpoint[] }) {
  const ids: string[] = [];
  for (const c of checkpoints) if (c.trace_id && !ids.includes(c.trace_id)) ids.push(c.trace_id);
  if (ids.length === 0) return null;
  return (
    <section className="meta" aria-label="Runs and resumes">
      {ids.length === 1 ? 'Its trace: ' : 'Its traces (a run, then each resume): '}
      {ids.map((id, i) => (
        <span key={id}>
          {i > 0 ? ' · ' : null}
          <Link to={`/traces/${id}`} className="mono" title={id}>
            {id.slice(0, 12)}
          </Link>
        </span>
      ))}
    </section>
  );
}

/** A decision row's record (`node_output` of a `resume` row), as far as it says who decided. */
interface DecisionRecord {
  approved: boolean;
  principal: string | null;
  surface: string | null;
  decidedAt: string;
  reason: string | null;
}

function decisionRecord(c: Checkpoint): DecisionRecord | null {
  if (c.step_type !== 'resume' || !c.node_output || typeof c.node_output !== 'object') return null;
  const out = c.node_output as Record<string, unknown>;
  const resume = out.resume as { approved?: unknown } | undefined;
  const by = out.decided_by as { principal?: unknown; surface?: unknown } | undefined;
  return {
    approved: resume?.approved === true,
    principal: typeof by?.principal === 'string' ? by.principal : null,
    surface: typeof by?.surface === 'string' ? by.surface : null,
    decidedAt: typeof out.decided_at === 'string' ? out.decided_at : c.created_at,
    reason: typeof out.reason === 'string' ? out.reason : null,
  };
}

/** Every decision taken on this execution's pauses: who, through which surface, when and why. */
function Decisions({ checkpoints }: { checkpoints: Checkpoint[] }) {
  const decisions = checkpoints.flatMap((c) => {
    const record = decisionRecord(c);
    return record ? [{ c, record }] : [];
  });
  if (decisions.length === 0) return null;
  return (
    <section className="decisions" aria-label="Decisions">
      <h2>Decisions</h2>
      <ul>
        {decisions.map(({ c, record }) => (
          <li key={c.checkpoint_id}>
            <Status value={record.approved ? 'approved' : 'rejected'} /> <strong>{c.interrupt_reason ?? c.node_id}</strong>
            {record.principal ? (
              <>
                {' '}
                by <strong>{record.principal}</strong> ({record.surface})
              </>
            ) : null}{' '}
            · <Time iso={record.decidedAt} />
            {record.reason ? <span className="muted"> · “{record.reason}”</span> : null}
          </li>
        ))}
      </ul>
    </section>
  );
}

/**
 * Rows the durability layer writes for its own bookkeeping (exactly-once start and decision rows): shown dimmed and
 * labelled instead of by their internal node ids. `undefined` for a real step.
 */
function bookkeeping(stepType: string | null | undefined): string | undefined {
  if (stepType === 'run_start') return 'run started';
  if (stepType === 'resume') return 'decision applied';
  return undefined;
}
