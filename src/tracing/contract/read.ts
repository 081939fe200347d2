/** Reading: `listTraces` windows and summaries, `getTrace` order, `search`, `resolve` and `runsCalledBy`. */
import assert from 'node:assert/strict';
import { AmbiguousTraceError, NotFoundError } from '../../errors.js';
import { PAUSED, RESUMED_FROM, RUN_STATUS_ATTR } from '../run-status.js';
import { HOUR, MINUTE, newTraceId, spanRow } from './fixtures.js';
import type { TraceContractCase } from './types.js';

export const readCases: TraceContractCase[] = [
  {
    group: 'listTraces',
    name: 'lists traces started in the window, newest first, with root name, span count, status and end',
    async run({ traces, write }) {
      const [older, newer, failing, open, outside] = [newTraceId(), newTraceId(), newTraceId(), newTraceId(), newTraceId()];
      const root = spanRow(older, 'agent.older', 30 * MINUTE);
      await write([
        root,
        spanRow(older, 'llm.call', 29 * MINUTE, { parent_span_id: root.span_id }),
        spanRow(newer, 'agent.newer', 10 * MINUTE),
        spanRow(failing, 'agent.failing', 20 * MINUTE, { status: 'ERROR' }),
        spanRow(open, 'agent.open', 5 * MINUTE, { end_time: null }),
        spanRow(outside, 'agent.outside', 3 * HOUR),
      ]);
      const listed = await traces.listTraces({ lastHours: 1 });
      assert.deepEqual(
        listed.map((t) => [t.trace_id, t.name, t.span_count, t.status, t.end_time === null]),
        [
          [open, 'agent.open', 1, 'OK', true],
          [newer, 'agent.newer', 1, 'OK', false],
          [failing, 'agent.failing', 1, 'ERROR', false],
          [older, 'agent.older', 2, 'OK', false],
        ],
      );
      assert.equal((await traces.listTraces({ lastHours: 4 })).length, 5);
      await assert.rejects(traces.listTraces({ lastHours: 0 }), /lastHours must be a positive number/);
    },
  },
  {
    group: 'listTraces',
    name: 'a listing of many traces marks the paused run (and not one resumed since, nor one paused before the window)',
    async run({ traces, write }) {
      const paused = newTraceId();
      const resumedRun = newTraceId();
      const old = newTraceId();
      const marked = JSON.stringify({ [RUN_STATUS_ATTR]: PAUSED });
      const rows = Array.from({ length: 70 }, (_, i) => spanRow(newTraceId(), `agent.run_${i}`, (i + 1) * 1000));
      rows.push(spanRow(paused, 'agent.waiting', 30 * MINUTE, { attributes: marked }));
      rows.push(spanRow(resumedRun, 'agent.was_waiting', 40 * MINUTE, { attributes: marked }));
      rows.push(spanRow(newTraceId(), 'agent.resume', 20 * MINUTE, { attributes: JSON.stringify({ [RESUMED_FROM.traceId]: resumedRun }) }));
      rows.push(spanRow(old, 'agent.old_pause', 3 * HOUR, { attributes: marked }));
      await write(rows);
      const listed = await traces.listTraces({ lastHours: 1 });
      assert.equal(listed.length, 73, 'more than 64 traces: the listing path');
      assert.deepEqual(
        listed.filter((t) => t.run_status === 'paused').map((t) => t.trace_id),
        [paused],
      );
      assert.deepEqual(
        (await traces.listTraces({ lastHours: 4 })).filter((t) => t.run_status === 'paused').map((t) => t.trace_id),
        [paused, old],
      );
    },
  },
  {
    group: 'getTrace',
    name: 'returns every span in start order; an unknown id is trace_not_found naming the store',
    async run({ traces, write }) {
      const id = newTraceId();
      const root = spanRow(id, 'agent.ordered', 10 * MINUTE);
      const second = spanRow(id, 'tool.second', 8 * MINUTE, { parent_span_id: root.span_id });
      const first = spanRow(id, 'llm.first', 9 * MINUTE, { parent_span_id: root.span_id, attributes: '{"k":"v","n":1}' });
      await write([second, root, first]);
      const trace = await traces.getTrace(id);
      assert.deepEqual(
        trace.spans.map((s) => s.name),
        ['agent.ordered', 'llm.first', 'tool.second'],
      );
      assert.deepEqual(trace.spans[1]!.attributes, { k: 'v', n: 1 });
      assert.equal(trace.metadata.span_count, 3);
      const missing = newTraceId();
      await assert.rejects(traces.getTrace(missing), (error: unknown) => {
        assert.ok(error instanceof NotFoundError);
        assert.equal(error.message, `trace '${missing}' not found in ${traces.label}`);
        return true;
      });
    },
  },
  {
    group: 'search',
    name: 'matches name or attributes case-insensitively; % and _ are literal',
    async run({ traces, write }) {
      const [byName, byAttr, decoy] = [newTraceId(), newTraceId(), newTraceId()];
      await write([
        spanRow(byName, 'agent.RefundDesk', 10 * MINUTE),
        spanRow(byAttr, 'agent.other', 9 * MINUTE, { attributes: '{"note":"50% off_today"}' }),
        spanRow(decoy, 'agent.decoy', 8 * MINUTE, { attributes: '{"note":"50 percent offXtoday"}' }),
      ]);
      assert.deepEqual(
        (await traces.search('refunddesk')).map((t) => t.trace_id),
        [byName],
      );
      assert.deepEqual(
        (await traces.search('50% off_')).map((t) => t.trace_id),
        [byAttr],
      );
      assert.deepEqual(await traces.search('nothing-like-this'), []);
    },
  },
  {
    group: 'resolve',
    name: "a stored id names itself; a caller's trace of one run names it, of two runs is ambiguous",
    async run({ traces, write }) {
      const [caller, lone, runA, runB, single] = [newTraceId(), newTraceId(), newTraceId(), newTraceId(), newTraceId()];
      await write([
        spanRow(runA, 'agent.a', 10 * MINUTE, { caller_trace_id: caller }),
        spanRow(runB, 'agent.b', 9 * MINUTE, { caller_trace_id: caller }),
        spanRow(single, 'agent.single', 8 * MINUTE, { caller_trace_id: lone }),
      ]);
      assert.equal(await traces.resolve(runA), runA);
      assert.equal(await traces.resolve(lone), single);
      await assert.rejects(traces.resolve(caller), (error: unknown) => {
        assert.ok(error instanceof AmbiguousTraceError);
        assert.deepEqual([...error.runs], [runA, runB]);
        return true;
      });
      assert.deepEqual(
        (await traces.runsCalledBy(caller)).map((t) => t.trace_id),
        [runA, runB],
      );
      await assert.rejects(traces.resolve(newTraceId()), NotFoundError);
    },
  },
  {
    group: 'encoding',
    name: 'NUL and private-use characters in names and attributes round-trip',
    async run({ traces, write }) {
      const id = newTraceId();
      const odd = 'a\u0000b\ue000c';
      await write([spanRow(id, `agent.${odd}`, MINUTE, { attributes: JSON.stringify({ text: odd }) })]);
      const [span] = (await traces.getTrace(id)).spans;
      assert.equal(span!.name, `agent.${odd}`);
      assert.deepEqual(span!.attributes, { text: odd });
    },
  },
];
