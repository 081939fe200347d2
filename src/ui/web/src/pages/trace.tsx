/**
 * `/traces/<id>`: the span tree as a waterfall (indent by parent, bar by start and duration; virtualised for large
 * traces), the selected span's attributes, input/output, events and error; favorite; the export dialog (the same
 * document `agentkit export-trace` writes). `?span=<id>` selects a span, so a link can point at one step.
 */
import { useVirtualizer } from '@tanstack/react-virtual';
import { useMemo, useRef, useState } from 'react';
import { api, asError, type Schemas } from '../api.js';
import { JsonView } from '../components/json-view.js';
import { ErrorBox, Loading, useLoad } from '../components/states.js';
import { Status } from '../components/status.js';
import { Time } from '../components/time.js';
import { duration } from '../format.js';
import { Link, navigate } from '../router.js';
import { FavoriteStar } from './traces.js';

type Span = Schemas['Span'];

const INPUT_KEYS = [
  'gen_ai.request.messages',
  'gen_ai.request.prompt',
  'agent.input',
  'chain.input',
  'swarm.input',
  'supervisor.input',
  'tool.input',
  'tool.args',
  'retrieval.query',
  'input',
];
const OUTPUT_KEYS = [
  'gen_ai.response.content',
  'gen_ai.response.tool_calls',
  'agent.output',
  'chain.output',
  'swarm.output',
  'supervisor.output',
  'tool.output',
  'tool.result',
  'retrieval.doc_ids',
  'output',
];
const ROW_HEIGHT = 28;

interface Row {
  span: Span;
  depth: number;
  startMs: number;
  durationMs: number | null;
}

/** Spans in tree order (depth first, children by start time), with offsets from the trace start. */
function layout(spans: Span[]): { rows: Row[]; totalMs: number } {
  const ids = new Set(spans.map((s) => s.span_id));
  const children = new Map<string | null, Span[]>();
  for (const span of spans) {
    const parent = span.parent_span_id && ids.has(span.parent_span_id) ? span.parent_span_id : null;
    children.set(parent, [...(children.get(parent) ?? []), span]);
  }
  const t0 = Math.min(...spans.map((s) => Date.parse(s.start_time)));
  const end = Math.max(...spans.map((s) => Date.parse(s.end_time ?? s.start_time)));
  const rows: Row[] = [];
  const stack: Array<{ span: Span; depth: number }> = (children.get(null) ?? [])
    .slice()
    .reverse()
    .map((span) => ({ span, depth: 0 }));
  while (stack.length > 0) {
    const { span, depth } = stack.pop()!;
    const start = Date.parse(span.start_time);
    rows.push({ span, depth, startMs: start - t0, durationMs: span.end_time ? Date.parse(span.end_time) - start : null });
    for (const child of (children.get(span.span_id) ?? []).slice().reverse()) stack.push({ span: child, depth: depth + 1 });
  }
  return { rows, totalMs: Math.max(end - t0, 1) };
}

function executionIdOf(spans: Span[]): string | null {
  for (const span of spans) {
    for (const key of ['agent.execution_id', 'chain.execution_id', 'swarm.execution_id', 'supervisor.execution_id']) {
      const value = span.attributes[key];
      if (typeof value === 'string' && value) return value;
    }
  }
  return null;
}

