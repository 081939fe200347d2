/** The conflicts notice of the approvals inbox and the execution page (offline decisions the Platform refused). */
import type { Schemas } from '../api.js';
import { Link } from '../router.js';

/** Offline decisions the Platform refused: both decisions ran, so a person must reconcile them (docs/connected.md). */
export function Conflicts({ conflicts }: { conflicts: ReadonlyArray<Schemas['DecisionConflict']> }) {
  return (
    <section className="notice notice-error conflicts" aria-label="Decision conflicts">
      <strong>
        {conflicts.length} offline decision{conflicts.length === 1 ? '' : 's'} refused by the Platform
      </strong>{' '}
      (another host decided first; both ran):
      <ul>
        {conflicts.map((c) => (
          <li key={c.checkpoint_id}>
            <Link to={`/executions/${c.execution_id}`} className="mono">
              {c.execution_id}
            </Link>{' '}
            at <span className="mono">{c.node_id}</span>: {c.reason}
          </li>
        ))}
      </ul>
    </section>
  );
}
