import * as assert from 'uvu/assert';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { suite } from '../../test-support/uvu.js';
import { Agent } from '../agent/agent.js';
import { SQLiteCheckpointer } from '../durability/sqlite-checkpointer.js';
import { FunctionModel } from '../testing/index.js';
import { startRecoveryLoop } from './recovery-loop.js';

const test = suite('served recovery loop');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(check: () => boolean): Promise<void> {
  while (!check()) await sleep(5);
}

test('a store outage is logged once, then once when sweeps work again; stop() ends the sweeps', async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'agentkit-recovery-loop-'));
  const checkpointer = new SQLiteCheckpointer(path.join(dir, 'store.db'));
  try {
    const agent = new Agent({ name: 'echo', llm: new FunctionModel(() => 'hi'), checkpointer, trace: false });
    const read = checkpointer.activeLeases.bind(checkpointer);
    let down = true;
    let sweeps = 0;
    // The store's read fails while `down`, as a database that refuses connections does.
    checkpointer.activeLeases = (options) => {
      sweeps++;
      return down ? Promise.reject(new Error('connect ECONNREFUSED')) : read(options);
    };
    const lines: string[] = [];
    const loop = startRecoveryLoop(agent, { intervalMs: 50, concurrency: 4, maxAttempts: 3, log: (line) => lines.push(line) });
    assert.ok(loop);
    await until(() => sweeps >= 4);
    assert.equal(lines, ['agentkit: recovery sweep failed (retrying every interval; not logged again until it works): Error: connect ECONNREFUSED']);
    down = false;
    await until(() => lines.length === 2);
    assert.is(lines[1], 'agentkit: recovery sweep works again');
    await loop!.stop();
    const after = sweeps;
    await sleep(200);
    assert.is(sweeps, after, 'no sweep after stop()');
  } finally {
    await checkpointer.close();
    await rm(dir, { recursive: true, force: true });
  }
});

test('a runner without a checkpointer has nothing to sweep: no loop, no line', () => {
  const lines: string[] = [];
  const agent = new Agent({ name: 'echo', llm: new FunctionModel(() => 'hi'), trace: false });
  assert.is(startRecoveryLoop(agent, { intervalMs: 50, concurrency: 4, maxAttempts: 3, log: (line) => lines.push(line) }), null);
  assert.equal(lines, []);
});

test.run();