export function TracePage({ traceId, query }: { traceId: string; query: URLSearchParams }) {
  const [loaded, reload] = useLoad(async () => {
    const [trace, favorite] = await Promise.all([
      api.GET('/api/traces/{trace_id}', { params: { path: { trace_id: traceId } } }),
      api.GET('/api/traces/{trace_id}/favorite', { params: { path: { trace_id: traceId } } }),
    ]);
    return trace.data ? { data: { trace: trace.data, favorite: favorite.data?.favorite ?? false } } : { error: asError(trace.error, trace.response.status) };
  }, traceId);
  const [exporting, setExporting] = useState(false);

  if (loaded.state === 'loading') return <Loading what="the trace" />;
  if (loaded.state === 'error') return <ErrorBox error={loaded.error} retry={reload} />;
  const { trace, favorite } = loaded.data;
  const executionId = executionIdOf(trace.spans);
  return (
    <>
      <div className="page-head">
        <h1>
          <FavoriteStar traceId={traceId} favorite={favorite} /> {trace.name} <Status value={trace.status} />
        </h1>
        <div className="actions">
          <Link to={`/traces/${traceId}/replay`} className="button">
            Replay…
          </Link>
          <button type="button" onClick={() => setExporting(true)}>
            Export…
          </button>
        </div>
      </div>
      <p className="meta">
        <span className="mono">{trace.trace_id}</span> · <Time iso={trace.start_time} /> · {duration(trace.metadata.duration_ms as number | null)} ·{' '}
        {trace.spans.length} spans
        {executionId ? (
          <>
            {' '}
            · execution{' '}
            <Link to={`/executions/${executionId}`} className="mono">
              {executionId}
            </Link>
          </>
        ) : null}
      </p>
      <Waterfall spans={trace.spans} selected={query.get('span')} traceId={traceId} />
      {exporting ? <ExportDialog traceId={traceId} onClose={() => setExporting(false)} /> : null}
    </>
  );
}

function Waterfall({ spans, selected, traceId }: { spans: Span[]; selected: string | null; traceId: string }) {
  const { rows, totalMs } = useMemo(() => layout(spans), [spans]);
  const scroller = useRef<HTMLDivElement>(null);
  const virtual = useVirtualizer({ count: rows.length, getScrollElement: () => scroller.current, estimateSize: () => ROW_HEIGHT, overscan: 20 });
  const current = rows.find((row) => row.span.span_id === selected) ?? rows[0]!;
  const select = (spanId: string) => navigate(`/traces/${traceId}?span=${spanId}`, { replace: true });
  return (
    <div className="split">
      <div className="waterfall" role="tree" aria-label="Spans">
        <div className="wf-head">
          <span>Span</span>
          <span className="wf-scale">
            <span>0</span>
            <span>{duration(totalMs / 2)}</span>
            <span>{duration(totalMs)}</span>
          </span>
        </div>
        <div className="wf-body" ref={scroller}>
          <div className="vspace" style={{ height: virtual.getTotalSize() }}>
            {virtual.getVirtualItems().map((item) => {
              const row = rows[item.index]!;
              const left = (row.startMs / totalMs) * 100;
              const width = Math.max(((row.durationMs ?? totalMs - row.startMs) / totalMs) * 100, 0.4);
              const isSelected = row.span.span_id === current.span.span_id;
              return (
                <button
                  type="button"
                  role="treeitem"
                  aria-selected={isSelected}
                  aria-level={row.depth + 1}
                  key={row.span.span_id}
                  className={`wf-row${isSelected ? ' selected' : ''}${row.span.status === 'ERROR' ? ' error' : ''}`}
                  style={{ transform: `translateY(${item.start}px)`, height: ROW_HEIGHT }}
                  onClick={() => select(row.span.span_id)}
                >
                  <span className="wf-name" style={{ paddingLeft: 8 + row.depth * 14 }} title={row.span.name}>
                    {row.span.name}
                  </span>
                  <span className="wf-track">
                    <span className={`wf-bar kind-${row.span.name.split('.')[0]}`} style={{ left: `${left}%`, width: `${Math.min(width, 100 - left)}%` }} />
                    {/* The duration sits after the bar; before it when the bar reaches the right edge; inside a wide one. */}
                    {left + width <= 80 ? (
                      <span className="wf-dur" style={{ left: `${left + width}%` }}>
                        {duration(row.durationMs)}
                      </span>
                    ) : left > 15 ? (
                      <span className="wf-dur before" style={{ right: `${100 - left}%` }}>
                        {duration(row.durationMs)}
                      </span>
                    ) : (
                      <span className="wf-dur inside" style={{ right: `${Math.max(100 - left - width, 0)}%` }}>
                        {duration(row.durationMs)}
                      </span>
                    )}
                  </span>
                </button>
              );
            })}
          </div>
        </div>
      </div>
      <SpanDetail row={current} />
    </div>
  );
}

