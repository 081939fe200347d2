/**
 * Approve or reject a paused run: a confirmation dialog shows what will be sent (the Resume value) with an approver
 * name and an optional reason. A 409 means someone else already handled it: said in plain words, and the caller
 * refreshes its rows.
 */
import { useState } from 'react';
import { api, asError, type Schemas } from '../api.js';
import { JsonView } from './json-view.js';

export type DecisionOutcome = { kind: 'done'; result: Schemas['ResumeResponse'] } | { kind: 'conflict'; detail: string } | { kind: 'error'; detail: string };

export function DecisionDialog(props: {
  pending: Schemas['PendingInterrupt'];
  approved: boolean;
  onClose: () => void;
  onOutcome: (outcome: DecisionOutcome) => void;
}) {
  const [approver, setApprover] = useState('');
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const metadata = approver.trim() ? { approver: approver.trim() } : {};
  const body: Schemas['ResumeRequest'] = { approved: props.approved, metadata, ...(reason.trim() ? { reason: reason.trim() } : {}) };

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
        <label>
          Approver (sent as metadata)
          <input value={approver} onChange={(event) => setApprover(event.target.value)} placeholder="your name" autoFocus />
        </label>
        <label>
          Reason (optional, kept with the response, not passed to the run)
          <input value={reason} onChange={(event) => setReason(event.target.value)} />
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
