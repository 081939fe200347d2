/**
 * A contract store on a store value: the reader is `TraceStore`; rows are written as each engine's writer stores them
 * (SQLite: the writer's `INSERT OR REPLACE`, through the store's migrations; Postgres: `PgSpanSink`, flushed).
 */
import { parseStoreValue } from '../../config/store-value.js';
import { openLocalStore } from '../../store/open.js';
import { PgSpanSink } from '../pg-span-sink.js';
import type { SpanRow } from '../span-record.js';
import { TraceStore } from '../trace-store.js';
import type { TraceContractStore } from './types.js';

/** A contract store on `value` (a file path or a `postgres://...?schema=` URL); `close()` gives back its connections. */
export function traceContractStore(value: string): TraceContractStore & { close(): Promise<void> } {
  const ref = parseStoreValue(value);
  const traces = new TraceStore({ dbPath: value });
  if (ref.engine === 'sqlite') {
    return {
      traces,
      async write(rows: readonly SpanRow[]) {
        const db = openLocalStore(ref.path);
        try {
          const insert = db.prepare(
            'INSERT OR REPLACE INTO spans (span_id, trace_id, parent_span_id, name, start_time, end_time, status, attributes, events, caller_trace_id) VALUES (@span_id, @trace_id, @parent_span_id, @name, @start_time, @end_time, @status, @attributes, @events, @caller_trace_id)',
          );
          db.transaction(() => {
            for (const row of rows) insert.run({ caller_trace_id: null, ...row });
          })();
        } finally {
          db.close();
        }
      },
      close: () => traces.close(),
    };
  }
  const sink = new PgSpanSink(ref, (message) => {
    throw new Error(`the contract's span writer warned: ${message}`);
  });
  return {
    traces,
    async write(rows: readonly SpanRow[]) {
      sink.enqueue(rows);
      await sink.flush();
      if (sink.pending > 0 || sink.dropped > 0) throw new Error(`the Postgres span writer kept ${sink.pending} and dropped ${sink.dropped} row(s)`);
    },
    async close() {
      await sink.close();
      await traces.close();
    },
  };
}
