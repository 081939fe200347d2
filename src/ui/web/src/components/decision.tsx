/**
 * Approve or reject a paused run: a confirmation dialog shows what will be sent (the Resume value) and takes a
 * reason; the decision is recorded as the signed-in user (the server decides that, never the page). A 409 means
 * someone else already handled it: said in plain words, and the caller refreshes its rows. The buttons are shown
 * only to approvers and admins, and disabled with the reason where this UI has no runner for the run.
 */
import { useState } from 'react';
import { api, asError, type Schemas } from '../api.js';
import { JsonView } from './json-view.js';
import { useCan, useDecider } from './role.js';

/** Approve and Reject for one paused run: hidden without the approver role, disabled without a registered runner. */
export function DecisionButtons(props: { runner: string; runnerRegistered: boolean; onDecide: (approved: boolean) => void }) {
  const canDecide = useCan('approver');
  if (!canDecide) return <span className="muted small">Approvers decide</span>;
  const why = props.runnerRegistered ? undefined : `No runner registered for ${props.runner}: start the UI with --agent <file>:<attr> naming it.`;
  return (
    <div className="buttons-with-reason">
      <div className="buttons">
        <button type="button" className="primary" disabled={!props.runnerRegistered} title={why} onClick={() => props.onDecide(true)}>
          Approve
        </button>
        <button type="button" className="danger" disabled={!props.runnerRegistered} title={why} onClick={() => props.onDecide(false)}>
          Reject
        </button>
      </div>
      {why ? <p className="muted small no-runner">{why}</p> : null}
    </div>
  );
}

export type DecisionOutcome = { kind: 'done'; result: Schemas['ResumeResponse'] } | { kind: 'conflict'; detail: string } | { kind: 'error'; detail: string };

export function DecisionDialog(props: {
  pending: Schemas['PendingInterrupt'];
  approved: boolean;
  onClose: () => void;
  onOutcome: (outcome: DecisionOutcome) => void;
}) {
  const decider = useDecider();
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const body: Schemas['ResumeRequest'] = { approved: props.approved, metadata: {}, ...(reason.trim() ? { reason: reason.trim() } : {}) };

  async function send() {
    setBusy(true);
    const { data, error, response } = await api.POST('/api/executions/{execution_id}/resume', {
      params: { path: { execution_id: props.pending.execution_id } },
      body,
    });
    setBusy(false);
    if (data) props.onOutcome({ kind: 'done', result: data });
    else if (response.status === 409) props.onOutcome({ kind: 'conflict', detail: asError(error, 409).detail });
    else props.onOutcome({ kind: 'error', detail: asError(error, response.status).detail });
  }

  const verb = props.approved ? 'Approve' : 'Reject';
  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: Escape pressed in any field of the dialog bubbles here and closes it
    <div className="dialog-backdrop" onKeyDown={(event) => event.key === 'Escape' && props.onClose()}>
      <div className="dialog" role="dialog" aria-modal="true" aria-labelledby="decision-title">
        <h2 id="decision-title">
          {verb} “{props.pending.reason}”?
        </h2>
        <p className="muted">
          Resumes <span className="mono">{props.pending.execution_id}</span> ({props.pending.chain_name}, node{' '}
          <span className="mono">{props.pending.node_id}</span>) with this decision. The run continues in this UI process and may call tools with side effects.
        </p>
        <p>
          Recorded as <strong className="decider">{decider}</strong>, now, with the reason below.
        </p>
        <label>
          Reason (recorded with the decision; not passed to the run)
          <input value={reason} onChange={(event) => setReason(event.target.value)} autoFocus />
        </label>
        <JsonView label="will send" value={body} />
        <div className="dialog-actions">
          <button type="button" className={props.approved ? 'primary' : 'danger'} disabled={busy} onClick={() => void send()}>
            {busy ? 'Sending…' : verb}
          </button>
          <button type="button" onClick={props.onClose} disabled={busy}>
            Cancel
          </button>
        </div>
      </div>
    </div>
  );
}

/** The context of a pause as a readable two-column table (nested values as JSON). */
export function ContextTable({ context }: { context: Record<string, unknown> }) {
  const entries = Object.entries(context);
  if (entries.length === 0) return <span className="muted">no context</span>;
  return (
    <table className="kv compact">
      <tbody>
        {entries.map(([key, value]) => (
          <tr key={key}>
            <th>{key}</th>
            <td className="mono">{typeof value === 'string' ? value : JSON.stringify(value)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