function SpanDetail({ row }: { row: Row }) {
  const span = row.span;
  const inputs = INPUT_KEYS.filter((key) => key in span.attributes);
  const outputs = OUTPUT_KEYS.filter((key) => key in span.attributes);
  const rest = Object.entries(span.attributes).filter(([key]) => !inputs.includes(key) && !outputs.includes(key));
  const errors = span.events.filter((event) => event.name === 'exception');
  return (
    <aside className="detail" aria-label="Selected span">
      <h2>
        {span.name} <Status value={span.status} />
      </h2>
      <p className="meta">
        <span className="mono">{span.span_id}</span> · starts at +{duration(row.startMs)} · took {duration(row.durationMs)}
      </p>
      {errors.map((event, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: a span's events never reorder, and two may share name and time
        <div className="state state-error" key={i}>
          <strong>{String(event.attributes['exception.type'] ?? 'Error')}: </strong>
          {String(event.attributes['exception.message'] ?? '')}
        </div>
      ))}
      {inputs.length > 0 ? <h3>Input</h3> : null}
      {inputs.map((key) => (
        <JsonView key={key} label={key} value={span.attributes[key]} />
      ))}
      {outputs.length > 0 ? <h3>Output</h3> : null}
      {outputs.map((key) => (
        <JsonView key={key} label={key} value={span.attributes[key]} />
      ))}
      <h3>Attributes</h3>
      <table className="kv">
        <tbody>
          {rest.map(([key, value]) => (
            <tr key={key}>
              <th className="mono">{key}</th>
              <td className="mono">{typeof value === 'string' ? value : JSON.stringify(value)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {span.events.length > 0 ? (
        <>
          <h3>Events</h3>
          <ul className="events">
            {span.events.map((event, i) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: a span's events never reorder, and two may share name and time
              <li key={i}>
                <span className="mono">{event.name}</span> <Time iso={event.timestamp} />
                {Object.keys(event.attributes).length > 0 ? <JsonView value={event.attributes} /> : null}
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </aside>
  );
}

function ExportDialog({ traceId, onClose }: { traceId: string; onClose: () => void }) {
  const [attachments, setAttachments] = useState(false);
  const [state, setState] = useState(false);
  const [loaded] = useLoad(async () => {
    const { data, error, response } = await api.GET('/api/traces/{trace_id}/export', {
      params: { path: { trace_id: traceId }, query: { include_attachments: attachments, include_checkpoint_state: state } },
    });
    return data ? { data } : { error: asError(error, response.status) };
  }, `${traceId}|${attachments}|${state}`);
  const href = useMemo(
    () => (loaded.state === 'ok' ? URL.createObjectURL(new Blob([`${JSON.stringify(loaded.data, null, 2)}\n`], { type: 'application/json' })) : null),
    [loaded],
  );
  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: Escape pressed in any field of the dialog bubbles here and closes it
    <div className="dialog-backdrop" onKeyDown={(event) => event.key === 'Escape' && onClose()}>
      <div className="dialog" role="dialog" aria-modal="true" aria-labelledby="export-title">
        <h2 id="export-title">Export trace</h2>
        <p className="muted">
          The same self-contained JSON as <code>agentkit export-trace --trace-id {traceId}</code>. It holds prompts and tool payloads: share it with care.
        </p>
        <label className="check">
          <input type="checkbox" checked={attachments} onChange={(event) => setAttachments(event.target.checked)} /> include attachment bytes (base64)
        </label>
        <label className="check">
          <input type="checkbox" checked={state} onChange={(event) => setState(event.target.checked)} /> include checkpoint state
        </label>
        {loaded.state === 'loading' ? <Loading what="the export" /> : null}
        {loaded.state === 'error' ? <ErrorBox error={loaded.error} /> : null}
        {loaded.state === 'ok' ? (
          <p>
            {loaded.data.spans.length} spans, {loaded.data.checkpoints.length} checkpoints, {loaded.data.multimodal_attachments.length} attachments.
          </p>
        ) : null}
        <div className="dialog-actions">
          {href ? (
            <a className="button primary" href={href} download={`trace-${traceId}.json`}>
              Download JSON
            </a>
          ) : null}
          <button type="button" onClick={onClose} autoFocus>
            Close
          </button>
        </div>
      </div>
    </div>
  );
}
