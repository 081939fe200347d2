/** `getIdempotent` / `putIdempotent`: JSON values per (execution, key); a stored null is not a miss. */
import assert from 'node:assert/strict';
import type { ContractCase } from './types.js';
import { newExecutionId } from './fixtures.js';

export const idempotencyCases: ContractCase[] = [
  {
    group: 'idempotency',
    name: 'a miss is undefined; every JSON value round-trips, null included',
    async run({ checkpointer }) {
      const id = newExecutionId();
      assert.equal(await checkpointer.getIdempotent(id, 'k'), undefined);
      const values = [{ charge_id: 'ch_1', amounts: [1, 2.5], ok: true, none: null }, ['a', 1], 'text', 0, 42.5, false, null];
      for (const [i, value] of values.entries()) await checkpointer.putIdempotent(id, `k${i}`, value);
      for (const [i, value] of values.entries()) assert.deepEqual(await checkpointer.getIdempotent(id, `k${i}`), value);
    },
  },
  {
    group: 'idempotency',
    name: 'a put replaces the value; keys are scoped by execution',
    async run({ checkpointer }) {
      const id = newExecutionId();
      const other = newExecutionId();
      await checkpointer.putIdempotent(id, 'k', 1);
      await checkpointer.putIdempotent(id, 'k', { replaced: true });
      assert.deepEqual(await checkpointer.getIdempotent(id, 'k'), { replaced: true });
      assert.equal(await checkpointer.getIdempotent(other, 'k'), undefined);
      assert.equal(await checkpointer.getIdempotent(id, 'other-key'), undefined);
    },
  },
];
