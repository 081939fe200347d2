/** Writing and deleting: a retried batch is harmless, `deleteTrace` takes one run, `prune` judges a run by its start. */
import assert from 'node:assert/strict';
import { NotFoundError } from '../../errors.js';
import { HOUR, MINUTE, newTraceId, spanRow } from './fixtures.js';
import type { TraceContractCase } from './types.js';

export const writeDeleteCases: TraceContractCase[] = [
  {
    group: 'write',
    name: 'a batch written twice stores each span once',
    async run({ traces, write }) {
      const id = newTraceId();
      const rows = [spanRow(id, 'agent.retried', 2 * MINUTE), spanRow(id, 'llm.retried', MINUTE)];
      await write(rows);
      await write(rows);
      assert.equal((await traces.getTrace(id)).spans.length, 2);
    },
  },
  {
    group: 'deleteTrace',
    name: 'deletes one run and nothing else',
    async run({ traces, write }) {
      const [gone, kept] = [newTraceId(), newTraceId()];
      await write([spanRow(gone, 'agent.gone', 2 * MINUTE), spanRow(gone, 'llm.gone', MINUTE), spanRow(kept, 'agent.kept', MINUTE)]);
      assert.equal(await traces.deleteTrace(gone), gone);
      await assert.rejects(traces.getTrace(gone), NotFoundError);
      assert.equal((await traces.getTrace(kept)).spans.length, 1);
      await assert.rejects(traces.deleteTrace(gone), NotFoundError);
    },
  },
  {
    group: 'prune',
    name: 'removes runs that started before the cutoff, whole, and keeps newer ones',
    async run({ traces, write }) {
      const [old, straddling, recent] = [newTraceId(), newTraceId(), newTraceId()];
      await write([
        spanRow(old, 'agent.old', 3 * HOUR),
        spanRow(straddling, 'agent.straddling', 2 * HOUR),
        spanRow(straddling, 'llm.late', 10 * MINUTE),
        spanRow(recent, 'agent.recent', MINUTE),
      ]);
      assert.equal(await traces.prune(HOUR), 2);
      await assert.rejects(traces.getTrace(old), NotFoundError);
      await assert.rejects(traces.getTrace(straddling), NotFoundError, 'a run is judged by its first span');
      assert.equal((await traces.getTrace(recent)).spans.length, 1);
      assert.equal(await traces.prune(HOUR), 0);
      assert.equal(await traces.prune(new Date(Date.now() + MINUTE)), 1);
      await assert.rejects(traces.prune(-1), /olderThan must be an age in milliseconds/);
    },
  },
];
