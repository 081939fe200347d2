import * as assert from 'uvu/assert';
import { suite } from '../../test-support/uvu.js';
import { StorageUnavailableError } from '../store/storage-errors.js';
import { ExecutionBusy } from './errors.js';
import { warnTerminalRowLost } from './terminal-row-warning.js';

const test = suite('durability: the lost terminal row warning');

/** The warnings `fn` emits, as their messages. */
async function warningsOf(fn: () => void): Promise<string[]> {
  const seen: string[] = [];
  const listener = (warning: Error) => seen.push(warning.message);
  process.on('warning', listener);
  try {
    fn();
    // process.emitWarning delivers on the next tick.
    await new Promise((resolve) => setImmediate(resolve));
  } finally {
    process.off('warning', listener);
  }
  return seen;
}

test('a storage outage is warned once per 10 s window, naming the first execution; the next window says how many were not shown', async () => {
  const down = new StorageUnavailableError('the Postgres checkpointer (schema "a") is unavailable: the server refused the connection; retry later');
  const base = 1_000_000_000;
  const seen = await warningsOf(() => {
    for (let i = 0; i < 50; i++) warnTerminalRowLost(`e${i}`, new Error('run failed', { cause: down }), '', base + i * 100);
    warnTerminalRowLost('e-late', down, 'swarm ', base + 10_000);
  });
  assert.equal(seen, [
    `agentkit: could not write the failed terminal row of execution 'e0': run failed (more while the store is unavailable are counted, not shown)`,
    `agentkit: could not write the failed terminal row of swarm execution 'e-late': ${down.message} (49 more in the last 10 s not shown)`,
  ]);
});

test('a store error that is not an outage is warned every time; a lost lease is silent', async () => {
  const seen = await warningsOf(() => {
    warnTerminalRowLost('x1', new Error('row refused: state is not JSON'), 'supervisor ', 5_000_000_000);
    warnTerminalRowLost('x2', new Error('row refused: state is not JSON'), '', 5_000_000_001);
    warnTerminalRowLost('x3', new ExecutionBusy('another process runs it'), '', 5_000_000_002);
  });
  assert.equal(seen, [
    `agentkit: could not write the failed terminal row of supervisor execution 'x1': row refused: state is not JSON`,
    `agentkit: could not write the failed terminal row of execution 'x2': row refused: state is not JSON`,
  ]);
});

test.run();
