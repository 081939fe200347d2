/**
 * `/traces`: every trace of the window, newest first, in a virtualised table (10,000 rows stay smooth). Window,
 * search, status and favorites live in the query string. Keys: `/` search, `j`/`k` move, `Enter` opens.
 */
import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useRef, useState } from 'react';
import { api, asError, type Schemas } from '../api.js';
import { Empty, ErrorBox, Loading, useLoad } from '../components/states.js';
import { Status } from '../components/status.js';
import { Time } from '../components/time.js';
import { duration } from '../format.js';
import { useCan } from '../components/role.js';
import { Link, navigate } from '../router.js';

const WINDOWS: Array<[string, string]> = [
  ['1', 'last hour'],
  ['24', 'last 24 h'],
  ['168', 'last 7 days'],
  ['720', 'last 30 days'],
];

const ROW_HEIGHT = 34;

export function TracesPage({ query }: { query: URLSearchParams }) {
  const lastHours = query.get('last_hours') ?? '24';
  const q = query.get('q') ?? '';
  const status = query.get('status') ?? '';
  const favorites = query.get('favorites') === 'true';
  const [search, setSearch] = useState(q);
  useEffect(() => setSearch(q), [q]);

  const [loaded, reload] = useLoad(async () => {
    const { data, error, response } = await api.GET('/api/traces', {
      params: {
        query: {
          last_hours: Number(lastHours),
          ...(q ? { q } : {}),
          ...(status ? { status: status as Schemas['SpanStatus'] } : {}),
          ...(favorites ? { favorites: true } : {}),
        },
      },
    });
    return data ? { data } : { error: asError(error, response.status) };
  }, `${lastHours}|${q}|${status}|${favorites}`);

  function setFilter(name: string, value: string) {
    const next = new URLSearchParams(query);
    if (value) next.set(name, value);
    else next.delete(name);
    navigate(`/traces${next.size ? `?${next}` : ''}`, { replace: true });
  }

  return (
    <>
      <h1>Traces</h1>
      <form
        className="filters"
        role="search"
        onSubmit={(event) => {
          event.preventDefault();
          setFilter('q', search.trim());
        }}
      >
        <input
          type="search"
          data-search
          aria-label="Search span names and attributes"
          placeholder="Search names and attributes  ( / )"
          value={search}
          onChange={(event) => setSearch(event.target.value)}
        />
        <select aria-label="Window" value={lastHours} onChange={(event) => setFilter('last_hours', event.target.value === '24' ? '' : event.target.value)}>
          {WINDOWS.map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
        <select aria-label="Status" value={status} onChange={(event) => setFilter('status', event.target.value)}>
          <option value="">any status</option>
          <option value="OK">ok</option>
          <option value="ERROR">error</option>
          <option value="UNSET">unset</option>
        </select>
        <label className="check">
          <input type="checkbox" checked={favorites} onChange={(event) => setFilter('favorites', event.target.checked ? 'true' : '')} /> favorites only
        </label>
        <button type="submit">Search</button>
      </form>
      {loaded.state === 'loading' ? <Loading what="traces" /> : null}
      {loaded.state === 'error' ? <ErrorBox error={loaded.error} retry={reload} /> : null}
      {loaded.state === 'ok' && loaded.data.count === 0 ? (
        <Empty>
          No traces {q ? <>matching “{q}” </> : null}in this window{favorites ? ' among favorites' : ''}. Widen the window or clear the filters.
        </Empty>
      ) : null}
      {loaded.state === 'ok' && loaded.data.count > 0 ? <TraceTable items={loaded.data.items} onChanged={reload} /> : null}
    </>
  );
}

function TraceTable({ items, onChanged }: { items: Schemas['UiTraceSummary'][]; onChanged: () => void }) {
  const scroller = useRef<HTMLDivElement>(null);
  const [cursor, setCursor] = useState(0);
  const rows = useVirtualizer({ count: items.length, getScrollElement: () => scroller.current, estimateSize: () => ROW_HEIGHT, overscan: 12 });

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if ((event.target as HTMLElement).closest('input, textarea, select')) return;
      if (event.key === 'j' || event.key === 'k') {
        event.preventDefault();
        setCursor((c) => {
          const next = Math.max(0, Math.min(items.length - 1, c + (event.key === 'j' ? 1 : -1)));
          rows.scrollToIndex(next);
          return next;
        });
      } else if (event.key === 'Enter' && !(event.target as HTMLElement).closest('a, button')) {
        const item = items[cursor];
        if (item) navigate(`/traces/${item.trace_id}`);
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [items, cursor, rows]);

  return (
    <div className="vtable" role="table" aria-label="Traces" aria-rowcount={items.length}>
      <div className="vrow vhead" role="row">
        <span role="columnheader" className="c-fav" aria-label="Favorite" />
        <span role="columnheader" className="c-time">
          Time
        </span>
        <span role="columnheader" className="c-name">
          Name
        </span>
        <span role="columnheader" className="c-status">
          Status
        </span>
        <span role="columnheader" className="c-num">
          Duration
        </span>
        <span role="columnheader" className="c-num">
          Spans
        </span>
        <span role="columnheader" className="c-id">
          Trace id
        </span>
      </div>
      <div className="vbody" ref={scroller}>
        <div className="vspace" style={{ height: rows.getTotalSize() }}>
          {rows.getVirtualItems().map((row) => {
            const t = items[row.index]!;
            return (
              <div
                key={t.trace_id}
                role="row"
                aria-rowindex={row.index + 1}
                className={row.index === cursor ? 'vrow cursor' : 'vrow'}
                style={{ transform: `translateY(${row.start}px)`, height: ROW_HEIGHT }}
                onMouseDown={() => setCursor(row.index)}
              >
                <span role="cell" className="c-fav">
                  <FavoriteStar traceId={t.trace_id} favorite={t.favorite} onChanged={onChanged} />
                </span>
                <span role="cell" className="c-time">
                  <Time iso={t.start_time} />
                </span>
                <span role="cell" className="c-name">
                  <Link to={`/traces/${t.trace_id}`}>{t.name}</Link>
                </span>
                <span role="cell" className="c-status">
                  <Status value={t.run_status ?? t.status} />
                </span>
                <span role="cell" className="c-num">
                  {duration(t.duration_ms)}
                </span>
                <span role="cell" className="c-num">
                  {t.span_count}
                </span>
                <span role="cell" className="c-id mono">
                  <Link to={`/traces/${t.trace_id}`}>{t.trace_id}</Link>
                </span>
              </div>
            );
          })}
        </div>
      </div>
    </div>
  );
}

/** A star that sets or clears the favorite mark; for a role that cannot mark favorites (not admin), only the mark. */
export function FavoriteStar({ traceId, favorite, onChanged }: { traceId: string; favorite: boolean; onChanged?: (favorite: boolean) => void }) {
  const [value, setValue] = useState(favorite);
  useEffect(() => setValue(favorite), [favorite]);
  const canMark = useCan('admin');
  if (!canMark) {
    return value ? (
      <span className="star on" title="Favorite">
        ★
      </span>
    ) : null;
  }
  return (
    <button
      type="button"
      className={value ? 'star on' : 'star'}
      aria-pressed={value}
      aria-label={value ? 'Remove from favorites' : 'Add to favorites'}
      title={value ? 'Favorite (click to clear)' : 'Mark as favorite'}
      onClick={() => {
        void api.PUT('/api/traces/{trace_id}/favorite', { params: { path: { trace_id: traceId } }, body: { favorite: !value } }).then(({ data }) => {
          if (data) {
            setValue(data.favorite);
            onChanged?.(data.favorite);
          }
        });
      }}
    >
      {value ? '★' : '☆'}
    </button>
  );
}
